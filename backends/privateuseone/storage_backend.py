"""The storage backend of the PrivateUse1 device: storages own ``DeviceAllocation``s from the caching
allocator, arrays view device memory in place, and byte copies go through the driver.

A ``DeviceAllocation`` returns its block to the allocator's cache when it is garbage collected, i.e. when
the last storage (or storage slice) referencing it is gone.

>>> import openreg
>>> pu = openreg.privateuseone
>>> before = pu.memory_allocated(0)
>>> s = openreg.UntypedStorage(100, device="privateuseone:0")
>>> pu.memory_allocated(0) - before
512
>>> del s; pu.memory_allocated(0) - before
0
"""
from __future__ import annotations

import weakref

import numpy as np

from openreg.devices import PRIVATEUSE1
from openreg.devices import device as Device
from openreg.storage import StorageBackend

from . import state
from .allocator import CachingAllocator, get_allocator


class DeviceAllocation:
    """``nbytes`` of device memory on device ``device`` (a cached block; nothing for zero bytes)."""

    __slots__ = ("__weakref__", "_finalizer", "block", "device", "nbytes", "ptr", "segment")

    def __init__(self, allocator: CachingAllocator, device: int, nbytes: int):
        self.device = device
        self.nbytes = nbytes
        if nbytes == 0:
            self.block = self.segment = self._finalizer = None
            self.ptr = 0
            return
        self.block = allocator.malloc(device, nbytes)
        self.segment = self.block.segment
        self.ptr = self.block.ptr
        self._finalizer = weakref.finalize(self, allocator.free, self.block)
        self._finalizer.atexit = False

    @classmethod
    def foreign(cls, segment) -> DeviceAllocation:
        """Device memory owned elsewhere (e.g. imported through DLPack): ``segment.mem`` keeps the owner
        alive; nothing is returned to the allocator and the memory statistics do not count it."""
        self = object.__new__(cls)
        self.device, self.nbytes, self.ptr, self.segment = segment.device, segment.nbytes, segment.ptr, segment
        self.block = self._finalizer = None
        return self

    def __repr__(self) -> str:
        return f"DeviceAllocation(device={self.device}, nbytes={self.nbytes}, ptr=0x{self.ptr:x})"


def allocation_of(data) -> DeviceAllocation:
    if not isinstance(data, DeviceAllocation):
        raise TypeError(f"expected device memory, got {type(data).__name__}")
    return data


class PrivateUse1StorageBackend(StorageBackend):
    """``openreg.storage.StorageBackend`` for the ``privateuseone`` device type."""

    @property
    def array_module(self):
        from .driver_select import get_driver
        return get_driver().array_module

    def allocate(self, nbytes: int, device: Device) -> DeviceAllocation:
        index = state.device_index(device)
        return DeviceAllocation(get_allocator(), index, nbytes)

    def as_array(self, data, np_dtype, shape, byte_strides, byte_offset):
        alloc = allocation_of(data)
        drv = get_allocator().driver
        if 0 in shape:  # an empty view may sit past the end of its storage (e.g. as_strided((0,), (1,), 10**5))
            return drv.array_module.empty(tuple(shape), np_dtype)
        if alloc.segment is None:
            raise RuntimeError(f"cannot view a zero-byte '{PRIVATEUSE1}' storage with shape {list(shape)}")
        return drv.as_array(alloc.segment, byte_offset, np_dtype, tuple(shape), tuple(byte_strides))

    def data_ptr(self, data) -> int:
        return allocation_of(data).ptr

    def copy_bytes(self, dst, dst_offset, src, src_offset, nbytes):
        if nbytes:
            get_allocator().driver.memcpy_dtod(dst.segment, dst_offset, src.segment, src_offset, nbytes)

    def to_host_bytes(self, data, offset, nbytes):
        out = np.empty(nbytes, dtype=np.uint8)
        if nbytes:
            get_allocator().driver.memcpy_dtoh(out, allocation_of(data).segment, offset)
        return out

    def adopt(self, arr, device):
        drv = get_allocator().driver
        xp = drv.array_module
        if not hasattr(arr, "strides") or not hasattr(arr, "nbytes") or isinstance(arr, np.generic):
            arr = xp.asarray(arr)
        index = state.device_index(device)
        alloc = DeviceAllocation(get_allocator(), index, int(arr.nbytes))
        # Keep a dense permuted layout (a transposed input's ufunc result), as PyTorch's TensorIterator does.
        strides = tuple(arr.strides) if _is_dense_permutation(arr) else _contiguous_bytes(arr.shape, arr.itemsize)
        view = self.as_array(alloc, arr.dtype, tuple(arr.shape), strides, 0)
        if arr.size:
            with drv.using_device(index):
                view[...] = arr
        return alloc, view

    def to_host_array(self, tensor) -> np.ndarray:
        return get_allocator().driver.download(tensor._array())


def _is_dense_permutation(arr) -> bool:
    """Whether the array's elements fill one block with no gaps, in some order of its dims."""
    if arr.flags.c_contiguous:
        return False  # the contiguous strides are what we'd pick anyway
    if any(s < 0 for s in arr.strides):
        return False
    order = sorted(range(arr.ndim), key=lambda d: (-arr.strides[d], -arr.shape[d]))
    return bool(arr.transpose(order).flags.c_contiguous)


def _contiguous_bytes(shape, itemsize: int) -> tuple:
    strides, acc = [], itemsize
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


__all__ = ["DeviceAllocation", "PrivateUse1StorageBackend"]
