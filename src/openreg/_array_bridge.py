"""Moving between arrays and tensors: wrap a kernel's result array, read a tensor as a host array.

bfloat16 and float8 (the "narrow floats") compute in float32: ``to_compute``/``from_compute`` widen and round
back (round to nearest even). On the CPU and the emulated device their storage holds ml_dtypes arrays, which
convert themselves; the cuda driver keeps their raw bits (uint16/uint8: CuPy has no such dtypes), converted
here on the device: bfloat16 by bit arithmetic, float8 widened through a table of its 256 values and rounded to
the format's quantum, both giving ml_dtypes' bits.

>>> import numpy as np, openreg
>>> t = openreg._array_bridge.wrap_array(np.arange(3.0))
>>> t.tolist(), t.dtype
([0.0, 1.0, 2.0], openreg.float64)
>>> to_float32(np.array([1.0, 3.0], dtype=openreg.bfloat16.numpy), openreg.bfloat16).dtype
dtype('float32')
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from ._quiet import quiet
from .devices import CPU
from .devices import device as Device
from .storage import StorageBackend, UntypedStorage, _backends, _create_hooks, storage_backend

_E4M3FN_MAX = 448.0


def to_float32(arr, dtype):
    """A narrow float's storage array (ml_dtypes values, or raw bits on CuPy) as float32 values."""
    if arr.dtype == dtype.numpy:
        return arr.astype(np.float32)
    xp = _xp(arr)
    if dtype is _dt.bfloat16:       # raw bits: bfloat16 is the top half of a float32
        return (arr.astype(xp.uint32) << 16).view(xp.float32)
    return xp.asarray(_float8_table(dtype)).take(arr.astype(xp.int32))


def from_float32(values, dtype):
    """Values rounded (to nearest even) to a narrow float, in the storage form of their array module.

    Other types go through float32 first, as PyTorch's conversions do (a float64 is rounded twice).
    float8_e4m3fn saturates to +-448 (infinities too), as PyTorch's casts do; the other float8 types overflow
    to their NaN or infinity, as in PyTorch and ml_dtypes.
    """
    xp = _xp(values)
    if xp is np:
        with np.errstate(over="ignore", invalid="ignore"):   # overflow rounds to inf/NaN silently, as in C
            f = np.asarray(values).astype(np.float32, copy=False)
            if dtype is _dt.float8_e4m3fn:
                f = np.clip(f, -_E4M3FN_MAX, _E4M3FN_MAX)
            return f.astype(dtype.numpy)
    if dtype is _dt.bfloat16:
        return _float32_to_bf16_bits(xp, values)
    return _float32_to_float8_bits(xp, values, dtype)


def _float32_to_bf16_bits(xp, values):
    """float32 -> bfloat16 bits on the cuda driver, whose arrays cannot hold ml_dtypes' bfloat16."""
    f = xp.asarray(values, dtype=xp.float32)
    u = f.view(xp.uint32)
    rounding = ((u >> 16) & 1) + xp.uint32(0x7FFF)
    out = ((u + rounding) >> 16).astype(xp.uint16)
    return xp.where(xp.isnan(f), xp.uint16(0x7FC0), out)


def _float32_to_float8_bits(xp, values, dtype):
    """float32 -> float8 bits on the cuda driver (array-module code; the same bits as ml_dtypes, e4m3fn saturating
    as PyTorch): round the magnitude to the format's quantum at its exponent (rint: ties to even), then look the
    exactly representable result up in the sorted table of the format's values."""
    fmt = _float8_format(dtype)
    f = xp.asarray(values, dtype=xp.float32)
    if dtype is _dt.float8_e4m3fn:
        f = xp.clip(f, -fmt.max, fmt.max)
    a = xp.abs(f)
    exponent = xp.frexp(a)[1] - 1                               # a = 1.m * 2**exponent
    quantum = xp.maximum(exponent, fmt.min_exponent) - fmt.mantissa_bits
    r = xp.ldexp(xp.rint(xp.ldexp(a, -quantum)), quantum)
    nan, big = xp.isnan(f), r > fmt.max                         # big: infinities too
    index = xp.searchsorted(xp.asarray(fmt.values), xp.where(nan | big, 0, r))
    code = xp.asarray(fmt.codes).take(index)
    negative = xp.signbit(f) & (r != 0) if fmt.fnuz else xp.signbit(f)   # fnuz has no -0
    sign = xp.where(negative, xp.uint8(0x80), xp.uint8(0))
    code = xp.where(big, xp.uint8(fmt.overflow) | (sign if fmt.inf is not None else xp.uint8(0)), code | sign)
    return xp.where(nan, xp.where(xp.signbit(f), xp.uint8(fmt.nan_negative), xp.uint8(fmt.nan)), code)


