"""DLPack interchange: ``openreg.from_dlpack(obj)``, ``Tensor.__dlpack__()`` and ``Tensor.__dlpack_device__()``.

Both directions share memory, never copy (unless ``copy=True`` or a ``dl_device`` that needs a copy is asked for):

* **CPU tensors** go through NumPy's DLPack support (``ndarray.__dlpack__`` / ``np.from_dlpack``), so every
  dtype NumPy has works, ``bool`` included. ``bfloat16`` is refused with a ``BufferError``: NumPy has no
  bfloat16 (convert with ``.float()`` first). Pinned CPU tensors report ``kDLCPU`` (PyTorch reports
  ``kDLCUDAHost``): the capsule comes from NumPy, which only produces ``kDLCPU``.
* **Device tensors on the cuda driver** are ``kDLCUDA`` tensors exported and imported through CuPy; the
  ``stream`` argument follows the DLPack protocol (the producer's current stream is made to wait for the
  consumer's). An exported capsule keeps the tensor's device memory alive; an imported tensor keeps the
  producer alive.
* **Device tensors on the emulated driver** live in host memory that no other library may treat as a device:
  ``__dlpack_device__()`` reports ``kDLExtDev`` (as PyTorch does for PrivateUse1) and ``__dlpack__()`` raises
  ``BufferError`` naming the device and telling to call ``.cpu()`` first. ``openreg.from_dlpack`` of an openreg
  tensor, on any device, returns a new tensor sharing its memory.

Failures to export or import raise ``BufferError``, as the DLPack protocol and PyTorch do.

>>> import numpy as np, openreg
>>> t = openreg.arange(4.0)
>>> a = np.from_dlpack(t)          # zero-copy: a views t's memory
>>> _ = t.add_(10)
>>> a.tolist()
[10.0, 11.0, 12.0, 13.0]
>>> openreg.from_dlpack(np.arange(3)).tolist()
[0, 1, 2]
"""
from __future__ import annotations

import ctypes
import enum
from typing import Any

import numpy as np

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


