"""Helpers for derivative formulas, written with tensor ops so that formulas are differentiable again.

>>> import openreg
>>> sign(openreg.tensor([-2.0, 0.0, 3.0])).tolist()
[-1.0, 0.0, 1.0]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import TensorBase


def mask(cond, like):
    """A boolean tensor as ``like``'s dtype (1 where true)."""
    return cond.to(like.dtype)


def sign(x):
    return mask(x > 0, x) - mask(x < 0, x)


def conj(x):
    """The complex conjugate in gradient formulas (PyTorch's ``grad * other.conj()``); real values as they are."""
    if isinstance(x, complex):
        return x.conjugate()
    return A.conj_physical(x) if isinstance(x, TensorBase) and x._dtype.is_complex else x


def holomorphic(formula):
    """The VJP of an analytic elementwise function, written as ``g * f'(z)``, in PyTorch's convention for complex
    values: ``g * conj(f'(z))``, computed as ``conj(formula(conj(g)))``; real gradients pass unchanged."""
    def vjp(g, a):
        if g._dtype.is_complex:
            return A.conj_physical(formula(A.conj_physical(g), a))
        return formula(g, a)
    return vjp


def scalar(x):
    """A Python number from a number or a one-element tensor."""
    return x.item() if isinstance(x, TensorBase) else x


def zeros(size, like):
    """Zeros of ``size`` with ``like``'s dtype and device (through the ops, so it is recorded)."""
    from ..tensor import contiguous_strides
    out = A.empty_strided(tuple(size), contiguous_strides(tuple(size)), dtype=like.dtype, device=like.device)
    return A.zero_(out)


__all__ = ["mask", "scalar", "sign", "zeros"]
