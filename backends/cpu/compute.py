"""Array compute functions for structured operators, written against the array module of the inputs.

The CPU backend runs them on NumPy; the PrivateUse1 backend runs the same functions on its driver's array
module (NumPy for the emulated driver, CuPy for the cuda driver). Each takes the op's ``Spec`` and its
arguments and returns the result as an array (``structured.py`` writes it out).

>>> import openreg
>>> openreg.tensor([-2, 3]).abs().tolist()
[2, 3]
"""
from __future__ import annotations

from openreg._array_bridge import to_compute

COMPUTE: dict = {}


def compute(name: str):
    def deco(fn):
        COMPUTE[name] = fn
        return fn
    return deco


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


def _compute_np(d):
    return d.compute_numpy


@compute("abs")
def abs_(spec, self):
    xp = xp_of(self)
    return xp.abs(to_compute(self))


def _add(spec, self, other, alpha=1):
    xp = xp_of(self)
    a = as_compute(self, spec, xp)
    b = as_compute(other, spec, xp)
    if alpha != 1:
        b = b * xp.asarray(alpha, dtype=b.dtype)
    if spec.compute.name == "bool":
        return xp.logical_or(a, b)
    return xp.add(a, b)


COMPUTE["add.Tensor"] = _add
COMPUTE["add.Scalar"] = _add


@compute("sum.dim_IntList")
def sum_dim(spec, self, dim, keepdim=False, *, dtype=None):
    from openreg.aten.meta_rules import normalize_dims
    xp = xp_of(self)
    arr = as_compute(self, spec, xp) if dtype is not None else to_compute(self)
    return xp.sum(arr, axis=normalize_dims(dim, self.dim()), keepdims=keepdim, dtype=_compute_np(spec.dtype))


@compute("sum")
def sum_all(spec, self, *, dtype=None):
    return sum_dim(spec, self, None, False, dtype=dtype)


@compute("mm")
def mm(spec, self, mat2):
    xp = xp_of(self)
    return xp.matmul(to_compute(self), to_compute(mat2))