class _Float8Format:
    """What rounding to one float8 format needs: its non-negative finite values (ascending) and their codes."""

    def __init__(self, dtype):
        import ml_dtypes
        info = ml_dtypes.finfo(dtype.numpy)
        table = _float8_table(dtype)
        self.mantissa_bits, self.min_exponent, self.max = int(info.nmant), int(info.minexp), float(info.max)
        codes = [c for c in range(128) if np.isfinite(table[c])]
        self.values = table[codes]
        self.codes = np.array(codes, dtype=np.uint8)
        nans = np.array([np.nan, -np.nan], dtype=np.float32).astype(dtype.numpy).view(np.uint8)
        self.nan, self.nan_negative = int(nans[0]), int(nans[1])
        self.fnuz = dtype.name.endswith("fnuz")
        infs = [c for c in range(128) if np.isinf(table[c])]
        self.inf = infs[0] if infs else None
        self.overflow = self.inf if self.inf is not None else self.nan


_FORMATS: dict = {}


def _float8_format(dtype) -> _Float8Format:
    fmt = _FORMATS.get(dtype.name)
    if fmt is None:
        fmt = _FORMATS[dtype.name] = _Float8Format(dtype)
    return fmt


_TABLES: dict = {}


def _float8_table(dtype) -> np.ndarray:
    """The float32 value of each of the 256 bit patterns of a float8 dtype."""
    table = _TABLES.get(dtype.name)
    if table is None:
        table = _TABLES[dtype.name] = np.arange(256, dtype=np.uint8).view(dtype.numpy).astype(np.float32)
    return table


def _xp(arr):
    return np if isinstance(arr, (np.ndarray, np.generic)) or np.isscalar(arr) else __import__("cupy")


def to_compute(t) -> np.ndarray:
    """The tensor's elements as an array a kernel can compute with (bfloat16/float8 widened to float32)."""
    arr = t._array()
    if t._dtype.is_narrow_float:
        return to_float32(arr, t._dtype)
    return arr


def from_compute(arr, dtype):
    """Convert a computed array to the storage representation of ``dtype`` (an array already in that
    representation, e.g. gathered elements, is returned as it is: on the cuda driver a narrow float's raw bits).
    """
    if dtype.is_narrow_float:
        if arr.dtype == dtype.numpy or (arr.dtype == dtype.raw_numpy and not isinstance(arr, np.ndarray)):
            return arr
        return from_float32(arr, dtype)
    np_dtype = dtype.numpy
    if arr.dtype != np_dtype:
        with quiet():    # a value out of the target's range becomes inf, as PyTorch's cast does
            return arr.astype(np_dtype)
    return arr


_contiguous_cache: dict = {}
_Size = _Tensor = _tensor_module = _CPU_KEYSET = None
_CPU_BACKEND = storage_backend("cpu")
_BASE_ON_CREATE = StorageBackend.on_create
_new = object.__new__


