"""Tensor methods of the tensor model: views, indexing, metadata mutation, copies, conversions, ``new_*``.

Each is a thin call of an ``openreg.ops.aten`` overload (``ops.A``, looked up on first use); they reach ``Tensor``
as its base class ``ViewMethods``.

>>> import openreg
>>> x = openreg.arange(6.0)
>>> y = x.view(2, 3).t()
>>> y.shape, y.is_contiguous(), y.contiguous().is_contiguous(), y.to(openreg.int64).dtype
(openreg.Size([3, 2]), False, True, openreg.int64)
"""
from __future__ import annotations

import numbers

from . import _indexing
from . import dtypes as _dt
from ._dispatch.ops import A
from ._tensor_methods import mixin
from .devices import device as Device
from .memory_format import normalize, preserve_format, strides_for
from .tensor import Size, TensorBase


def _size_args(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


# -- views ------------------------------------------------------------------------------------------------
def view(self, *size, dtype=None):
    """A view with a new shape (one ``-1`` is inferred), or ``view(dtype)`` reinterpreting the bytes."""
    if dtype is not None:
        if size:
            raise TypeError("view() received an invalid combination of arguments - got both a size and a dtype")
        return A.view__dtype(self, dtype)
    if len(size) == 1:
        s = size[0]
        if isinstance(s, _dt.dtype):
            return A.view__dtype(self, s)
        if isinstance(s, (tuple, list)):
            size = s
    return A.view(self, size)


def view_as(self, other):
    return A.view_as(self, other)


def reshape(self, *shape):
    return A.reshape(self, _size_args(shape))


def reshape_as(self, other):
    if not isinstance(other, TensorBase):
        raise TypeError(f"reshape_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return A.reshape(self, other._size)


def as_strided(self, size, stride, storage_offset=None):
    return A.as_strided(self, size, stride, storage_offset)


def as_strided_(self, size, stride, storage_offset=None):
    return A.as_strided_(self, size, stride, storage_offset)


def t(self):
    return A.t(self)


def _T(self):
    from .operators.views import T_warn
    T_warn(self)
    n = self.dim()
    return A.permute(self, tuple(range(n - 1, -1, -1)))


def _mT(self):
    from .operators.views import mT_check
    mT_check(self)
    return A.transpose__int(self, -2, -1)


def transpose(self, dim0, dim1):
    return A.transpose__int(self, dim0, dim1)


def permute(self, *dims):
    return A.permute(self, _size_args(dims))


def expand(self, *size):
    return A.expand(self, _size_args(size))


def expand_as(self, other):
    return A.expand_as(self, other)


def squeeze(self, dim=None):
    if dim is None:
        return A.squeeze(self)
    if isinstance(dim, (tuple, list)):
        return A.squeeze__dims(self, dim)
    return A.squeeze__dim(self, dim)


def unsqueeze(self, dim):
    return A.unsqueeze(self, dim)


def t_(self):
    return A.t_(self)


def transpose_(self, dim0, dim1):
    return A.transpose_(self, dim0, dim1)


def squeeze_(self, dim=None):
    if dim is None:
        return A.squeeze_(self)
    if isinstance(dim, (tuple, list)):
        return A.squeeze___dims(self, dim)
    return A.squeeze___dim(self, dim)


def unsqueeze_(self, dim):
    return A.unsqueeze_(self, dim)


def flatten(self, start_dim=0, end_dim=-1):
    return A.flatten__using_ints(self, start_dim, end_dim)


def unflatten(self, dim, sizes):
    return A.unflatten__int(self, dim, sizes)


def narrow(self, dim, start, length):
    return A.narrow(self, dim, start, length)


def select(self, dim, index):
    return A.select__int(self, dim, index)


def diagonal(self, offset=0, dim1=0, dim2=1):
    return A.diagonal(self, offset, dim1, dim2)


def movedim(self, source, destination):
    if isinstance(source, (tuple, list)) or isinstance(destination, (tuple, list)):
        src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
        dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
        return A.movedim__intlist(self, src, dst)
    return A.movedim__int(self, source, destination)


def unbind(self, dim=0):
    return tuple(A.unbind__int(self, dim))


def split(self, split_size, dim=0):
    if isinstance(split_size, (tuple, list)):
        return tuple(A.split_with_sizes(self, split_size, dim))
    return tuple(A.split__Tensor(self, split_size, dim))


def split_with_sizes(self, split_sizes, dim=0):
    return tuple(A.split_with_sizes(self, split_sizes, dim))


def chunk(self, chunks, dim=0):
    return tuple(A.chunk(self, chunks, dim))


def detach(self):
    return A.detach(self)


def is_contiguous(self, memory_format=None) -> bool:
    fmt = normalize(memory_format)
    if fmt is preserve_format or fmt.name == "contiguous_format":
        return TensorBase.is_contiguous(self)
    if len(self._size) != (4 if fmt.name == "channels_last" else 5):
        return False
    want = strides_for(self._size, fmt)
    return all(sz == 1 or st == w for sz, st, w in zip(self._size, self._stride, want))


# -- metadata mutation --------------------------------------------------------------------------------------
def resize_(self, *size, memory_format=None):
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    return A.resize_(self, _size_args(size), memory_format=memory_format)


def resize_as_(self, the_template, memory_format=None):
    return A.resize_as_(self, the_template, memory_format=memory_format)


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """``set_()``, ``set_(tensor)``, ``set_(storage)``, ``set_(storage, offset, size, stride=())``."""
    if source is None:
        return A.set_(self)
    if isinstance(source, TensorBase):
        if storage_offset is None and size is None:
            return A.set___source_Tensor(self, source)
        return A.set___source_Tensor_storage_offset(self, source, storage_offset, size,
                                                      () if stride is None else stride)
    if storage_offset is None and size is None:
        return A.set___source_Storage(self, source)
    if storage_offset is None or size is None:
        raise TypeError("set_() received an invalid combination of arguments - expected (Storage source, int "
                        "storage_offset, tuple of ints size, tuple of ints stride = ())")
    return A.set___source_Storage_storage_offset(self, source, storage_offset, size, () if stride is None else stride)


# -- copies ---------------------------------------------------------------------------------------------------
def copy_(self, src, non_blocking=False):
    return A.copy_(self, src, non_blocking)


def fill_(self, value):
    if isinstance(value, TensorBase):
        return A.fill___Tensor(self, value)
    return A.fill___Scalar(self, value)


def zero_(self):
    return A.zero_(self)


def clone(self, *, memory_format=None):
    return A.clone(self, memory_format=memory_format)


def contiguous(self, memory_format=None):
    if memory_format is None:
        if TensorBase.is_contiguous(self):
            return self
        return A.clone(self, memory_format="contiguous_format")
    return A.contiguous(self, memory_format=memory_format)


def _parse_to(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _dt.dtype):
            dtype = a
        elif isinstance(a, TensorBase):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, Device, int)) and not isinstance(a, bool):
            device = Device(a)
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if device is not None:
        from .aten.factories import resolve_device
        device = resolve_device(device)
    return device, dtype


