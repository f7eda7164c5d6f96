"""Pinned (page-locked) host memory for fast and asynchronous copies to and from the device.

``pin_storage`` copies a CPU storage into page-locked memory from the driver (``cupy.cuda.alloc_pinned_memory``
on the cuda driver, page-aligned host buffers on the emulated driver) and tracks the address range; a CPU
storage is pinned when its memory lies in a tracked range. The entry disappears when the pinned storage
(with all its slices, tensors and views) is garbage collected.

>>> import openreg
>>> from openreg.backends.privateuseone import pinned_memory
>>> t = openreg.ones(4).pin_memory()
>>> t.is_pinned(), t.as_strided((3,), (1,), 1).is_pinned(), openreg.ones(4).is_pinned()
(True, True, False)
>>> before = pinned_memory.tracked_count(); del t; pinned_memory.tracked_count() == before - 1
True
"""
from __future__ import annotations

import bisect
import threading
import weakref

from openreg.devices import CPU, PRIVATEUSE1, privateuse1_name
from openreg.devices import device as Device
from openreg.storage import UntypedStorage

from .driver_select import get_driver

_lock = threading.Lock()
_starts: list[int] = []               # sorted start addresses of pinned ranges
_ends: dict[int, int] = {}            # start -> end (exclusive)


class PinnedBuffer:
    """Ownership of one page-locked allocation; unregisters its range when garbage collected."""

    __slots__ = ("__weakref__", "nbytes", "owner", "start")

    def __init__(self, start: int, nbytes: int, owner):
        self.start = start
        self.nbytes = nbytes
        self.owner = owner
        _register(start, nbytes)
        fin = weakref.finalize(self, _unregister, start)
        fin.atexit = False


def _register(start: int, nbytes: int) -> None:
    with _lock:
        if start in _ends:          # a zero-byte buffer at a reused address: keep one entry per address
            _ends[start] = max(_ends[start], start + nbytes)
            return
        bisect.insort(_starts, start)
        _ends[start] = start + nbytes


def _unregister(start: int) -> None:
    with _lock:
        if _ends.pop(start, None) is not None:
            i = bisect.bisect_left(_starts, start)
            if i < len(_starts) and _starts[i] == start:
                del _starts[i]


def tracked_count() -> int:
    """How many pinned allocations are currently tracked (for leak tests)."""
    with _lock:
        return len(_starts)


def is_pinned_ptr(ptr: int) -> bool:
    """Whether host address ``ptr`` lies in tracked page-locked memory."""
    with _lock:
        i = bisect.bisect_right(_starts, ptr) - 1
        return i >= 0 and ptr < _ends[_starts[i]]


def check_device_arg(device) -> None:
    """``pin_memory``/``is_pinned`` accept no device or a device of the PrivateUse1 backend."""
    if device is None:
        return
    dev = Device(device) if not isinstance(device, int) or isinstance(device, bool) else Device(PRIVATEUSE1, device)
    if dev._type != PRIVATEUSE1:
        raise RuntimeError(f"pin_memory: pinned memory is provided by the '{privateuse1_name()}' backend, got "
                           f"device '{dev}'")


def storage_is_pinned(storage: UntypedStorage, device=None) -> bool:
    """Whether a CPU storage is in page-locked memory."""
    check_device_arg(device)
    if storage.device._type != "cpu":
        return False
    owner = storage._pinned_by
    if owner is not None and _ends.get(owner.start) is not None:
        return True
    if storage.nbytes() == 0:
        return False
    return is_pinned_ptr(storage.data_ptr())


def pin_storage(storage: UntypedStorage, device=None) -> UntypedStorage:
    """A copy of a CPU storage in page-locked memory."""
    check_device_arg(device)
    if storage.device._type != "cpu":
        raise TypeError(f"cannot pin 'openreg.UntypedStorage' on device '{storage.device}': "
                        "only CPU memory can be pinned")
    nbytes = storage.nbytes()
    out = _pinned_storage(nbytes)
    if nbytes:
        out._data[...] = storage._backend.to_host_bytes(storage._data, storage._base_offset, nbytes)
    return out


def _pinned_storage(nbytes: int) -> UntypedStorage:
    """``nbytes`` of page-locked memory as a CPU storage; as PyTorch's, it cannot be resized (it would leave
    the page-locked buffer)."""
    buf, owner = get_driver().alloc_pinned(nbytes)
    out = UntypedStorage._wrap(buf, nbytes, CPU, resizable=False)
    out._pinned_by = PinnedBuffer(int(buf.ctypes.data), nbytes, owner)
    return out


def tensor_pin_memory(self, device=None):
    """A copy of this CPU tensor in page-locked memory (``self`` when it already is pinned).

    >>> import openreg
    >>> openreg.tensor([0, 1, 2]).pin_memory().tolist()
    [0, 1, 2]
    """
    if self._storage.device._type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    check_device_arg(device)
    if storage_is_pinned(self._storage):
        return self
    from openreg.storage_bounds import storage_nbytes
    from openreg.tensor import Tensor
    # As PyTorch: a buffer just large enough for the view's sizes and strides (not the whole base storage).
    pinned = _pinned_storage(storage_nbytes(self._size, self._stride, self._dtype.itemsize))
    out = Tensor._make(pinned, self._size, self._stride, 0, self._dtype)
    out._qparams = self._qparams
    if out.numel():
        out._array()[...] = self._array()
    return out


__all__ = [
    "PinnedBuffer",
    "is_pinned_ptr",
    "pin_storage",
    "storage_is_pinned",
    "tensor_pin_memory",
    "tracked_count",
]