def _device_driver():
    from .backends.privateuseone.driver_select import get_driver
    return get_driver()


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
    ``max_version`` is the highest DLPack version the consumer understands (``(1, x)`` gets a versioned
    capsule that can also mark read-only memory). ``dl_device=(kDLCPU, 0)`` on a device tensor exports a host
    copy unless ``copy=False``; ``copy=True`` always exports a copy.

    >>> import numpy as np, openreg
    >>> t = openreg.tensor([[1, 2, 3], [4, 5, 6]], dtype=openreg.int32)
    >>> np.from_dlpack(t.t()).tolist()       # strided views export without a copy
    [[1, 4], [2, 5], [3, 6]]
    """
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if self._dtype.is_quantized:
        raise BufferError(f"Can't export quantized tensors ({self._dtype}) through DLPack; use "
                          f"tensor.dequantize() or tensor.int_repr() first")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    own = self.__dlpack_device__()
    if dl_device is not None and (int(dl_device[0]), int(dl_device[1])) != (int(own[0]), own[1]):
        if int(dl_device[0]) != DLDeviceType.kDLCPU:
            raise BufferError(f"Can't export a tensor on {self.device} to DLPack device "
                              f"{_device_name(int(dl_device[0]))}:{dl_device[1]}; only the tensor's own device "
                              f"or the CPU (kDLCPU, 0) can be requested")
        if copy is False:
            raise BufferError(f"Exporting a tensor on {self.device} to the CPU (dl_device=(kDLCPU, 0)) needs a "
                              f"copy, but copy=False was given")
        return _export_cpu(self.detach().cpu(), max_version)
    if copy:
        return __dlpack__(self.detach().clone(), stream=stream, max_version=max_version)
    kind = self._storage.device._type
    if kind == "cpu":
        return _export_cpu(self, max_version)
    if kind == PRIVATEUSE1 and own[0] == DLDeviceType.kDLCUDA:
        return _export_cuda(self, stream, max_version)
    if kind == PRIVATEUSE1:
        raise BufferError(f"Can't export a tensor on {self.device} through DLPack: the '{_device_driver().name}' "
                          f"driver keeps device memory in host buffers that no other library may treat as a "
                          f"DLPack device. Call .cpu() first (or pass dl_device=(kDLCPU, 0)).")
    raise BufferError(f"Can't export a tensor on the '{self.device.type}' device through DLPack: it has no data")


def _check_exportable_dtype(t: Tensor, where: str) -> None:
    if t._dtype is _dt.bfloat16:
        raise BufferError(f"Can't export a bfloat16 tensor on {where} through DLPack: openreg exchanges "
                          f"{where} memory through {'NumPy' if where == 'cpu' else 'CuPy'}, which has no "
                          f"bfloat16. Convert it first, e.g. tensor.float().")


def _export_cpu(t: Tensor, max_version) -> Any:
    _check_exportable_dtype(t, "cpu")
    arr = t._array()
    if max_version is None:
        return arr.__dlpack__()
    try:
        return arr.__dlpack__(max_version=tuple(max_version))
    except TypeError:  # NumPy < 2.1 knows no max_version: an unversioned capsule is always acceptable
        return arr.__dlpack__()


def _export_cuda(t: Tensor, stream: int | None, max_version) -> Any:
    from .backends.privateuseone.streams import current_stream

    _check_exportable_dtype(t, str(t.device))
    drv = _device_driver()
    cp = drv.array_module
    index = int(t._storage.device.index or 0)
    item = t._dtype.itemsize
    alloc = t._storage._data
    with drv.using_device(index), drv.using_stream(current_stream(index)._handle):
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
_pythonapi = ctypes.pythonapi
_pythonapi.PyCapsule_IsValid.restype = ctypes.c_int
_pythonapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


# DLManagedTensor starts with its DLTensor {void* data; DLDevice device; ...}; DLManagedTensorVersioned starts
# with {DLPackVersion version (2 x uint32); void* manager_ctx; void (*deleter)(...); uint64 flags;} then the
# DLTensor.
_DEVICE_OFFSET = {b"dltensor": ctypes.sizeof(ctypes.c_void_p),
                  b"dltensor_versioned": 8 + 3 * 8 + ctypes.sizeof(ctypes.c_void_p)}


def _capsule_device(capsule: Any) -> tuple[int, int] | None:
    """The DLDevice of an unconsumed DLPack capsule, or None when ``capsule`` is not one."""
    if type(capsule).__name__ != "PyCapsule":
        return None
    for name, offset in _DEVICE_OFFSET.items():
        if _pythonapi.PyCapsule_IsValid(capsule, name):
            ptr = _pythonapi.PyCapsule_GetPointer(capsule, name)
            dev = _DLDevice.from_address(ptr + offset)
            return int(dev.device_type), int(dev.device_id)
    raise BufferError("from_dlpack: the capsule is not an unconsumed DLPack capsule (its name is neither "
                      "'dltensor' nor 'dltensor_versioned'; a capsule can be consumed only once)")


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
    device = _capsule_device(ext_tensor)
    if device is not None:
        source: Any = _CapsuleHolder(ext_tensor, device)
    elif hasattr(ext_tensor, "__dlpack__") and hasattr(ext_tensor, "__dlpack_device__"):
        device = tuple(int(x) for x in ext_tensor.__dlpack_device__())
        source = ext_tensor
    else:
        raise TypeError(f"from_dlpack: expected an object implementing __dlpack__ and __dlpack_device__ or a "
                        f"DLPack capsule, got {type(ext_tensor).__name__}")
    kind, index = device
    if kind in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
        return _import_cpu(source)
    if kind == DLDeviceType.kDLCUDA:
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


def _import_cpu(source: Any) -> Tensor:
    from .factories import from_numpy
    try:
        arr = np.from_dlpack(source)
    except BufferError as exc:
        raise BufferError(f"from_dlpack: NumPy could not import this CPU tensor ({exc}). openreg imports CPU "
                          f"memory through NumPy, so dtypes NumPy lacks (bfloat16, ...) must be converted in "
                          f"the producer first.") from exc
    strides = _element_strides(arr.shape, arr.strides, arr.itemsize, "CPU")
    if any(s < 0 for s in arr.strides):  # only on dims of size <= 1, where a stride means nothing
        arr = np.lib.stride_tricks.as_strided(arr, arr.shape, tuple(s * arr.itemsize for s in strides))
    return from_numpy(arr)


def _import_cuda(source: Any, index: int) -> Tensor:
    drv = _device_driver()
    if drv.name != "cuda":
        raise BufferError(f"from_dlpack: the object lives on CUDA device {index} (kDLCUDA), but the "
                          f"{Device(PRIVATEUSE1, index).type} device runs the '{drv.name}' driver, which has no CUDA memory. Copy "
                          f"it to host memory in the producer first, or run on a machine with a GPU and CuPy "
                          f"(OPENREG_DRIVER=cuda).")
    from .backends.privateuseone import state
    from .backends.privateuseone.driver import Segment
    from .backends.privateuseone.storage_backend import DeviceAllocation
    from .backends.privateuseone.streams import current_stream
    from .storage import UntypedStorage

    state.check_index(index)
    cp = drv.array_module
    with drv.using_device(index):
        if not isinstance(source, _CapsuleHolder):
            # The consumer's stream: ours. DLPack reserves 0; the legacy default stream is passed as 1.
            ptr = int(current_stream(index)._handle.ptr)
            source = _CapsuleHolder(source.__dlpack__(stream=ptr if ptr else 1), (DLDeviceType.kDLCUDA, index))
        arr = cp.from_dlpack(source)
    dtype = _dt.from_numpy(arr.dtype)
    item = arr.itemsize
    shape = tuple(int(n) for n in arr.shape)
    strides = _element_strides(shape, tuple(int(s) for s in arr.strides), item, "CUDA")
    dev = Device(PRIVATEUSE1, index)
    if arr.size == 0:
        storage = UntypedStorage(0, device=dev)
    else:
        nbytes = storage_nbytes(shape, strides, item)
        # arr.data is a MemoryPointer whose memory holds the capsule, which holds the producer.
        alloc = DeviceAllocation.foreign(Segment(index, nbytes, int(arr.data.ptr), arr.data))
        storage = UntypedStorage._wrap(alloc, nbytes, dev, resizable=False)
    return Tensor._make(storage, Size(shape), strides, 0, dtype)


__all__ = ["DLDeviceType", "__dlpack__", "__dlpack_device__", "from_dlpack"]
