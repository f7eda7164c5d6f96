"""Tensors from Python data and NumPy arrays: ``tensor``, ``as_tensor``, ``from_numpy``.

These are not aten operators (in PyTorch neither: they are written in its Python binding); the factory operators
(``zeros``, ``arange``, ...) and their ``openreg.<fn>`` functions are records in ``operators/factories.py``.

>>> import openreg
>>> openreg.tensor([[1, 2], [3, 4]]).dtype, openreg.tensor(2.5).tolist()
(openreg.int64, 2.5)
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from . import dtypes as _dt
from ._array_bridge import from_float32, wrap_array
from ._factory_args import finish as _finish
from ._quiet import quiet
from .devices import CPU, default_device_or_none
from .devices import device as Device
from .tensor import Size, Tensor


def _scalar_type_of(x):
    """PyTorch's inference for one element: Python numbers by category, NumPy values and tensors by dtype."""
    if isinstance(x, (np.ndarray, np.generic)):  # first: np.float64 is also a Python float
        return _dt.from_numpy(x.dtype)
    if isinstance(x, bool):
        return _dt.bool
    if isinstance(x, int):
        return _dt.int64
    if isinstance(x, float):
        return _dt.get_default_dtype()
    if isinstance(x, complex):
        return _dt.complex128 if _dt.get_default_dtype() is _dt.float64 else _dt.complex64
    if isinstance(x, Tensor):
        return x._dtype
    if isinstance(x, (list, tuple)):
        out = None
        for item in x:
            d = _scalar_type_of(item)
            out = d if out is None else _dt.promote_types(out, d)
        return out
    raise TypeError(f"Could not infer dtype of {type(x).__name__}")


def _infer_dtype(arr: np.ndarray, data):
    if isinstance(data, (np.ndarray, np.generic)) and (arr.dtype.kind in "biufc"
                                                        or arr.dtype in _dt.NARROW_FLOAT_NUMPY):
        return _dt.from_numpy(arr.dtype)
    if isinstance(data, (list, tuple)) and arr.size:
        inferred = _scalar_type_of(data)
        if inferred is not None:
            return inferred
    kind = arr.dtype.kind
    if kind == "b":
        return _dt.bool
    if kind in "iu":
        if isinstance(data, np.ndarray):
            return _dt.from_numpy(arr.dtype)
        return _dt.int64
    if kind == "f":
        if isinstance(data, np.ndarray):
            return _dt.from_numpy(arr.dtype)
        return _dt.get_default_dtype()
    if kind == "c":
        if isinstance(data, np.ndarray):
            return _dt.from_numpy(arr.dtype)
        return _dt.complex128 if _dt.get_default_dtype() is _dt.float64 else _dt.complex64
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _to_nested(data):
    """Replace tensors inside nested sequences by their values so NumPy can read them."""
    if isinstance(data, Tensor):
        from ._array_bridge import host_array
        return host_array(data)
    if isinstance(data, (list, tuple)) or (isinstance(data, Sequence) and not isinstance(data, (str, bytes))):
        return [_to_nested(d) for d in data]
    return data


def _check_python_values_fit(arr: np.ndarray, dtype) -> None:
    """PyTorch refuses Python numbers an integral dtype cannot hold (NaN, infinities, out of range; a negative
    int may wrap into an unsigned type when its magnitude fits)."""
    if dtype.is_floating_point or dtype.is_complex or dtype is _dt.bool or arr.size == 0 or arr.dtype.kind not in "fiu":
        return
    info = np.iinfo(dtype.numpy)
    if arr.dtype.kind == "f":
        bad = not np.isfinite(arr).all() or arr.min() < info.min or arr.max() > info.max
    else:
        lo = -int(info.max) if info.min == 0 else int(info.min)
        bad = int(arr.min()) < lo or int(arr.max()) > int(info.max)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor copying ``data`` (nested sequences of numbers, NumPy arrays, or tensors)."""
    if isinstance(data, Tensor):
        t = data.detach().clone()
        if dtype is not None or device is not None:
            t = t.to(device=device, dtype=dtype)
        return _finish(t, requires_grad)
    if isinstance(data, (str, bytes)) or data is None or isinstance(data, dict):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, np.ndarray, numbers.Number, np.generic, Sequence)):
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    arr = np.array(_to_nested(data))
    if arr.dtype == object:
        raise TypeError("Could not infer dtype of object: nested sequences must be numbers of equal length")
    inferred = _infer_dtype(arr, data)
    dtype = dtype or inferred
    if dtype.is_quantized:
        raise RuntimeError("tensor(): use quantize_per_tensor to create quantized tensors")
    if dtype.is_narrow_float:
        if arr.dtype.kind == "c":
            raise TypeError(f"can't convert complex to {dtype.name}")
        arr = from_float32(arr, dtype)
    else:
        if arr.dtype.kind == "c" and not dtype.is_complex:
            raise TypeError(f"can't convert complex to {dtype.name}")
        if not isinstance(data, np.ndarray):
            if arr.dtype == np.uint64:  # a Python int beyond int64
                raise ValueError("Overflow when unpacking long long")
            _check_python_values_fit(arr, dtype)
        with quiet():    # 1e30 as float16 is inf, silently, as in PyTorch
            arr = np.array(arr, dtype=dtype.numpy, copy=True)
    t = wrap_array(arr if arr.flags.c_contiguous else arr.copy(order="C"), dtype, CPU)
    dev = (default_device_or_none() or CPU) if device is None else Device(device)
    if dev._type != "cpu":
        t = t.to(dev)
    elif pin_memory:
        t = t.pin_memory()
    return _finish(t, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or tensor when no conversion is needed."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (device is not None or dtype is not None) else data
    if isinstance(data, np.ndarray) and dtype is None and device is None and default_device_or_none() is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr: np.ndarray) -> Tensor:
    """A CPU tensor sharing memory with ``arr`` (writes through both ways).

    >>> import numpy as np, openreg
    >>> a = np.zeros(3, dtype=np.float32)
    >>> t = openreg.from_numpy(a)
    >>> _ = t.add_(1)
    >>> a.tolist()
    [1.0, 1.0, 1.0]
    """
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    dtype = _dt.from_numpy(arr.dtype)
    item = arr.dtype.itemsize
    if any(s < 0 for s in arr.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    if any(s % item for s in arr.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                         "array to reallocate the memory.")
    from .storage import UntypedStorage
    # The storage spans exactly the bytes the array can reach, sharing its memory.
    flat = np.empty(0, dtype=np.uint8) if arr.size == 0 else np.asarray(_ByteSpan(arr))
    offset = 0
    storage = UntypedStorage._wrap(flat, flat.nbytes, CPU, resizable=False)
    t = Tensor._make(storage, Size(arr.shape), tuple(s // item for s in arr.strides), offset, dtype)
    t._arr, t._arr_src = arr, flat
    return t


class _ByteSpan:
    """The byte range an array can reach, as an array-interface object that keeps the array alive."""

    def __init__(self, arr: np.ndarray):
        self._arr = arr
        extent = sum((s - 1) * st for s, st in zip(arr.shape, arr.strides)) + arr.dtype.itemsize  # in bytes
        self.__array_interface__ = {"data": (arr.__array_interface__["data"][0], not arr.flags.writeable),
                                    "shape": (extent,), "typestr": "|u1", "version": 3}
