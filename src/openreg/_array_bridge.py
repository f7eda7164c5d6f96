"""Moving between arrays and tensors: wrap a kernel's result array, read a tensor as a host array.

bfloat16 has no NumPy type: its storage holds raw bits (uint16); ``to_compute``/``from_compute`` widen
to float32 and round back (round to nearest even), which is what a kernel does for it.

>>> import numpy as np, openreg
>>> t = openreg._array_bridge.wrap_array(np.arange(3.0))
>>> t.tolist(), t.dtype
([0.0, 1.0, 2.0], openreg.float64)
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .devices import CPU
from .devices import device as Device
from .storage import UntypedStorage, storage_backend


def bf16_bits_to_float32(bits) -> np.ndarray:
    xp = _xp(bits)
    return (bits.astype(xp.uint32) << 16).view(xp.float32)


def float32_to_bf16_bits(values) -> np.ndarray:
    xp = _xp(values)
    f = xp.asarray(values, dtype=xp.float32)
    u = f.view(xp.uint32)
    rounding = ((u >> 16) & 1) + xp.uint32(0x7FFF)
    out = ((u + rounding) >> 16).astype(xp.uint16)
    nan = xp.isnan(f)
    if nan.any():
        out = xp.where(nan, xp.uint16(0x7FC0), out)
    return out


_UINT16 = np.dtype(np.uint16)


def _xp(arr):
    return np if isinstance(arr, np.ndarray) or np.isscalar(arr) else __import__("cupy")


def to_compute(t) -> np.ndarray:
    """The tensor's elements as an array a kernel can compute with (bfloat16 widened to float32)."""
    arr = t._array()
    if t._dtype is _dt.bfloat16:
        return bf16_bits_to_float32(arr)
    return arr


def from_compute(arr, dtype):
    """Convert a computed array to the storage representation of ``dtype`` (uint16 arrays already hold bfloat16
    bits: openreg has no uint16 dtype, so a kernel returns one only as a finished bfloat16 result)."""
    if dtype is _dt.bfloat16:
        return arr if arr.dtype == _UINT16 else float32_to_bf16_bits(arr)
    np_dtype = dtype.numpy
    if arr.dtype != np_dtype:
        return arr.astype(np_dtype)
    return arr


_contiguous_cache: dict = {}
_Size = _Tensor = None
_new = object.__new__


def _load_tensor_types() -> None:
    """Bind Size and Tensor once (tensor.py imports this module, so not at module level)."""
    global _Size, _Tensor
    from .tensor import Size, Tensor
    _Size, _Tensor = Size, Tensor


def _tensor_types():
    if _Tensor is None:
        _load_tensor_types()
    return _Size, _Tensor


def _contiguous_strides(shape: tuple) -> tuple:
    strides = _contiguous_cache.get(shape)
    if strides is None:
        from .tensor import contiguous_strides
        strides = _contiguous_cache[shape] = contiguous_strides(shape)
        if len(_contiguous_cache) > 4096:
            _contiguous_cache.clear()
    return strides


def wrap_array(arr, dtype=None, device: Device = CPU):
    """A new tensor owning ``arr``'s elements (already in storage representation for ``dtype``).

    This runs once per operator call, so the CPU path is written out flat.
    """
    if _Tensor is None:
        _load_tensor_types()
    if dtype is None:
        dtype = _dt.from_numpy(arr.dtype)
    elif arr.dtype is not dtype.numpy and dtype is not _dt.bfloat16 and arr.dtype != dtype.numpy:
        arr = arr.astype(dtype.numpy)
    if device._type == "cpu":
        if type(arr) is not np.ndarray:
            arr = np.asarray(arr)
        if not arr.flags.c_contiguous:
            return _wrap_dense_layout(arr, dtype, device)
        shape = arr.shape
        strides = _contiguous_cache.get(shape) or _contiguous_strides(shape)
        storage = _new(UntypedStorage)
        storage._init(arr, arr.nbytes, device)
        t = _new(_Tensor)
        t._init_view(storage, _Size(shape), strides, 0, dtype)
        t._arr = t._arr_src = arr
        return t
    backend = storage_backend(device._type)
    data, arr = backend.adopt(arr, device)
    storage = UntypedStorage._wrap(data, arr.nbytes, device)
    item = dtype.itemsize
    shape = arr.shape
    # A zero-size array's strides are meaningless (NumPy/CuPy give 0 for broadcast results): contiguous ones.
    strides = tuple(s // item for s in arr.strides) if arr.size else _contiguous_strides(shape)
    t = _Tensor._make(storage, _Size(shape), strides, 0, dtype)
    if backend.array_module is np:
        t._arr, t._arr_src = arr, storage._data
    return t


def _wrap_dense_layout(arr: np.ndarray, dtype, device: Device):
    """Wrap a non-C-contiguous result, keeping its layout when it is a permutation of a dense block.

    NumPy ufuncs give a transposed input's result the same (transposed) layout; PyTorch's TensorIterator
    does the same, so the strides are kept instead of copying to row-major.
    """
    Size, Tensor = _tensor_types()
    order = sorted(range(arr.ndim), key=lambda d: (-arr.strides[d], -arr.shape[d]))
    dense = arr.transpose(order)
    if not dense.flags.c_contiguous or any(s < 0 for s in arr.strides):
        arr = np.ascontiguousarray(arr)
        dense, order = arr, list(range(arr.ndim))
    item = dtype.itemsize
    storage = UntypedStorage._wrap(dense, dense.nbytes, device)
    return Tensor._make(storage, Size(arr.shape), tuple(s // item for s in arr.strides), 0, dtype)


def host_array(t) -> np.ndarray:
    """The tensor's values as a NumPy array on the host (a copy for device tensors; bfloat16 as float32)."""
    if t._storage.device._type == "cpu":
        arr = t._array()
    elif t._storage.device._type == "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    else:
        arr = storage_backend(t._storage.device._type).to_host_array(t)
    if t._dtype is _dt.bfloat16:
        return bf16_bits_to_float32(arr)
    return arr
