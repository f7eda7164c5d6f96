"""Untyped storage: a flat run of bytes on one device, shared by a tensor and all its views.

How bytes are allocated and viewed depends on the device type; each backend registers a
``StorageBackend`` (the CPU and Meta ones live here, the PrivateUse1 one in ``openreg.backends``).

>>> import openreg
>>> s = openreg.UntypedStorage(8)
>>> s.nbytes(), s.device.type
(8, 'cpu')
>>> s[2:6].nbytes()
4
"""
from __future__ import annotations

from functools import partial

import numpy as np

from .devices import CPU, CUDA, META, PRIVATEUSE1, cuda_not_enabled
from .devices import device as Device


class StorageBackend:
    """What a device type must provide for storages; ``data`` is the backend's own buffer handle."""

    array_module = np

    def allocate(self, nbytes: int, device: Device):
        raise NotImplementedError

    def as_array(self, data, np_dtype, shape, byte_strides, byte_offset):
        """An array (of ``array_module``) viewing the bytes; no copy."""
        raise NotImplementedError

    def data_ptr(self, data) -> int:
        raise NotImplementedError

    def copy_bytes(self, dst, dst_offset: int, src, src_offset: int, nbytes: int) -> None:
        raise NotImplementedError

    def to_host_bytes(self, data, offset: int, nbytes: int) -> np.ndarray:
        """A NumPy uint8 copy of the bytes (used by .cpu(), printing and serialization)."""
        raise NotImplementedError

    def new_buffer(self, shape: tuple, np_dtype, device: Device):
        """Fresh row-major memory for a kernel to write a result of ``shape`` into: ``(data, array viewing
        it)``. Only backends that override it have one: on the others (the CPU) kernels return fresh arrays."""
        raise NotImplementedError

    def buffer_maker(self, shape: tuple, np_dtype, device: Device):
        """``new_buffer(shape, np_dtype, device)`` as a function of no arguments (what a structured kernel's cached
        signature calls for each result; a backend may specialise it to the one request), or None when the
        backend has no ``new_buffer``.

        >>> import numpy as np, openreg
        >>> openreg.storage.storage_backend("cpu").buffer_maker((2,), np.dtype(np.float32), openreg.device("cpu"))
        """
        if type(self).new_buffer is StorageBackend.new_buffer:
            return None
        return partial(self.new_buffer, shape, np_dtype, device)

    def result_maker(self, shape: tuple, np_dtype, device: Device, dtype, layout: tuple):
        """A function of no arguments giving a new tensor over fresh memory from ``new_buffer`` for a result of
        ``shape``, laid out as ``layout`` (``_array_bridge.buffer_layout``) says, whose ``_arr`` a kernel writes
        the result into (a structured kernel's cached signature calls it for each result); None when the backend
        has none specialised (then ``buffer_maker``'s result is wrapped)."""

    def adopt(self, arr, device: Device):
        """Take a freshly computed array as a storage buffer: ``(data, array_viewing_data)``."""
        raise NotImplementedError

    def to_host_array(self, tensor) -> np.ndarray:
        """A NumPy copy of a tensor's elements (device -> host)."""
        raise NotImplementedError

    def on_create(self, storage: UntypedStorage) -> None:
        """Called once for every new storage of this device type (storage-creation hooks)."""


class CPUStorageBackend(StorageBackend):
    """Host memory as NumPy arrays; any contiguous array may serve as the buffer of a storage."""

    def allocate(self, nbytes, device):
        try:
            return np.empty(nbytes, dtype=np.uint8)
        except (MemoryError, ValueError):  # ValueError: more than NumPy can index
            raise RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} "
                               f"bytes.") from None

    def as_array(self, data, np_dtype, shape, byte_strides, byte_offset):
        if 0 in shape:  # an empty view may sit past the end of its storage (e.g. t[5:] of 3 elements)
            return np.empty(shape, np_dtype)
        return np.ndarray(shape, np_dtype, buffer=data, offset=byte_offset, strides=byte_strides)

    def data_ptr(self, data):
        return data.__array_interface__["data"][0]

    def copy_bytes(self, dst, dst_offset, src, src_offset, nbytes):
        _bytes(dst)[dst_offset:dst_offset + nbytes] = _bytes(src)[src_offset:src_offset + nbytes]

    def to_host_bytes(self, data, offset, nbytes):
        return _bytes(data)[offset:offset + nbytes].copy()


