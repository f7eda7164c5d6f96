"""The table of structured operators: their variant names and meta functions.

A backend supplies one compute function per entry (``backends/cpu/compute.py``); ``structured.py`` turns
meta + compute into the functional, ``out=`` and in-place kernels.

>>> from openreg.aten.structured_ops import STRUCTURED
>>> STRUCTURED["add.Tensor"].out
'add.out'
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import dtypes as _dt
from .meta_rules import Spec, broadcast_shapes, common_device, fmt_shape, result_type


@dataclass(frozen=True)
class StructuredOp:
    functional: str
    out: str | None
    inplace: str | None
    meta: Callable


STRUCTURED: dict[str, StructuredOp] = {}


def register(functional: str, out: str | None, inplace: str | None):
    def deco(meta):
        STRUCTURED[functional] = StructuredOp(functional, out, inplace, meta)
        return meta
    return deco


# -- meta helpers --------------------------------------------------------------------------------------

def unary_meta(op: str, *, int_to_float: bool = False, keep_int: bool = True, bool_ok: bool = True):
    """Meta for an elementwise unary op; ``int_to_float`` gives integers the default float result."""
    def meta(self):
        d = self._dtype
        if not bool_ok and d is _dt.bool:
            raise RuntimeError(f"{op}: not implemented for 'Bool'")
        if int_to_float and not (d.is_floating_point or d.is_complex):
            d = _dt.get_default_dtype()
        return Spec(self._size, d, self._storage.device)
    return meta


def binary_meta(op: str, *, out_dtype=None):
    """Meta for an elementwise binary op with broadcasting and type promotion."""
    def meta(self, other, *args, **kwargs):
        if hasattr(other, "_ks"):
            dev = common_device(op, self, other)
            size = broadcast_shapes(self._size, other._size, op=op)
        else:
            dev, size = self._storage.device, self._size
        dtype = result_type(self, other)
        return Spec(size, out_dtype or dtype, dev, dtype)
    return meta


# The structured ops themselves register from their concept modules: ``pointwise_ops``, ``reduction_ops``
# and ``linalg_ops`` (through ``math_ops``), and the tensor-model modules.


__all__ = ["STRUCTURED", "StructuredOp", "binary_meta", "fmt_shape", "register", "unary_meta"]
