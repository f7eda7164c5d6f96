"""DLPack interchange: ``openreg.from_dlpack(obj)``, ``Tensor.__dlpack__()`` and ``Tensor.__dlpack_device__()``.

Both directions share memory, never copy (unless ``copy=True`` or a ``dl_device`` that needs a copy is asked for):

* **Export** makes openreg's own capsules (``_dlpack_capsule.py``): a DLPack 1.x versioned capsule
  (``"dltensor_versioned"``) when the consumer's ``max_version`` is ``(1, x)`` or newer, a legacy one
  (``"dltensor"``) otherwise, with the ``IS_COPIED`` flag on copies. Every dtype travels, bfloat16
  (``kDLBfloat``) and float8 (``kDLFloat8_e4m3fn`` ...) included. Pinned CPU tensors report ``kDLCPU``.
* **Import** of CPU memory (``kDLCPU``, ``kDLCUDAHost``) gives a CPU tensor, through NumPy for NumPy's dtypes
  and through openreg's capsule reader for bfloat16/float8 (which NumPy lacks).
* **Device tensors on the cuda driver** are ``kDLCUDA`` tensors exported and imported through CuPy; the
  ``stream`` argument follows the DLPack protocol (the producer's current stream is made to wait for the
  consumer's). An exported capsule keeps the tensor's device memory alive; an imported tensor keeps the
  producer alive. bfloat16/float8 device tensors (which CuPy cannot describe) are exported by openreg's own
  capsules after the device's current stream has finished.
* **Device tensors on the emulated driver** live in host memory that no other library may treat as a device:
  ``__dlpack_device__()`` reports ``kDLExtDev`` (as PyTorch does for PrivateUse1) and ``__dlpack__()`` raises
  ``BufferError`` naming the device and telling to call ``.cpu()`` first. ``openreg.from_dlpack`` of an openreg
  tensor, on any device, returns a new tensor sharing its memory.

Failures to export or import raise ``BufferError``, as the DLPack protocol and PyTorch do; a capsule consumed
twice raises an error that is both a ``BufferError`` and PyTorch's ``RuntimeError``.

>>> import numpy as np, openreg
>>> t = openreg.arange(4.0)
>>> a = np.from_dlpack(t)          # zero-copy: a views t's memory
>>> _ = t.add_(10)
>>> a.tolist()
[10.0, 11.0, 12.0, 13.0]
>>> openreg.from_dlpack(np.arange(3)).tolist()
[0, 1, 2]
>>> b = openreg.tensor([1.5, -2.0], dtype=openreg.bfloat16)
>>> openreg.from_dlpack(b.__dlpack__(max_version=(1, 0))).tolist()      # bfloat16 travels as kDLBfloat
[1.5, -2.0]
"""
from __future__ import annotations

import enum
from typing import Any

import numpy as np

from . import _dlpack_capsule as _capsule
from . import dtypes as _dt
from .devices import PRIVATEUSE1
from .devices import device as Device
from .storage_bounds import storage_nbytes
from .tensor import Size, Tensor


