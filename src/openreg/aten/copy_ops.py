"""Copies: ``clone``, ``_to_copy`` (behind ``Tensor.to``), ``contiguous`` and the tensor overload of ``fill_``.

All allocate through ``empty_strided``/``empty`` on the target device and move the data with ``copy_``, so
the backends only need ``copy_`` (and ``fill_.Scalar``) kernels.

>>> import openreg
>>> x = openreg.arange(6.0).view(2, 3).t()
>>> y = x.contiguous()
>>> y.stride(), y.tolist() == x.tolist(), x.clone().stride()
((2, 1), True, (1, 3))
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.keys import AFTER_ADINPLACE_MASK
from .._dispatch.ops import A
from .._dispatch.tags import Tag
from ..memory_format import contiguous_format, normalize, preserve_format, preserved_strides, strides_for
from ..tensor import Tensor
from .factories import empty_strided, resolve_device
from .meta_rules import broadcast_shapes, fmt_shape
from .views import below_inplace_or_view, fresh

C, P = Tag.core, Tag.pointwise

SCHEMAS = [
    ("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", (C, P)),
    (("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor"), (C,)),
    ("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)", ()),
    ("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", ()),
    ("fill.Scalar(Tensor self, Scalar value) -> Tensor", (C,)),
    ("fill.Tensor(Tensor self, Tensor value) -> Tensor", ()),
]


def has_internal_overlap(t: Tensor) -> bool:
    """PyTorch's cheap internal-overlap test: some dimension of size > 1 has stride 0 (never for no elements)."""
    if 0 not in t._stride:
        return False
    return any(st == 0 and sz > 1 for sz, st in zip(t._size, t._stride)) and 0 not in t._size


def check_copy(self: Tensor, src: Tensor) -> None:
    """``copy_``'s argument checks shared by every backend (raise before anything is written)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    if src._size != self._size:
        shape = broadcast_shapes(self._size, src._size)  # PyTorch's "The size of tensor a (3) must match ..."
    else:
        shape = tuple(self._size)
    if shape != tuple(self._size):
        raise RuntimeError(f"output with shape {fmt_shape(self._size)} doesn't match the broadcast shape "
                           f"{fmt_shape(shape)}")
    if has_internal_overlap(self):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    if src._dtype.is_complex and not self._dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)


def meta_copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    check_copy(self, src)
    if not self.is_meta:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return self


def _layout_for(self: Tensor, memory_format) -> tuple:
    fmt = normalize(memory_format)
    if fmt is preserve_format:
        return preserved_strides(self)
    return strides_for(self._size, fmt)


def clone(self: Tensor, *, memory_format=None) -> Tensor:
    out = empty_strided(self._size, _layout_for(self, memory_format), dtype=self._dtype,
                                         device=self.device)
    A.copy_(out, self)
    _keep_backend_meta(self, out)
    return fresh(out)


def _keep_backend_meta(src: Tensor, out: Tensor) -> None:
    """Copies keep the backend metadata and, for an unchanged quantized dtype, the quantization parameters."""
    if src._qparams is not None and out._dtype is src._dtype:
        out._qparams = src._qparams
    if src._backend_meta is not None:
        from ..utils.backend_meta import copy_backend_meta
        copy_backend_meta(src, out)


def to_copy(self: Tensor, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking: bool = False,
            memory_format=None) -> Tensor:
    dev = self.device if device is None else resolve_device(device)
    out = empty_strided(self._size, _layout_for(self, memory_format),
                                         dtype=dtype or self._dtype, device=dev)
    if pin_memory:
        out = out.pin_memory()
    # straight to the backends' copy_ kernel: ``out`` is new (no history, version 0 either way)
    A.copy_.redispatch_fn((out._ks | self._ks) & AFTER_ADINPLACE_MASK, out, self, non_blocking)
    _keep_backend_meta(self, out)
    return fresh(out)


def contiguous(self: Tensor, *, memory_format=contiguous_format) -> Tensor:
    fmt = normalize(memory_format)
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if tuple(self._stride) == strides_for(self._size, fmt) or self.is_contiguous() and fmt is contiguous_format:
        return self
    return A.clone(self, memory_format=fmt)


def fill_tensor_(self: Tensor, value: Tensor) -> Tensor:
    if value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           f"dimensions.")
    if value.is_meta or self.is_meta:
        return self
    with below_inplace_or_view():
        return A.fill___Scalar(self, value.item())


def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    out = empty_strided(self._size, preserved_strides(self), dtype=self._dtype, device=self.device)
    return fresh(A.fill___Tensor(out, value))


def fill(self: Tensor, value) -> Tensor:
    out = empty_strided(self._size, preserved_strides(self), dtype=self._dtype,
                                         device=self.device)
    return fresh(A.fill___Scalar(out, value))


EXPLICIT = {"clone": clone, "_to_copy": to_copy, "fill_.Tensor": fill_tensor_, "fill.Scalar": fill,
            "fill.Tensor": fill_tensor}
IMPLICIT = {"contiguous": contiguous}
META = {"copy_": meta_copy_}

__all__ = ["EXPLICIT", "IMPLICIT", "META", "SCHEMAS", "_dt"]
