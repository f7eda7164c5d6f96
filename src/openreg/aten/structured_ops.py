"""The table of structured operators: their variant names and meta functions.

A backend supplies one compute function per entry (``backends/cpu/compute.py``); ``structured.py`` turns
meta + compute into the functional, ``out=`` and in-place kernels.

>>> from openreg.aten.structured_ops import STRUCTURED
>>> STRUCTURED["add.Tensor"].out
'add.out'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

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


@register("abs", "abs.out", "abs_")
def abs_meta(self):
    if self._dtype is _dt.bool:
        raise RuntimeError("abs: \"abs_cpu\" not implemented for 'Bool'")
    return Spec(self._size, self._dtype.to_real() if self._dtype.is_complex else self._dtype,
                self._storage.device)


_add_broadcast_meta = binary_meta("add")


def _add_meta(self, other, alpha=1):
    spec = _add_broadcast_meta(self, other)
    if alpha.__class__ is not int or alpha != 1:
        if isinstance(alpha, float) and not (spec.dtype.is_floating_point or spec.dtype.is_complex):
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
        if spec.dtype is _dt.bool and not isinstance(alpha, bool) and alpha not in (0, 1):
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    return spec


register("add.Tensor", "add.out", "add_.Tensor")(_add_meta)
register("add.Scalar", None, "add_.Scalar")(_add_meta)


@register("sum.dim_IntList", None, None)
def sum_meta(self, dim, keepdim=False, *, dtype=None):
    from .meta_rules import reduce_shape
    out_dtype = dtype or (_dt.int64 if self._dtype.category <= _dt.INTEGRAL else self._dtype)
    return Spec(reduce_shape(self._size, dim, keepdim), out_dtype, self._storage.device)


@register("sum", None, None)
def sum_all_meta(self, *, dtype=None):
    return sum_meta(self, None, False, dtype=dtype)


@register("mm", "mm.out", None)
def mm_meta(self, mat2):
    dev = common_device("mm", self, mat2)
    if self.dim() != 2:
        raise RuntimeError(f"self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix")
    if self._size[1] != mat2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({self._size[0]}x{self._size[1]} and "
                           f"{mat2._size[0]}x{mat2._size[1]})")
    if self._dtype is not mat2._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {self._dtype.name} != "
                           f"{mat2._dtype.name}")
    return Spec((self._size[0], mat2._size[1]), self._dtype, dev)


__all__ = ["STRUCTURED", "StructuredOp", "register", "unary_meta", "binary_meta", "fmt_shape"]