class DLDeviceType(enum.IntEnum):
    """Device types of the DLPack specification (``dlpack.h``)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _device_backend():
    from .backends import privateuseone
    return privateuseone


def _device_driver():
    return _device_backend().get_driver()


def _device_name(code: int) -> str:
    try:
        return DLDeviceType(code).name
    except ValueError:
        return f"device type {code}"


# -- export --------------------------------------------------------------------------------------------------
def __dlpack_device__(self: Tensor) -> tuple[DLDeviceType, int]:
    """The DLPack ``(device_type, device_id)`` of this tensor.

    CPU: ``(kDLCPU, 0)``; the device on the cuda driver: ``(kDLCUDA, index)``; on the emulated driver:
    ``(kDLExtDev, index)``.

    >>> import openreg
    >>> openreg.zeros(2).__dlpack_device__()
    (<DLDeviceType.kDLCPU: 1>, 0)
    """
    dev = self._storage.device
    if dev._type == "cpu":
        return DLDeviceType.kDLCPU, 0
    if dev._type == PRIVATEUSE1:
        kind = DLDeviceType.kDLCUDA if _device_driver().name == "cuda" else DLDeviceType.kDLExtDev
        return kind, int(dev.index or 0)
    raise ValueError(f"Unknown device type {dev.type} for Dlpack")


def __dlpack__(self: Tensor, *, stream: int | None = None, max_version: tuple[int, int] | None = None,
               dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
    """A DLPack capsule sharing this tensor's memory (the producer side of ``from_dlpack``).

    ``stream`` (cuda driver only) is the consumer's CUDA stream as an integer (``None``/``-1``: no
    synchronisation; ``1``: the legacy default stream); it is ignored for CPU tensors, as in PyTorch.
    ``max_version`` is the highest DLPack version the consumer understands: ``(1, x)`` or newer gets a versioned
    capsule (``"dltensor_versioned"``, which can flag copies), ``None`` or older a legacy ``"dltensor"`` one.
    ``dl_device=(kDLCPU, 0)`` on a device tensor exports a host copy unless ``copy=False``; ``copy=True`` always
    exports a copy; ``copy=False`` never does.

    >>> import numpy as np, openreg
    >>> t = openreg.tensor([[1, 2, 3], [4, 5, 6]], dtype=openreg.int32)
    >>> np.from_dlpack(t.t()).tolist()       # strided views export without a copy
    [[1, 4], [2, 5], [3, 6]]
    >>> t.__dlpack__(max_version=(1, 0))
    <capsule object "dltensor_versioned" at 0x...>
    """
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if self._dtype.is_quantized:
        raise BufferError(f"Can't export quantized tensors ({self._dtype}) through DLPack; use "
                          f"tensor.dequantize() or tensor.int_repr() first")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    versioned = max_version is not None and int(next(iter(max_version))) >= 1
    own = self.__dlpack_device__()
    if dl_device is not None and (int(dl_device[0]), int(dl_device[1])) != (int(own[0]), own[1]):
        if int(dl_device[0]) != DLDeviceType.kDLCPU:
            raise BufferError(f"Can't export a tensor on {self.device} to DLPack device "
                              f"{_device_name(int(dl_device[0]))}:{dl_device[1]}; only the tensor's own device "
                              f"or the CPU (kDLCPU, 0) can be requested")
        if copy is False:
            raise BufferError(f"Exporting a tensor on {self.device} to the CPU (dl_device=(kDLCPU, 0)) needs a "
                              f"copy, but copy=False was given")
        return _export_host(self.detach().cpu(), versioned, copied=True)
    kind = self._storage.device._type
    if kind == "cpu":
        return _export_host(self.detach().clone() if copy else self, versioned, copied=bool(copy))
    if kind == PRIVATEUSE1 and own[0] == DLDeviceType.kDLCUDA:
        if copy:
            return _export_cuda(self.detach().clone(), stream, max_version, versioned, copied=True)
        return _export_cuda(self, stream, max_version, versioned, copied=False)
    if kind == PRIVATEUSE1:
        raise BufferError(f"Can't export a tensor on {self.device} through DLPack: the '{_device_driver().name}' "
                          f"driver keeps device memory in host buffers that no other library may treat as a "
                          f"DLPack device. Call .cpu() first (or pass dl_device=(kDLCPU, 0)).")
    raise BufferError(f"Can't export a tensor on the '{self.device.type}' device through DLPack: it has no data")


def _element_layout(t: Tensor) -> tuple[tuple, tuple]:
    return tuple(int(n) for n in t._size), tuple(int(s) for s in t._stride)


def _export_host(t: Tensor, versioned: bool, copied: bool) -> Any:
    """A capsule of a CPU tensor's memory; it holds the storage's buffer until the consumer deletes it."""
    arr = t._array()
    flags = _capsule.FLAG_IS_COPIED if copied else 0
    if not arr.flags.writeable:  # memory imported read-only (a read-only NumPy array ...)
        if not versioned:
            raise BufferError("Cannot export read-only memory through a legacy DLPack capsule, which cannot say "
                              "it is read-only: the consumer must ask for max_version=(1, 0) or newer")
        flags |= _capsule.FLAG_READ_ONLY
    shape, strides = _element_layout(t)
    data = arr.__array_interface__["data"][0] if arr.size else 0
    return _capsule.make_capsule(data, (DLDeviceType.kDLCPU, 0), shape, strides,
                                 _capsule.DTYPE_CODES[t._dtype.name], owner=(arr, t._storage._data),
                                 versioned=versioned, flags=flags)


def _export_cuda(t: Tensor, stream: int | None, max_version, versioned: bool, copied: bool) -> Any:
    drv = _device_driver()
    index = int(t._storage.device.index or 0)
    if t._dtype.is_narrow_float:
        # CuPy cannot describe bfloat16/float8: openreg's own capsule over the raw memory, once the work queued
        # on the device's current stream (the tensor's producers) is done, which satisfies any consumer stream.
        drv.stream_synchronize(_device_backend().current_stream_handle(index))
        shape, strides = _element_layout(t)
        data = t._storage.data_ptr() + t._offset * t._dtype.itemsize if t.numel() else 0
        return _capsule.make_capsule(data, (DLDeviceType.kDLCUDA, index), shape, strides,
                                     _capsule.DTYPE_CODES[t._dtype.name], owner=t._storage._data,
                                     versioned=versioned, flags=_capsule.FLAG_IS_COPIED if copied else 0)
    cp = drv.array_module
    item = t._dtype.itemsize
    alloc = t._storage._data
    with drv.using_device(index), drv.using_stream(_device_backend().current_stream_handle(index)):
        if t.numel() == 0 or alloc is None or getattr(alloc, "segment", None) is None:
            arr = cp.empty(tuple(t._size), t._dtype.numpy)
        else:
            # The capsule holds this array, the array its UnownedMemory, and that the storage's allocation:
            # the block cannot go back to the caching allocator while a consumer still uses it.
            mem = cp.cuda.UnownedMemory(t._storage.data_ptr(), t._storage.nbytes(), alloc, device_id=index)
            arr = cp.ndarray(tuple(t._size), t._dtype.numpy, cp.cuda.MemoryPointer(mem, t._offset * item),
                             tuple(s * item for s in t._stride))
        kwargs: dict[str, Any] = {} if stream is None else {"stream": stream}
        if max_version is not None:
            try:
                return arr.__dlpack__(max_version=tuple(max_version), **kwargs)
            except TypeError:  # CuPy 13 knows no max_version
                pass
        return arr.__dlpack__(**kwargs)


# -- import --------------------------------------------------------------------------------------------------
class _CapsuleHolder:
    """Presents an already produced capsule through the ``__dlpack__`` protocol (to NumPy or CuPy)."""

    def __init__(self, capsule: Any, device: tuple[int, int]):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("from_dlpack: a DLPack capsule can be consumed only once")
        return capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._device


def _ask_for_capsule(obj: Any) -> Any:
    """The producer's capsule, versioned when it can make one (it carries the read-only flag)."""
    try:
        return obj.__dlpack__(max_version=_capsule.VERSION)
    except TypeError:  # a producer that predates DLPack 1.0 knows no max_version
        return obj.__dlpack__()


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing memory with ``ext_tensor``: any object with ``__dlpack__``/``__dlpack_device__`` (NumPy,
    CuPy, PyTorch, JAX ...), a DLPack capsule, or an openreg tensor.

    CPU memory (``kDLCPU``, ``kDLCUDAHost``) gives a CPU tensor; CUDA memory (``kDLCUDA``) gives a tensor on the
    device with the same index when the device runs the cuda driver (it keeps the producer alive). A bare
    legacy (unversioned) capsule of CPU memory imports read-only, as NumPy does; objects are asked for a
    versioned capsule, which carries the read-only flag.

    >>> import numpy as np, openreg
    >>> a = np.zeros((2, 3), dtype=np.float32)
    >>> t = openreg.from_dlpack(a[:, 1:])
    >>> t.shape, t.stride()
    (openreg.Size([2, 2]), (3, 1))
    >>> _ = t.fill_(7)
    >>> a.tolist()
    [[0.0, 7.0, 7.0], [0.0, 7.0, 7.0]]
    """
    if isinstance(ext_tensor, Tensor):
        return _alias(ext_tensor)
    source: Any
    if _capsule.capsule_name(ext_tensor) is not None:
        source = ext_tensor
        device = _capsule.read_capsule(ext_tensor).device
    elif hasattr(ext_tensor, "__dlpack__") and hasattr(ext_tensor, "__dlpack_device__"):
        device = tuple(int(x) for x in ext_tensor.__dlpack_device__())
        source = ext_tensor
    else:
        raise TypeError(f"from_dlpack: expected an object implementing __dlpack__ and __dlpack_device__ or a "
                        f"DLPack capsule, got {type(ext_tensor).__name__}")
    kind, index = device
    if kind in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
        return _import_cpu(source if _capsule.capsule_name(source) is not None else _ask_for_capsule(source),
                           (int(kind), index))
    if kind == DLDeviceType.kDLCUDA:
        if _capsule.capsule_name(source) is not None:
            source = _CapsuleHolder(source, (DLDeviceType.kDLCUDA, index))
        return _import_cuda(source, index)
    raise BufferError(f"from_dlpack: unsupported DLPack device {_device_name(kind)} (device {index}); openreg "
                      f"imports CPU memory (kDLCPU, kDLCUDAHost) and CUDA memory (kDLCUDA, on the cuda driver)")


def _alias(t: Tensor) -> Tensor:
    if t._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if t.is_meta:
        raise BufferError("Can't export a tensor on the 'meta' device through DLPack: it has no data")
    return Tensor._make(t._storage, t._size, t._stride, t._offset, t._dtype)


def _element_strides(shape: tuple, byte_strides: tuple, itemsize: int, where: str) -> tuple:
    if any(n > 1 and s < 0 for n, s in zip(shape, byte_strides)):
        raise BufferError(f"from_dlpack: the {where} tensor has negative strides {list(byte_strides)} (bytes), "
                          f"which openreg tensors cannot represent; copy it in the producer first")
    if any(s % itemsize for s in byte_strides):
        raise BufferError(f"from_dlpack: the {where} tensor's strides {list(byte_strides)} (bytes) are not "
                          f"multiples of its element size {itemsize}")
    return tuple(max(s, 0) // itemsize for s in byte_strides)


def _import_cpu(capsule: Any, device: tuple[int, int]) -> Tensor:
    view = _capsule.read_capsule(capsule)
    name = _capsule.DTYPE_BY_CODE.get((view.code, view.bits))
    if view.lanes != 1 or (name is None and (view.code, view.bits) not in _NUMPY_TYPES):
        known_code = any(code == view.code for code, _ in (*_capsule.DTYPE_BY_CODE, *_NUMPY_TYPES))
        what = (f"lanes {view.lanes}" if view.lanes != 1 else f"code {view.code}" if not known_code
                else f"{_capsule.CODE_NAMES[view.code]} bits {view.bits}")
        raise BufferError(f"from_dlpack: Unsupported {what}: DLPack dtype "
                          f"{_capsule.dtype_text(view.code, view.bits, view.lanes)} has no openreg dtype")
    if name is not None and getattr(_dt, name).is_narrow_float:
        return _import_narrow_float(capsule, view, getattr(_dt, name))
    # NumPy imports its own dtypes (and from_numpy refuses those openreg lacks: uint16 ...)
    from .tensor_from_data import from_numpy
    arr = np.from_dlpack(_CapsuleHolder(capsule, device))
    strides = _element_strides(arr.shape, arr.strides, arr.itemsize, "CPU")
    if any(s < 0 for s in arr.strides):  # only on dims of size <= 1, where a stride means nothing
        arr = np.lib.stride_tricks.as_strided(arr, arr.shape, tuple(s * arr.itemsize for s in strides))
    return from_numpy(arr)


# (type code, bits) of the dtypes NumPy's DLPack import knows.
_NUMPY_TYPES = frozenset([(0, 8), (0, 16), (0, 32), (0, 64), (1, 8), (1, 16), (1, 32), (1, 64), (2, 16), (2, 32),
                          (2, 64), (5, 64), (5, 128), (6, 8)])


class _ImportedMemory:
    """The producer's host memory as raw bytes; the producer's deleter runs when the last view of it goes."""

    def __init__(self, view: Any, nbytes: int, read_only: bool):
        self._view = view
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                    "data": (view.data, read_only)}

    def __del__(self) -> None:
        _capsule.call_deleter(self._view)


def _import_narrow_float(capsule: Any, view: Any, dtype) -> Tensor:
    """bfloat16/float8 host memory (NumPy cannot import those): read the capsule directly."""
    from .tensor_from_data import from_numpy
    item = dtype.itemsize
    byte_strides = tuple(s * item for s in view.strides)
    strides = _element_strides(view.shape, byte_strides, item, "CPU")
    _capsule.consume(capsule, view)
    # As NumPy: a legacy capsule cannot say whether the memory may be written, so it is imported read-only.
    read_only = bool(view.flags & _capsule.FLAG_READ_ONLY) or not view.versioned
    if 0 in view.shape or not view.data:
        _capsule.call_deleter(view)
        arr = np.empty(view.shape, dtype.numpy)
    else:
        raw = np.asarray(_ImportedMemory(view, storage_nbytes(view.shape, strides, item), read_only))
        arr = np.ndarray(view.shape, dtype.numpy, buffer=raw, strides=tuple(s * item for s in strides))
        if read_only:
            arr.flags.writeable = False
    return from_numpy(arr)


def _import_cuda(source: Any, index: int) -> Tensor:
    drv = _device_driver()
    if drv.name != "cuda":
        raise BufferError(f"from_dlpack: the object lives on CUDA device {index} (kDLCUDA), but the "
                          f"{Device(PRIVATEUSE1, index).type} device runs the '{drv.name}' driver, which has no CUDA memory. Copy "
                          f"it to host memory in the producer first, or run on a machine with a GPU and CuPy "
                          f"(OPENREG_DRIVER=cuda).")
    from .storage import UntypedStorage

    backend = _device_backend()
    backend.check_index(index)
    cp = drv.array_module
    with drv.using_device(index):
        if not isinstance(source, _CapsuleHolder):
            # The consumer's stream: ours. DLPack reserves 0; the legacy default stream is passed as 1.
            ptr = int(backend.current_stream_handle(index).ptr)
            source = _CapsuleHolder(source.__dlpack__(stream=ptr if ptr else 1), (DLDeviceType.kDLCUDA, index))
        view = _capsule.read_capsule(source._capsule)
        name = _capsule.DTYPE_BY_CODE.get((view.code, view.bits)) if view.lanes == 1 else None
        if name is not None and getattr(_dt, name).is_narrow_float:
            # CuPy cannot describe bfloat16/float8: wrap the raw device memory the capsule describes.
            dtype = getattr(_dt, name)
            item = dtype.itemsize
            shape = view.shape
            strides = _element_strides(shape, tuple(s * item for s in view.strides), item, "CUDA")
            _capsule.consume(source._capsule, view)
            owner = _ImportedDeviceMemory(view)
            nbytes = storage_nbytes(shape, strides, item) if view.data and 0 not in shape else 0
            data = cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(view.data, nbytes, owner, device_id=index), 0) \
                if nbytes else None
            ptr = view.data
        else:
            arr = cp.from_dlpack(source)
            dtype = _dt.from_numpy(arr.dtype)
            item = arr.itemsize
            shape = tuple(int(n) for n in arr.shape)
            strides = _element_strides(shape, tuple(int(s) for s in arr.strides), item, "CUDA")
            nbytes = storage_nbytes(shape, strides, item) if arr.size else 0
            # arr.data is a MemoryPointer whose memory holds the capsule, which holds the producer.
            data, ptr = arr.data, int(arr.data.ptr)
    dev = Device(PRIVATEUSE1, index)
    if not nbytes:
        storage = UntypedStorage(0, device=dev)
    else:
        alloc = backend.foreign_allocation(index, nbytes, ptr, data)
        storage = UntypedStorage._wrap(alloc, nbytes, dev, resizable=False)
    return Tensor._make(storage, Size(shape), strides, 0, dtype)


class _ImportedDeviceMemory:
    """Holds imported device memory; the producer's deleter runs when the last MemoryPointer to it goes."""

    def __init__(self, view: Any):
        self._view = view

    def __del__(self) -> None:
        _capsule.call_deleter(self._view)


__all__ = ["DLDeviceType", "__dlpack__", "__dlpack_device__", "from_dlpack"]
