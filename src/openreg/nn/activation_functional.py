"""Activation functions of ``nn.functional`` beyond ``relu``/``softmax``: ``tanh``, ``sigmoid``, ``softmin``,
``gelu``, ``silu``, ``softplus``, ``leaky_relu``, ``elu``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.tanh(openreg.zeros(2)).tolist(), F.sigmoid(openreg.zeros(1)).tolist()
([0.0, 0.0], [0.5])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor
from .functional_core import softmax

__all__ = ["elu", "gelu", "leaky_relu", "sigmoid", "silu", "softmin", "softplus", "tanh"]


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


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit ``x * Phi(x)`` (``approximate="tanh"``: the tanh approximation).

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.gelu(openreg.tensor([-1.0, 1.0])).tolist()]
    [-0.1587, 0.8413]
    """
    return A.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)``.

    >>> import openreg
    >>> round(openreg.nn.functional.silu(openreg.tensor([1.0])).item(), 4)
    0.7311
    """
    return A.silu_(input) if inplace else A.silu(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, the identity where ``beta * x > threshold``.

    >>> import openreg
    >>> round(openreg.nn.functional.softplus(openreg.tensor([0.0])).item(), 4)
    0.6931
    """
    return A.softplus(input, beta, threshold)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    >>> import openreg
    >>> openreg.nn.functional.leaky_relu(openreg.tensor([-2.0, 3.0]), 0.5).tolist()
    [-1.0, 3.0]
    """
    return A.leaky_relu_(input, negative_slope) if inplace else A.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.elu(openreg.tensor([-1.0, 2.0])).tolist()]
    [-0.6321, 2.0]
    """
    return A.elu_(input, alpha) if inplace else A.elu(input, alpha)