class MetaStorageBackend(StorageBackend):
    """No memory at all: meta tensors carry sizes, strides and dtypes only."""

    def allocate(self, nbytes, device):
        return None

    def as_array(self, data, np_dtype, shape, byte_strides, byte_offset):
        raise NotImplementedError("Cannot access data of a tensor on the 'meta' device: it has no data")

    def data_ptr(self, data):
        return 0

    def copy_bytes(self, dst, dst_offset, src, src_offset, nbytes):
        pass

    def to_host_bytes(self, data, offset, nbytes):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")


def _bytes(arr: np.ndarray) -> np.ndarray:
    """A flat uint8 view of a contiguous NumPy buffer."""
    if arr.dtype == np.uint8 and arr.ndim == 1:
        return arr
    return arr.reshape(-1).view(np.uint8)


_backends: dict[str, StorageBackend] = {"cpu": CPUStorageBackend(), "meta": MetaStorageBackend()}
_create_hooks: dict[str, object] = {}


def register_storage_backend(device_type: str, backend: StorageBackend) -> None:
    """Install the storage backend of a device type (``"privateuseone"`` for the custom device)."""
    _backends[device_type] = backend


def storage_backend(device_type: str) -> StorageBackend:
    try:
        return _backends[device_type]
    except KeyError:
        if device_type == CUDA:
            raise cuda_not_enabled() from None
        raise RuntimeError(f"No storage backend registered for device type '{device_type}'. Import the "
                           f"backend package (openreg.backends) first.") from None


def set_storage_create_hook(device_type: str, fn) -> None:
    """Call ``fn(nbytes, allocator_result)`` once for each new storage of ``device_type``; None removes it.

    >>> import openreg
    >>> seen = []
    >>> openreg.utils.set_storage_create_hook("cpu", lambda n, data: seen.append(n))
    >>> _ = openreg.UntypedStorage(16)
    >>> openreg.utils.set_storage_create_hook("cpu", None)
    >>> seen
    [16]
    """
    from .devices import canonical_type
    key = canonical_type(device_type) if device_type != "meta" else "meta"
    if fn is None:
        _create_hooks.pop(key, None)
    else:
        if not callable(fn):
            raise TypeError(f"set_storage_create_hook expects a callable or None, got {type(fn).__name__}")
        _create_hooks[key] = fn


