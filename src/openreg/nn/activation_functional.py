"""Activation functions of ``nn.functional`` beyond ``relu``/``softmax``: ``tanh``, ``sigmoid``, ``softmin``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.tanh(openreg.zeros(2)).tolist(), F.sigmoid(openreg.zeros(1)).tolist()
([0.0, 0.0], [0.5])
"""
from __future__ import annotations

from ..tensor import Tensor
from .functional_core import softmax

__all__ = ["sigmoid", "softmin", "tanh"]


def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic function ``1 / (1 + exp(-x))``."""
    return input.sigmoid()


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-input)`` along ``dim``.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.softmin(openreg.tensor([0.0, 1.0]), dim=0).tolist()]
    [0.7311, 0.2689]
    """
    return softmax(-input, dim, _stacklevel, dtype)
