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


# The math ops' compute functions live in ``compute_math.py`` (imported by ``backends/cpu/__init__.py``,
# which adds them to ``COMPUTE``).