class UntypedStorage:
    """Bytes on a device. ``UntypedStorage(nbytes, device=...)`` allocates; views share one storage."""

    __slots__ = (
        "__weakref__",
        "_backend",
        "_base",
        "_base_offset",
        "_data",
        "_nbytes",
        "_pinned_by",
        "_resizable",
        "device",
    )

    def __init__(self, nbytes: int = 0, *, device=None):
        dev = CPU if device is None else Device(device)
        if isinstance(nbytes, bool) or not isinstance(nbytes, int):
            raise TypeError(f"UntypedStorage(): argument 'size' must be int, not {type(nbytes).__name__}")
        if nbytes < 0:
            raise RuntimeError(f"Storage size must be non-negative, got {nbytes}")
        if dev._type == PRIVATEUSE1 and dev.index is None:
            from .privateuse1_hooks import current_device_index
            dev = Device(PRIVATEUSE1, current_device_index())
        self._init(storage_backend(dev._type).allocate(nbytes, dev), nbytes, dev)

    def _init(self, data, nbytes: int, dev: Device, *, notify: bool = True) -> None:
        self._data = data
        self._nbytes = nbytes
        self.device = dev
        self._backend = _backends[dev._type]
        self._base = None
        self._base_offset = 0
        self._pinned_by = None
        self._resizable = True
        if notify:
            if dev._type != "cpu":
                self._backend.on_create(self)
            if _create_hooks:
                hook = _create_hooks.get(dev._type)
                if hook is not None:
                    hook(nbytes, data)

    @classmethod
    def _wrap(cls, data, nbytes: int, dev: Device, *, notify: bool = True,
              resizable: bool = True) -> UntypedStorage:
        """A storage over an existing backend buffer (kernels' results; from_numpy's, not ``resizable``)."""
        self = object.__new__(cls)
        self._init(data, nbytes, dev, notify=notify)
        self._resizable = resizable
        return self

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def __len__(self) -> int:
        return self._nbytes

    def data_ptr(self) -> int:
        return self._backend.data_ptr(self._data) + self._base_offset if self._data is not None else 0

    @property
    def is_cpu(self) -> bool:
        return self.device._type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self.device._type == "meta"

    def element_size(self) -> int:
        return 1

    def _array(self, np_dtype, shape, byte_strides, byte_offset):
        return self._backend.as_array(self._data, np_dtype, shape, byte_strides,
                                      byte_offset + self._base_offset)

    def resize_(self, nbytes: int) -> UntypedStorage:
        """Grow or shrink to ``nbytes``, keeping the common prefix of the data."""
        if nbytes < 0:
            raise RuntimeError(f"Storage size must be non-negative, got {nbytes}")
        if self._base is not None:
            raise RuntimeError("Trying to resize storage that is not resizable (it is a slice of another "
                               "storage)")
        if not self._resizable:
            raise RuntimeError("Trying to resize storage that is not resizable (its memory belongs to another "
                               "library: from_numpy, from_dlpack)")
        new = self._backend.allocate(nbytes, self.device)
        keep = min(nbytes, self._nbytes)
        if keep and new is not None:
            self._backend.copy_bytes(new, 0, self._data, 0, keep)
        self._data, self._nbytes = new, nbytes
        return self

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(self._nbytes)
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            view = object.__new__(UntypedStorage)
            view._init(self._data, max(0, stop - start), self.device, notify=False)
            view._base = self
            view._base_offset = self._base_offset + start
            view._pinned_by = self._pinned_by
            return view
        if isinstance(idx, int):
            if idx < 0:
                idx += self._nbytes
            if not 0 <= idx < self._nbytes:
                raise IndexError(f"index {idx} out of range for storage of size {self._nbytes}")
            return int(self._backend.to_host_bytes(self._data, self._base_offset + idx, 1)[0])
        raise TypeError(f"storage indices must be int or slice, not {type(idx).__name__}")

    def tolist(self) -> list:
        return self._backend.to_host_bytes(self._data, self._base_offset, self._nbytes).tolist()

    def cpu(self) -> UntypedStorage:
        """A CPU copy (or self when already on the CPU)."""
        if self.device._type == "cpu":
            return self
        host = self._backend.to_host_bytes(self._data, self._base_offset, self._nbytes)
        return UntypedStorage._wrap(host, self._nbytes, CPU)

    def clone(self) -> UntypedStorage:
        out = UntypedStorage(self._nbytes, device=self.device)
        self._backend.copy_bytes(out._data, 0, self._data, self._base_offset, self._nbytes)
        return out

    def share_memory_(self) -> UntypedStorage:
        """Move this CPU storage's bytes to shared memory in place (see ``openreg.multiprocessing``)."""
        from .multiprocessing.reductions import share_storage
        return share_storage(self)

    def is_shared(self) -> bool:
        """Whether this storage lives in shared memory."""
        from .multiprocessing.reductions import is_shared
        return is_shared(self)

    def is_pinned(self, device=None) -> bool:
        """Whether this CPU storage is in page-locked memory registered with the device backend."""
        from . import privateuse1_hooks
        return privateuse1_hooks.storage_is_pinned(self, device)

    def pin_memory(self, device=None) -> UntypedStorage:
        """A copy of this CPU storage in page-locked memory (see ``Tensor.pin_memory``)."""
        from . import privateuse1_hooks
        return privateuse1_hooks.pin_storage(self, device)

    def __repr__(self) -> str:
        return f"UntypedStorage(nbytes={self._nbytes}, device='{self.device}')"

    def __reduce__(self):
        from .serialization._rebuild import reduce_storage
        return reduce_storage(self)


__all__ = [
    "META",
    "StorageBackend",
    "UntypedStorage",
    "register_storage_backend",
    "set_storage_create_hook",
    "storage_backend",
]


from .typed_storage import TypedStorage  # noqa: F401  (torch.storage.TypedStorage)
