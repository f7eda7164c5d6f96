"""The fused pointwise updates optimizers use (``lerp_``, ``addcmul_``, ``addcdiv_``), written with the elementwise
ops openreg has, in the order PyTorch's kernels evaluate them so results agree to rounding.

>>> import openreg
>>> from openreg.optim._pointwise import addcdiv_, addcmul_, lerp_
>>> lerp_(openreg.zeros(2), openreg.ones(2), 0.25).tolist()
[0.25, 0.25]
>>> addcmul_(openreg.ones(1), openreg.full((1,), 2.0), openreg.full((1,), 3.0), 0.5).tolist()
[4.0]
>>> addcdiv_(openreg.ones(1), openreg.full((1,), 3.0), openreg.full((1,), 2.0), -1.0).tolist()
[-0.5]
"""
from __future__ import annotations

from ..tensor import Tensor


def lerp_(start: Tensor, end: Tensor, weight: float) -> Tensor:
    """``start += weight * (end - start)`` in place (from the end for weights of 0.5 and more, as PyTorch)."""
    if weight < 0.5:
        return start.add_((end - start).mul_(weight))
    diff = (end - start).mul_(1 - weight)
    return start.copy_(end - diff)


def addcmul_(t: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``t += value * a * b`` in place."""
    return t.add_((a * value).mul_(b) if value != 1 else a * b)


def addcdiv_(t: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``t += value * a / b`` in place."""
    return t.add_((a * value).div_(b) if value != 1 else a / b)
