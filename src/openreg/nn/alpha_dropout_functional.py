"""Alpha dropout of ``nn.functional`` (for SELU networks): dropped elements are set to SELU's negative saturation
value and the result is rescaled so the mean and variance of the input are kept; ``feature_alpha_dropout`` drops
whole channels. As in PyTorch the functional forms default to ``training=False``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> x = openreg.ones(4)
>>> F.alpha_dropout(x, 0.5) is x  # not training: the input itself
True
>>> sorted(set(round(v, 4) for v in F.alpha_dropout(openreg.zeros(1000), 0.5, training=True).tolist()))
[-0.7792, 0.7792]
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["alpha_dropout", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766  # SELU's scale * alpha: the value a dropped unit takes (negated)


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = list(input.shape)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + [1] * (input.dim() - 2)
    keep = input.new_empty(shape).bernoulli_(1 - p)
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    b = (keep - 1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
    scale = keep.mul_(a)
    if inplace:
        return input.mul_(scale).add_(b)
    return input * scale + b


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of each element with probability ``p`` while ``training``.

    >>> import openreg
    >>> alpha_dropout(openreg.ones(2), 2.0, training=True)
    Traceback (most recent call last):
    ...
    ValueError: dropout probability has to be between 0 and 1, but got 2.0
    """
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dim 1) with probability ``p`` while ``training``.

    >>> import openreg
    >>> y = feature_alpha_dropout(openreg.zeros(2, 3, 4), 0.5, training=True)
    >>> all(len(set(row)) == 1 for row in y.reshape(6, 4).tolist())  # one draw per channel
    True
    """
    return _alpha_dropout(input, p, training, inplace, feature=True)
