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

from .._dispatch.ops import ops
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
    out = ops.aten.dropout(input, float(p), bool(training))
    if inplace:
        if out is not input:
            input.copy_(out)
        return input
    return out


__all__ = ["dropout"]
