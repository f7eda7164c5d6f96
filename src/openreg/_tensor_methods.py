"""Tensor methods and Python operators, each a thin call of an ``openreg.ops`` overload.

Installed on ``Tensor`` at import (after the operators are defined). Overloads are looked up once here so
that a method call costs one Python call plus the dispatch.

>>> import openreg
>>> (openreg.tensor([1.0, -2.0]) + 1).abs().tolist()
[2.0, 1.0]
"""
from __future__ import annotations

from . import dtypes as _dt
from ._dispatch.ops import ops
from .devices import device as Device
from .tensor import Tensor

aten = ops.aten
_abs, _abs_ = aten.abs.default, aten.abs_.default
_add_t, _add_s, _add_t_, _add_s_ = aten.add.Tensor, aten.add.Scalar, aten.add_.Tensor, aten.add_.Scalar
_view, _as_strided = aten.view.default, aten.as_strided.default
_copy_, _fill_, _zero_ = aten.copy_.default, aten.fill_.Scalar, aten.zero_.default
_sum, _sum_dim = aten.sum.default, aten.sum.dim_IntList
_mm = aten.mm.default
_empty_strided = aten.empty_strided.default


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _size_args(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


def abs(self):
    return _abs(self)


def abs_(self):
    return _abs_(self)


def add(self, other, *, alpha=1):
    return _add_t(self, other, alpha=alpha) if _is_tensor(other) else _add_s(self, other, alpha)


def add_(self, other, *, alpha=1):
    return _add_t_(self, other, alpha=alpha) if _is_tensor(other) else _add_s_(self, other, alpha)


def __radd__(self, other):
    return _add_s(self, other, 1)


def view(self, *size):
    if len(size) == 1 and isinstance(size[0], _dt.dtype):
        raise NotImplementedError("view(dtype) is not supported yet")
    return _view(self, _size_args(size))


def as_strided(self, size, stride, storage_offset=None):
    return _as_strided(self, size, stride, storage_offset)


def copy_(self, src, non_blocking=False):
    return _copy_(self, src, non_blocking)


def fill_(self, value):
    if _is_tensor(value):
        value = value.item()
    return _fill_(self, value)


def zero_(self):
    return _zero_(self)


def sum(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return _sum(self, dtype=dtype) if not keepdim else _sum_dim(self, None, True, dtype=dtype)
    return _sum_dim(self, dim, keepdim, dtype=dtype)


def mm(self, mat2):
    return _mm(self, mat2)


def _parse_to(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    for a in args:
        if isinstance(a, _dt.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, Device, int)) and not isinstance(a, bool):
            device = Device(a)
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    return (None if device is None else Device(device)), dtype


def to(self, *args, non_blocking=False, copy=False, memory_format=None, **kwargs):
    """Convert device and/or dtype; returns ``self`` when nothing changes and ``copy`` is False."""
    device, dtype = _parse_to(args, dict(kwargs))
    if device is not None and device._type == "privateuseone" and device.index is None:
        from .privateuse1_hooks import current_device_index
        device = Device("privateuseone", current_device_index())
    same_dev = device is None or device == self.device
    same_dtype = dtype is None or dtype is self._dtype
    if same_dev and same_dtype and not copy:
        return self
    return _to_copy(self, dtype or self._dtype, device or self.device, non_blocking)


def _to_copy(self, dtype, device, non_blocking=False):
    from .tensor import contiguous_strides
    stride = self._stride if self.is_contiguous() else contiguous_strides(self._size)
    out = _empty_strided(tuple(self._size), stride, dtype=dtype, device=device)
    _copy_(out, self, non_blocking)
    if self._backend_meta is not None:
        from .utils.backend_meta import copy_backend_meta
        copy_backend_meta(self, out)
    if self._qparams is not None and dtype is self._dtype:
        out._qparams = self._qparams
    return out


def cpu(self):
    return to(self, "cpu")


def clone(self, *, memory_format=None):
    return _to_copy(self, self._dtype, self.device)


def contiguous(self, memory_format=None):
    return self if self.is_contiguous() else clone(self)


def detach(self):
    from .aten.views import make_view
    out = make_view(self, self._size, self._stride, self._offset)
    out._base = None
    out._requires_grad = False
    if self._backend_meta is not None:
        out._backend_meta = self._backend_meta   # shared, as PyTorch's shallow_copy_and_detach
    return out


_METHODS = {
    "abs": abs, "abs_": abs_, "add": add, "add_": add_, "__add__": add, "__radd__": __radd__,
    "__iadd__": add_, "view": view, "as_strided": as_strided, "copy_": copy_, "fill_": fill_, "zero_": zero_,
    "sum": sum, "mm": mm, "to": to, "cpu": cpu, "clone": clone, "contiguous": contiguous, "detach": detach,
}


def install(methods: dict | None = None) -> None:
    """Attach methods to Tensor (also used by later modules that add more)."""
    for name, fn in (methods or _METHODS).items():
        setattr(Tensor, name, fn)


install()
