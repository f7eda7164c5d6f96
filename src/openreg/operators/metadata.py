"""In-place metadata operators: ``resize_``, ``resize_as_`` and the five ``set_`` overloads.

They change a tensor's sizes, strides, offset or storage without touching element values (``resize_``
grows the storage when it must, never shrinks it). Storage handling is device-agnostic, so one
CompositeExplicitAutograd kernel serves every backend. Their Tensor methods (``resize_(*size)``,
``set_(source=None, ...)``) are written here.

>>> import openreg
>>> t = openreg.zeros(2, 2)
>>> nbytes = t.untyped_storage().nbytes()
>>> _ = t.resize_(1)
>>> t.shape, t.untyped_storage().nbytes() == nbytes
(openreg.Size([1]), True)
>>> s = openreg.UntypedStorage(24)
>>> openreg.empty(0).set_(s, 1, (2,), (2,)).stride()
(2,)
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import fmt_shape
from ..aten.views import check_size_nonnegative
from ..memory_format import normalize, preserve_format, strides_for
from ..storage import UntypedStorage
from ..storage_bounds import check_numel, storage_nbytes
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._method_args import method_as_function, size_args
from ._record import Forbid, Op, register


def _grow_storage(storage: UntypedStorage, size, stride, offset: int, itemsize: int) -> None:
    needed = storage_nbytes(size, stride, itemsize, offset)
    if needed > storage.nbytes():
        storage.resize_(needed)


def resize_(self: Tensor, size, *, memory_format=None) -> Tensor:
    check_size_nonnegative(size)
    if tuple(size) == tuple(self._size) and memory_format is None:
        return self
    fmt = normalize(memory_format)
    if fmt is preserve_format:
        if memory_format is not None:
            raise RuntimeError("Unsupported memory format preserve_format")
        from ..tensor import contiguous_strides
        stride = contiguous_strides(size)
    else:
        stride = strides_for(size, fmt)
    _grow_storage(self._storage, size, stride, self._offset, self._dtype.itemsize)
    self._set_meta(size, stride, self._offset)
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    return resize_(self, tuple(the_template._size), memory_format=memory_format)


def _check_storage(self: Tensor, source) -> UntypedStorage:
    if not isinstance(source, UntypedStorage):
        raise TypeError(f"set_(): argument 'source' must be Storage, not {type(source).__name__}")
    if source.device != self.device:
        raise RuntimeError(f"Attempted to set the storage of a tensor on device \"{self.device}\" to a storage on "
                           f"different device \"{source.device}\".  This is no longer allowed; the devices must "
                           f"match.")
    return source


def _install(self: Tensor, storage: UntypedStorage, offset: int, size, stride) -> Tensor:
    self._storage = storage
    self._set_meta(size, stride, offset)
    return self


def set_storage_offset(self: Tensor, source, storage_offset: int, size, stride=()) -> Tensor:
    storage = _check_storage(self, source)
    check_size_nonnegative(size)
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    if stride:
        if len(stride) != len(size):
            raise RuntimeError(f"mismatch in length of strides and shape: sizes {fmt_shape(size)}, strides "
                               f"{fmt_shape(stride)}")
    else:
        from ..tensor import contiguous_strides
        stride = contiguous_strides(size)
    storage_nbytes(size, stride, self._dtype.itemsize, storage_offset)  # PyTorch's order: overflow, then numel
    check_numel(size)
    _grow_storage(storage, size, stride, storage_offset, self._dtype.itemsize)
    return _install(self, storage, storage_offset, size, stride)


def set_storage(self: Tensor, source) -> Tensor:
    storage = _check_storage(self, source)
    n = storage.nbytes() // self._dtype.itemsize
    return _install(self, storage, 0, (n,), (1,))


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def cpp_type_name(d) -> str:
    """The C++ type name PyTorch prints for a dtype in some messages (``float``, ``long int`` ...)."""
    return _CPP_NAMES.get(d.name, d.name)


def _check_same_dtype(self: Tensor, source: Tensor) -> None:
    if source._dtype is not self._dtype:
        a, b = (cpp_type_name(d) for d in (source._dtype, self._dtype))
        raise RuntimeError(f"Could not set tensor of type {a} to a tensor of type {b}")


def set_tensor(self: Tensor, source: Tensor) -> Tensor:
    _check_same_dtype(self, source)
    if source.device != self.device:
        raise RuntimeError(f"Attempted to set the storage of a tensor on device \"{self.device}\" to a storage on "
                           f"different device \"{source.device}\".  This is no longer allowed; the devices must "
                           f"match.")
    return _install(self, source._storage, source._offset, tuple(source._size), tuple(source._stride))


def set_tensor_storage_offset(self: Tensor, source: Tensor, storage_offset: int, size, stride=()) -> Tensor:
    _check_same_dtype(self, source)
    return set_storage_offset(self, source._storage, storage_offset, size, stride)


def set_empty(self: Tensor) -> Tensor:
    return _install(self, UntypedStorage(0, device=self.device), 0, (0,), (1,))


# -- the records ------------------------------------------------------------------------------------------
# -- Tensor methods (varargs sizes; ``set_`` picks its overload by its arguments) ------------------------------
def _resize_method(self, *size, memory_format=None):
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    return A.resize_(self, size_args(size), memory_format=memory_format)


def _resize_as_method(self, the_template, memory_format=None):
    return A.resize_as_(self, the_template, memory_format=memory_format)


def _set_method(self, source=None, storage_offset=None, size=None, stride=None):
    """``set_()``, ``set_(tensor)``, ``set_(storage)``, ``set_(storage, offset, size, stride=())``."""
    if source is None:
        return A.set_(self)
    if isinstance(source, Tensor):
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


def _metadata_op(name: str, schemas: str, kernels: dict, refusal: str, method, function=False) -> Op:
    """One CompositeExplicitAutograd kernel per overload; each refuses inputs that require grad (``refusal``)."""
    return Op(name, schemas, kernels={o: {"CompositeExplicitAutograd": fn} for o, fn in kernels.items()},
              derivatives={o: Forbid(refusal) for o in kernels}, function=function, method=method)


_NO_RESIZE = "cannot resize variables that require grad"
_NO_SET = "set_storage is not allowed on a Tensor created from .data or .detach()."

resize_op = _metadata_op(
    "resize_", "resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)  [core, inplace_view]",
    {"resize_": resize_}, _NO_RESIZE, _resize_method)
resize_as_op = _metadata_op(
    "resize_as_",
    "resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor(a!)  [inplace_view]",
    {"resize_as_": resize_as_}, _NO_RESIZE, _resize_as_method,
    method_as_function("resize_as_", "openreg.zeros(2), openreg.zeros(3)", [3]))
set_op = _metadata_op("set_", """
    set_.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)  [inplace_view]
    set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt storage_offset, SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)  [inplace_view]
    set_.source_Tensor(Tensor(a!) self, Tensor source) -> Tensor(a!)  [inplace_view]
    set_.source_Tensor_storage_offset(Tensor(a!) self, Tensor source, SymInt storage_offset, SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)  [inplace_view]
    set_(Tensor(a!) self) -> Tensor(a!)  [inplace_view]
    """, {"set_.source_Storage": set_storage, "set_.source_Storage_storage_offset": set_storage_offset,
          "set_.source_Tensor": set_tensor, "set_.source_Tensor_storage_offset": set_tensor_storage_offset,
          "set_": set_empty}, _NO_SET, _set_method)

register(resize_op, resize_as_op, set_op)

__all__ = ["cpp_type_name"]