def _load_tensor_types() -> None:
    """Bind Size and Tensor once (tensor.py imports this module, so not at module level)."""
    global _Size, _Tensor, _tensor_module, _CPU_KEYSET
    import sys
    tensor = sys.modules[f"{__package__}.tensor"]     # the module (``openreg.tensor`` is also a function)
    _Size, _Tensor, _tensor_module, _CPU_KEYSET = tensor.Size, tensor.Tensor, tensor, tensor._KEYSETS["cpu"]


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
    elif arr.dtype is not dtype.numpy and arr.dtype != dtype.numpy and arr.dtype != dtype.raw_numpy:
        arr = from_compute(arr, dtype)
    if device._type == "cpu":
        if type(arr) is not np.ndarray:
            arr = np.asarray(arr)
        if not arr.flags.c_contiguous:
            return _wrap_dense_layout(arr, dtype, device)
        shape = arr.shape
        # UntypedStorage._init and TensorBase._init_view written out (test_tensor_construction checks that they
        # agree): this runs once per CPU operator call.
        storage = _new(UntypedStorage)
        storage._data = arr
        storage._nbytes = arr.nbytes
        storage.device = device
        storage._backend = _CPU_BACKEND
        storage._base = storage._pinned_by = None
        storage._base_offset = 0
        storage._resizable = True
        if _create_hooks:
            hook = _create_hooks.get("cpu")
            if hook is not None:
                hook(storage._nbytes, arr)
        t = _new(_Tensor)
        t._storage = storage
        t._size = _Size(shape)
        stride = _contiguous_cache.get(shape)   # () for a 0-d result: test for None, not falsiness
        t._stride = stride if stride is not None else _contiguous_strides(shape)
        t._offset = 0
        t._dtype = dtype
        t._ks = _CPU_KEYSET
        t._vc = _tensor_module.new_version()
        t._base = t._grad_fn = None
        t._arr = t._arr_src = arr
        t._rg = False
        return t
    backend = _backends.get(device._type) or storage_backend(device._type)
    data, arr = backend.adopt(arr, device)
    if arr.flags.c_contiguous:      # fresh row-major device memory (a backend's adopt gives that but for
        return wrap_buffer(data, arr, dtype, device)    # a dense permuted layout): its wrap, written out
    storage = UntypedStorage._wrap(data, arr.nbytes, device)
    item = dtype.itemsize
    shape = arr.shape
    # A zero-size array's strides are meaningless (NumPy/CuPy give 0 for broadcast results): contiguous ones.
    strides = tuple(s // item for s in arr.strides) if arr.size else _contiguous_strides(shape)
    t = _Tensor._make(storage, _Size(shape), strides, 0, dtype)
    if backend.array_module is np:
        t._arr, t._arr_src = arr, storage._data
    return t


def wrap_known_cpu(arr, dtype, device: Device, size, stride, nbytes: int):
    """``wrap_array(arr, dtype, device)`` for a CPU array known to be a row-major NumPy array in ``dtype``'s
    storage type, of shape ``size`` (an ``openreg.Size``, shared: it is immutable), with ``stride`` and
    ``nbytes``: what a structured kernel's cached signature learnt from the same call before, so none of it is
    read from the array again."""
    storage = _new(UntypedStorage)      # UntypedStorage._init, written out as in wrap_array
    storage._data = arr
    storage._nbytes = nbytes
    storage.device = device
    storage._backend = _CPU_BACKEND
    storage._base = storage._pinned_by = None
    storage._base_offset = 0
    storage._resizable = True
    if _create_hooks:
        hook = _create_hooks.get("cpu")
        if hook is not None:
            hook(nbytes, arr)
    t = _new(_Tensor)                   # TensorBase._init_view, written out as in wrap_array
    t._storage = storage
    t._size = size
    t._stride = stride
    t._offset = 0
    t._dtype = dtype
    t._ks = _CPU_KEYSET
    t._vc = _tensor_module.new_version()
    t._base = t._grad_fn = None
    t._arr = t._arr_src = arr
    t._rg = False
    return t


def wrap_buffer(data, arr, dtype, device: Device):
    """A new tensor over ``data``, fresh row-major memory of ``device`` that ``arr`` (of ``dtype``'s storage type)
    views: what ``StorageBackend.new_buffer`` gave and a kernel wrote its result into."""
    if _Tensor is None:
        _load_tensor_types()
    storage = _new(UntypedStorage)      # UntypedStorage._init, written out as in wrap_array
    storage._data = data
    storage._nbytes = nbytes = arr.nbytes
    storage.device = device
    storage._backend = backend = _backends[device._type]
    storage._base = storage._pinned_by = None
    storage._base_offset = 0
    storage._resizable = True
    if type(backend).on_create is not _BASE_ON_CREATE:
        backend.on_create(storage)
    if _create_hooks:
        hook = _create_hooks.get(device._type)
        if hook is not None:
            hook(nbytes, data)
    shape = arr.shape
    t = _new(_Tensor)                      # TensorBase._init_view, written out as in wrap_array
    t._storage = storage
    t._size = _Size(shape)
    stride = _contiguous_cache.get(shape)
    t._stride = stride if stride is not None else _contiguous_strides(shape)
    t._offset = 0
    t._dtype = dtype
    t._ks = _tensor_module._KEYSETS[device._type]
    t._vc = _tensor_module.new_version()
    t._base = t._grad_fn = None
    if arr.__class__ is np.ndarray:        # a NumPy-backed device: keep the view, as _array would make it
        t._arr, t._arr_src = arr, data
    else:
        t._arr = t._arr_src = None
    t._rg = False
    return t


def buffer_layout(t) -> tuple:
    """What ``wrap_known_buffer`` needs to wrap the next result like ``t`` (a ``wrap_buffer`` result of the same
    shape, dtype and device): its Size (shared: it is immutable), strides, key set, nbytes and storage backend."""
    backend = t._storage._backend
    return (t._size, t._stride, t._ks, t._storage._nbytes, backend,
            type(backend).on_create is not _BASE_ON_CREATE)


def wrap_known_buffer(data, arr, dtype, device: Device, layout: tuple):
    """``wrap_buffer(data, arr, dtype, device)`` for a result whose ``layout`` (``buffer_layout``) a structured
    kernel's cached signature learnt from the same call before: nothing is read from the array again."""
    size, stride, ks, nbytes, backend, on_create = layout
    storage = _new(UntypedStorage)      # UntypedStorage._init, written out as in wrap_array
    storage._data = data
    storage._nbytes = nbytes
    storage.device = device
    storage._backend = backend
    storage._base = storage._pinned_by = None
    storage._base_offset = 0
    storage._resizable = True
    if on_create:
        backend.on_create(storage)
    if _create_hooks:
        hook = _create_hooks.get(device._type)
        if hook is not None:
            hook(nbytes, data)
    t = _new(_Tensor)                   # TensorBase._init_view, written out as in wrap_array
    t._storage = storage
    t._size = size
    t._stride = stride
    t._offset = 0
    t._dtype = dtype
    t._ks = ks
    t._vc = _tensor_module.new_version()
    t._base = t._grad_fn = None
    if arr.__class__ is np.ndarray:     # a NumPy-backed device: keep the view, as _array would make it
        t._arr, t._arr_src = arr, data
    else:
        t._arr = t._arr_src = None
    t._rg = False
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
    """The tensor's values as a NumPy array on the host (a copy for device tensors; bfloat16 and float8 as
    float32)."""
    if t._storage.device._type == "cpu":
        arr = t._array()
    elif t._storage.device._type == "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    else:
        arr = storage_backend(t._storage.device._type).to_host_array(t)
    if t._dtype.is_narrow_float:
        return to_float32(arr, t._dtype)
    return arr
