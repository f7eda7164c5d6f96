"""``openreg.nn.functional.dropout``: PyTorch's functional dropout over ``aten::dropout``/``native_dropout``.

>>> import openreg
>>> from openreg.nn.dropout_functional import dropout
>>> x = openreg.ones(1000)
>>> sorted(set(dropout(x, 0.5).tolist()))
[0.0, 2.0]
>>> dropout(x, 0.5, training=False) is x
True
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` (default generator of ``input``'s device) and scale the
    others by ``1 / (1 - p)`` while ``training``; identity otherwise. Differentiable.

    >>> import openreg
    >>> from openreg.nn.dropout_functional import dropout
    >>> dropout(openreg.ones(2), 1.5)
    Traceback (most recent call last):
    ...
    ValueError: dropout probability has to be between 0 and 1, but got 1.5
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = A.dropout(input, float(p), bool(training))
    if inplace:
        if out is not input:
            input.copy_(out)
        return input
    return out


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Zero whole channels (dim 1, or dim 0 of an unbatched input): one Bernoulli draw per (N, C)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    mask_shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    mask = input.new_empty(mask_shape).bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(mask) if inplace else input * mask


def _check_feature_dim(name: str, input: Tensor, dims: tuple) -> None:
    if input.dim() not in dims:
        raise RuntimeError(f"{name}: Expected {dims[0]}D or {dims[1]}D input, but received a {input.dim()}D input. "
                           f"Note that {name} exists to provide channel-wise dropout on inputs with "
                           f"{dims[0] - 1} spatial dimension{'s' if dims[0] > 2 else ''}, a channel dimension, and "
                           f"an optional batch dimension (i.e. {dims[0]}D or {dims[1]}D inputs).")


def _batched(input: Tensor, unbatched_dim: int, p: float, training: bool, inplace: bool) -> Tensor:
    if input.dim() == unbatched_dim:   # no batch dimension: the channels are dim 0
        out = _feature_dropout(input.unsqueeze(0), p, training, inplace)
        return input if inplace else out.squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero entire channels of an ``(N, C, L)`` or ``(C, L)`` input with probability ``p`` (others scaled by
    ``1 / (1 - p)``).

    >>> import openreg
    >>> out = openreg.nn.functional.dropout1d(openreg.ones(1, 8, 3), 0.5)
    >>> sorted(set(out.flatten().tolist())) in ([0.0, 2.0], [0.0], [2.0])
    True
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _check_feature_dim("dropout1d", input, (2, 3))
    return _batched(input, 2, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero entire channels of an ``(N, C, H, W)`` input with probability ``p`` (others scaled by ``1 / (1 - p)``);
    a 3-D input is taken as ``(N, C, L)``, with PyTorch's warning.

    >>> import openreg
    >>> openreg.nn.functional.dropout2d(openreg.ones(1, 2, 2, 2), 0.5, training=False).sum().item()
    8.0
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    import warnings
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will result "
                      f"in an error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      f"spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      f"inputs).", stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero entire channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with probability ``p``.

    >>> import openreg
    >>> openreg.nn.functional.dropout3d(openreg.ones(2, 1, 1, 1), 0.5, training=False).sum().item()
    2.0
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _check_feature_dim("dropout3d", input, (4, 5))
    return _batched(input, 4, p, training, inplace)


__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d"]