def to(self, *args, non_blocking=False, copy=False, memory_format=None, **kwargs):
    """Convert device and/or dtype; returns ``self`` when nothing changes and ``copy`` is False."""
    device, dtype = _parse_to(args, dict(kwargs))
    same = (device is None or device == self.device) and (dtype is None or dtype is self._dtype)
    if same and not copy and memory_format is None:
        return self
    return A._to_copy(self, dtype=dtype, device=device, non_blocking=non_blocking, memory_format=memory_format)


def cpu(self, memory_format=None):
    return to(self, "cpu", memory_format=memory_format)


def _converter(dtype):
    def convert(self, memory_format=None):
        return to(self, dtype, memory_format=memory_format)
    convert.__name__ = dtype.name
    return convert


# -- new_* ----------------------------------------------------------------------------------------------------
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _finish(A.new_empty(self, _size_args(size), dtype=dtype, device=device), requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    return _finish(A.new_empty_strided(self, size, stride, dtype=dtype, device=device), requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _finish(A.new_zeros(self, _size_args(size), dtype=dtype, device=device), requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _finish(A.new_ones(self, _size_args(size), dtype=dtype, device=device), requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    return _finish(A.new_full(self, size, fill_value, dtype=dtype, device=device), requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    from .factories import tensor
    if isinstance(data, TensorBase):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                      "or sourceTensor.clone().detach().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    return tensor(data, dtype=dtype or self._dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


def _finish(t, requires_grad):
    return t.requires_grad_(True) if requires_grad else t


def __getitem__(self, index):
    return _indexing.getitem(self, index)


def __setitem__(self, index, value):
    _indexing.setitem(self, index, value)


_METHODS = {
    "view": view, "view_as": view_as, "reshape": reshape, "reshape_as": reshape_as, "as_strided": as_strided,
    "as_strided_": as_strided_, "t": t, "T": property(_T), "mT": property(_mT), "transpose": transpose,
    "swapaxes": transpose, "swapdims": transpose, "permute": permute, "expand": expand, "expand_as": expand_as,
    "squeeze": squeeze, "unsqueeze": unsqueeze, "t_": t_, "transpose_": transpose_, "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_, "flatten": flatten, "unflatten": unflatten, "narrow": narrow,
    "select": select, "diagonal": diagonal, "movedim": movedim, "moveaxis": movedim, "unbind": unbind,
    "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk, "detach": detach,
    "is_contiguous": is_contiguous, "resize_": resize_, "resize_as_": resize_as_, "set_": set_,
    "copy_": copy_, "fill_": fill_, "zero_": zero_, "clone": clone, "contiguous": contiguous, "to": to,
    "cpu": cpu, "new_empty": new_empty, "new_empty_strided": new_empty_strided, "new_zeros": new_zeros,
    "new_ones": new_ones, "new_full": new_full, "new_tensor": new_tensor,
    "__getitem__": __getitem__, "__setitem__": __setitem__,
}
for _name, _dtype in (("float", _dt.float32), ("double", _dt.float64), ("half", _dt.float16),
                      ("bfloat16", _dt.bfloat16), ("long", _dt.int64), ("int", _dt.int32), ("short", _dt.int16),
                      ("char", _dt.int8), ("byte", _dt.uint8), ("bool", _dt.bool), ("cfloat", _dt.complex64),
                      ("cdouble", _dt.complex128)):
    _METHODS[_name] = _converter(_dtype)

ViewMethods = mixin("ViewMethods", _METHODS)

__all__ = ["Size", "ViewMethods", "numbers"]
