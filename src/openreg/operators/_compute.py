"""Helpers for compute functions written against the array module ``xp`` (NumPy on the CPU and the emulated
device, CuPy on the cuda driver): a tensor's array module, operands in the spec's compute dtype.

Operands are converted to the spec's compute dtype first, so NumPy's own promotion never decides a result
dtype; half-precision inputs of transcendental functions are computed in float32 and rounded once, as in
PyTorch.

>>> import openreg
>>> from openreg.aten.meta_rules import Spec
>>> x = openreg.tensor([1, 2])
>>> operand(x, Spec((2,), openreg.float64, x.device), xp_of(x)).dtype
dtype('float64')
"""
from __future__ import annotations

import numpy as np

from .._array_bridge import to_compute
from .._dispatch.keys import BACKEND_MASK
from .._quiet import quiet
from ..tensor import TensorBase

_F16 = np.dtype(np.float16)


def xp_of(t):
    """The array module (numpy or cupy) of a tensor's storage."""
    return t._storage._backend.array_module


def as_compute(x, spec, xp):
    """An operand (tensor or Python scalar) as an array of the spec's compute dtype."""
    target = spec.compute
    if hasattr(x, "_ks"):
        if x._dtype is target and target.compute_numpy is target.numpy:
            return x._array()
        arr = to_compute(x)
        np_dtype = target.compute_numpy
        return arr if arr.dtype == np_dtype else arr.astype(np_dtype)
    return xp.asarray(x, dtype=target.compute_numpy)


def operand(x, spec, xp):
    """``x`` (tensor or scalar) in the compute dtype; a zero-dim CPU tensor joins a device computation."""
    if xp is not np and isinstance(x, TensorBase) and x._storage.device._type == "cpu":
        x = x.item()
    try:
        return as_compute(x, spec, xp)
    except OverflowError:  # an int scalar outside the integer dtype's range wraps around, as a C cast does
        return xp.asarray(np.asarray(x, dtype=np.int64).astype(spec.compute.numpy))


def pair(spec, a, b):
    """The array module and both operands in the compute dtype (fast when no conversion is needed)."""
    if isinstance(a, TensorBase) and isinstance(b, TensorBase) and not (a._ks ^ b._ks) & BACKEND_MASK:
        d = spec.compute_dtype or spec.dtype
        if a._dtype is d and b._dtype is d and not d.is_narrow_float:
            return a._storage._backend.array_module, a._array(), b._array()
    xp = xp_of(a) if isinstance(a, TensorBase) else xp_of(b)
    return xp, operand(a, spec, xp), operand(b, spec, xp)


def upcast(arr, xp):
    """float16 computed in float32 (PyTorch's opmath type)."""
    return arr.astype(xp.float32) if arr.dtype == _F16 else arr


__all__ = ["as_compute", "operand", "pair", "quiet", "upcast", "xp_of"]
