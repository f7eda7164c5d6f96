"""The storage backend of the PrivateUse1 device: storages own ``DeviceAllocation``s from the caching
allocator, arrays view device memory in place, and byte copies go through the driver.

A ``DeviceAllocation`` returns its block to the allocator's cache when it is garbage collected, i.e. when
the last storage (or storage slice) referencing it is gone.

>>> import gc, openreg
>>> pu = openreg.privateuseone
>>> _ = gc.collect()   # earlier reference cycles holding device memory must not be freed in the middle
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

from openreg import devices as _devices
from openreg.aten.structured import clear_signature_caches
from openreg.devices import PRIVATEUSE1, mark_privateuse1_used
from openreg.devices import device as Device
from openreg.dtypes import raw_storage_numpy
from openreg.storage import StorageBackend

from . import state, sync_debug
from .allocator import _REUSE_SCAN, _REUSED_BATCH, Block, CachingAllocator, get_allocator, take_released
from .driver_select import on_driver_switch

_new = object.__new__


class DeviceAllocation(Block):
    """``nbytes`` of device memory on device ``device`` (a cached block; nothing for zero bytes).

    It is its own allocator ``Block`` (``size`` the size class, ``requested`` = ``nbytes``), which goes back to
    its allocator's cache when the allocation is garbage collected.
    """

    __slots__ = ("__weakref__", "allocator", "nbytes", "ptr")

    def __init__(self, allocator: CachingAllocator, device: int, nbytes: int):
        self.device = device
        self.nbytes = self.requested = nbytes
        self.allocator = None  # set only once malloc succeeded: __del__ of a failed allocation frees nothing
        if nbytes == 0:
            self.segment = None
            self.ptr = self.size = 0
            return
        allocator.malloc(device, nbytes, self)
        self.allocator = allocator
        self.ptr = self.segment.ptr

    def __del__(self) -> None:
        allocator = self.allocator
        if allocator is not None:
            self.allocator = None
            allocator.released.append(self)    # allocator.release(self), written out: no lock, no call

    @classmethod
    def foreign(cls, segment) -> DeviceAllocation:
        """Device memory owned elsewhere (e.g. imported through DLPack): ``segment.mem`` keeps the owner
        alive; nothing is returned to the allocator and the memory statistics do not count it."""
        self = object.__new__(cls)
        self.device, self.nbytes, self.ptr, self.segment = segment.device, segment.nbytes, segment.ptr, segment
        self.requested, self.size = segment.nbytes, 0
        self.allocator = None
        return self

    def __repr__(self) -> str:
        return f"DeviceAllocation(device={self.device}, nbytes={self.nbytes}, ptr=0x{self.ptr:x})"


def _allocation(allocator: CachingAllocator, index: int, nbytes: int) -> DeviceAllocation:
    """``DeviceAllocation(allocator, index, nbytes)``; when one of the blocks released last served the same bytes
    on the same device, it is handed on here (as ``CachingAllocator.reuse`` does, accounted through ``reused``)
    without the constructor's, malloc's and reuse's calls: every device factory and kernel output asks."""
    released = allocator.released
    if released and nbytes:
        freed = take_released(released, index, nbytes)
        if freed is not None:
            reused = allocator.reused
            reused.append(freed)
            if len(reused) > _REUSED_BATCH:
                allocator.take_reused()
            segment = freed.segment
            alloc = _new(DeviceAllocation)
            alloc.segment, alloc.size, alloc.requested, alloc.device, alloc.nbytes = \
                segment, segment.nbytes, nbytes, index, nbytes
            alloc.allocator = allocator
            alloc.ptr = segment.ptr
            return alloc
    return DeviceAllocation(allocator, index, nbytes)


def allocation_of(data) -> DeviceAllocation:
    if data.__class__ is not DeviceAllocation and not isinstance(data, DeviceAllocation):
        raise TypeError(f"expected device memory, got {type(data).__name__}")
    return data


class _Context:
    """The driver in use and what the per-op paths need of it, looked up once (dropped by ``use_driver``)."""

    __slots__ = ("allocator", "device_count", "driver", "host", "xp")

    def __init__(self):
        self.allocator = get_allocator()
        self.driver = self.allocator.driver
        self.xp = self.driver.array_module
        self.host = self.xp is np          # the emulated driver: device arrays are NumPy arrays
        self.device_count = self.driver.device_count()


_ctx: _Context | None = None


def context() -> _Context:
    """The cached driver/allocator context (created on first use, after the driver is chosen)."""
    ctx = _ctx
    if ctx is None:
        ctx = _reset_context(build=True)
    return ctx


def _reset_context(build: bool = False) -> _Context | None:
    global _ctx
    _ctx = _Context() if build else None
    if not build:                   # the driver changed: backends read its array module again
        for backend in list(_array_module_holders):
            backend.__dict__.pop("array_module", None)
    return _ctx


_array_module_holders: weakref.WeakSet = weakref.WeakSet()   # backends keeping the array module


class _ArrayModule:
    """``PrivateUse1StorageBackend.array_module``: the driver's array module, kept on the backend once read (this
    descriptor has no ``__set__``, so the kept value is then found without a call; kernels ask on every call)
    and dropped when the driver changes."""

    def __get__(self, obj, cls=None):
        xp = (_ctx or context()).xp
        if obj is not None:
            obj.__dict__["array_module"] = xp
            _array_module_holders.add(obj)
        return xp


on_driver_switch(_reset_context)
on_driver_switch(clear_signature_caches)     # their plans hold the old driver's array-module ufuncs


def _index(ctx: _Context, device) -> int:
    index = device.index if device.__class__ is Device else None
    if index is not None and index.__class__ is int and 0 <= index < ctx.device_count:
        return index
    return state.device_index(device)


class PoolArray(np.ndarray):
    """A kernel output in fresh pool memory (emulated driver): ``adopt`` takes it without a copy.

    It holds its ``DeviceAllocation`` until a storage adopts it (once); arrays derived from it by
    computation are copied as usual.
    """

    _openreg_alloc: DeviceAllocation | None = None


def pool_empty(shape: tuple, np_dtype, device):
    """An uninitialised C-contiguous array for a kernel to write a result into, in fresh device memory
    when the driver is emulated (so that ``wrap_array`` does not copy it), else the array module's own.

    >>> import numpy as np, openreg
    >>> out = pool_empty((2,), np.float32, openreg.device("privateuseone:0"))
    >>> np.add(np.ones(2, np.float32), 1, out=out).tolist()
    [2.0, 2.0]
    """
    ctx = _ctx or context()
    if not ctx.host:
        return ctx.xp.empty(shape, raw_storage_numpy(np_dtype))
    np_dtype = np.dtype(np_dtype)
    nbytes = np_dtype.itemsize
    for n in shape:
        nbytes *= n
    if not nbytes:
        return np.empty(shape, np_dtype)
    alloc = _allocation(ctx.allocator, _index(ctx, device), nbytes)
    arr = np.ndarray.__new__(PoolArray, shape, np_dtype, alloc.segment.mem)
    arr._openreg_alloc = alloc
    return arr


class PrivateUse1StorageBackend(StorageBackend):
    """``openreg.storage.StorageBackend`` for the ``privateuseone`` device type."""

    array_module = _ArrayModule()

    def allocate(self, nbytes: int, device: Device) -> DeviceAllocation:
        ctx = _ctx or context()
        if not _devices._privateuse1_used:
            mark_privateuse1_used()  # from now on the backend keeps its name
        index = device.index if device.__class__ is Device else None
        if index.__class__ is not int or not 0 <= index < ctx.device_count:
            index = _index(ctx, device)
        return _allocation(ctx.allocator, index, nbytes)

    def as_array(self, data, np_dtype, shape, byte_strides, byte_offset):
        alloc = data if data.__class__ is DeviceAllocation else allocation_of(data)
        ctx = _ctx or context()
        if 0 in shape:  # an empty view may sit past the end of its storage (e.g. as_strided((0,), (1,), 10**5))
            return ctx.xp.empty(tuple(shape), np_dtype)
        segment = alloc.segment
        if segment is None:
            raise RuntimeError(f"cannot view a zero-byte '{PRIVATEUSE1}' storage with shape {list(shape)}")
        if ctx.host:    # the emulated driver's as_array, without its call
            return np.ndarray(shape, np_dtype, buffer=segment.mem, offset=byte_offset, strides=byte_strides)
        return ctx.driver.as_array(segment, byte_offset, np_dtype, tuple(shape), tuple(byte_strides))

    def data_ptr(self, data) -> int:
        return allocation_of(data).ptr

    def copy_bytes(self, dst, dst_offset, src, src_offset, nbytes):
        if nbytes:
            (_ctx or context()).driver.memcpy_dtod(dst.segment, dst_offset, src.segment, src_offset, nbytes)

    def to_host_bytes(self, data, offset, nbytes):
        if sync_debug._mode[0]:
            sync_debug.check()
        out = np.empty(nbytes, dtype=np.uint8)
        if nbytes:
            (_ctx or context()).driver.memcpy_dtoh(out, allocation_of(data).segment, offset)
        return out

    def new_buffer(self, shape: tuple, np_dtype, device):
        """Fresh row-major device memory for a kernel to write a result of ``shape`` into: ``(data, array)``."""
        ctx = _ctx or context()
        nbytes = np_dtype.itemsize
        for n in shape:
            nbytes *= n
        if not nbytes:
            return DeviceAllocation(ctx.allocator, _index(ctx, device), 0), ctx.xp.empty(shape, np_dtype)
        index = device.index
        if index.__class__ is not int or not 0 <= index < ctx.device_count:
            index = _index(ctx, device)
        # DeviceAllocation(allocator, index, nbytes), written out: this runs for every device result
        alloc = _new(DeviceAllocation)
        allocator = ctx.allocator
        segment = allocator.reuse(index, nbytes) if allocator.released else None
        if segment is not None:            # malloc's lock-free case, without its call
            alloc.segment, alloc.size, alloc.requested, alloc.device, alloc.nbytes = \
                segment, segment.nbytes, nbytes, index, nbytes
        else:
            alloc.allocator = None         # until malloc succeeded (what __del__ frees)
            alloc.device, alloc.nbytes = index, nbytes
            allocator.malloc(index, nbytes, alloc, reuse=False)
            segment = alloc.segment
        alloc.allocator = allocator
        alloc.ptr = segment.ptr
        if ctx.host:
            # The array over a reused block's memory that its last result had, when it has the same shape and
            # dtype (a device op repeated on same-sized tensors): that result is gone (its block was freed).
            view = segment.view
            if view is not None and view[1] is np_dtype and (view[0] is shape or view[0] == shape):
                return alloc, view[2]
            arr = np.ndarray(shape, np_dtype, segment.mem)
            segment.view = (shape, np_dtype, arr)
            return alloc, arr
        return alloc, ctx.driver.as_array(segment, 0, np_dtype, shape, _contiguous_bytes(shape, np_dtype.itemsize))

    def result_maker(self, shape: tuple, np_dtype, device, dtype, layout: tuple):
        """A function of no arguments giving a new tensor over fresh row-major device memory for a result of
        ``shape`` (``dtype``, its storage type ``np_dtype``) laid out as ``layout`` says (``buffer_layout`` of an
        earlier such result): ``wrap_known_buffer(*new_buffer(shape, np_dtype, device), dtype, device, layout)``,
        its ``_arr`` the array to write the result into. A structured kernel's cached signature calls it for each
        result of its ufunc. On the emulated driver it is that call specialised to the one request, written out
        in one frame: the block the previous result of the same bytes released (the last one, or one of the few
        released before it) is handed on as ``CachingAllocator.reuse`` does, its totals counted with one
        ``next``, with the array its segment last had; anything else goes to ``new_buffer``. None elsewhere."""
        ctx = _ctx or context()
        nbytes = np_dtype.itemsize
        for n in shape:
            nbytes *= n
        if not ctx.host or not nbytes or type(self).on_create is not StorageBackend.on_create:
            return None
        from openreg._array_bridge import wrap_known_buffer
        from openreg.storage import UntypedStorage, _create_hooks
        from openreg.tensor import Tensor as tensor_type
        from openreg.tensor import new_version

        index = _index(ctx, device)
        allocator = ctx.allocator
        released = allocator.released
        counter = allocator.reuse_counter(index, nbytes)
        new_buffer = self.new_buffer
        size, stride, ks, _, backend, _ = layout
        device_type = device._type

        def make():
            if released:
                try:
                    freed = released.pop()  # atomic: ours alone now
                except IndexError:          # another thread took it since the test
                    freed = None
                if freed is not None and (freed.requested != nbytes or freed.device != index):
                    released.append(freed)  # released for another request: give it back
                    freed = None
                    # take_released(released, index, nbytes) for the few released before it, written out
                    n = len(released)
                    for i in range(n - 2, max(n - 1 - _REUSE_SCAN, -1), -1):
                        try:
                            b = released[i]
                        except IndexError:  # fewer blocks (or another thread took some)
                            break
                        if b.requested == nbytes and b.device == index:
                            try:
                                freed = released.pop(i)
                            except IndexError:
                                break
                            if freed is not b:      # another thread changed the list: give it back
                                released.append(freed)
                                freed = None
                            break
                if freed is not None:
                    next(counter)
                    segment = freed.segment
                    # DeviceAllocation(allocator, index, nbytes), written out
                    alloc = _new(DeviceAllocation)
                    alloc.segment, alloc.size, alloc.requested, alloc.device, alloc.nbytes = \
                        segment, segment.nbytes, nbytes, index, nbytes
                    alloc.allocator = allocator
                    alloc.ptr = segment.ptr
                    view = segment.view
                    if view is not None and view[1] is np_dtype and (view[0] is shape or view[0] == shape):
                        arr = view[2]
                    else:
                        arr = np.ndarray(shape, np_dtype, segment.mem)
                        segment.view = (shape, np_dtype, arr)
                    # wrap_known_buffer(alloc, arr, dtype, device, layout), written out (test_signature_cache
                    # checks that they agree)
                    storage = _new(UntypedStorage)
                    storage._data = alloc
                    storage._nbytes = nbytes
                    storage.device = device
                    storage._backend = backend
                    storage._base = storage._pinned_by = None
                    storage._base_offset = 0
                    storage._resizable = True
                    if _create_hooks:
                        hook = _create_hooks.get(device_type)
                        if hook is not None:
                            hook(nbytes, alloc)
                    t = _new(tensor_type)
                    t._storage = storage
                    t._size = size
                    t._stride = stride
                    t._offset = 0
                    t._dtype = dtype
                    t._ks = ks
                    t._vc = new_version()
                    t._base = t._grad_fn = None
                    t._arr, t._arr_src = arr, alloc
                    t._rg = False
                    return t
            data, arr = new_buffer(shape, np_dtype, device)
            return wrap_known_buffer(data, arr, dtype, device, layout)
        return make

    def adopt(self, arr, device):
        ctx = _ctx or context()
        if arr.__class__ is PoolArray:
            alloc = arr._openreg_alloc
            if alloc is not None and alloc.device == _index(ctx, device):
                arr._openreg_alloc = None      # adopted once: the storage owns the memory now
                return alloc, arr.view(np.ndarray)
        if ctx.host and arr.__class__ is np.ndarray and arr.flags.c_contiguous:
            # The common case of the emulated driver, a fresh host result: one block, one copy, no other lookups.
            nbytes = arr.nbytes
            if not nbytes:
                return DeviceAllocation(ctx.allocator, _index(ctx, device), 0), np.empty(arr.shape, arr.dtype)
            index = device.index
            if index.__class__ is not int or not 0 <= index < ctx.device_count:
                index = _index(ctx, device)
            # DeviceAllocation(allocator, index, nbytes), written out as in new_buffer
            alloc = _new(DeviceAllocation)
            allocator = ctx.allocator
            released = allocator.released
            freed = None
            if released:        # malloc's hand-on of the last released block (reuse), inline
                try:
                    freed = released.pop()      # atomic: ours alone now
                except IndexError:
                    freed = None
                if freed is not None and (freed.requested != nbytes or freed.device != index):
                    released.append(freed)      # released for another request: give it back, look at the
                    freed = take_released(released, index, nbytes)      # few released before it
            if freed is not None:
                reused = allocator.reused
                reused.append(freed)
                if len(reused) > _REUSED_BATCH:
                    allocator.take_reused()
                segment = freed.segment
                alloc.segment, alloc.size, alloc.requested, alloc.device, alloc.nbytes = \
                    segment, segment.nbytes, nbytes, index, nbytes
            else:
                alloc.allocator = None          # until malloc succeeded (what __del__ frees)
                alloc.device, alloc.nbytes = index, nbytes
                allocator.malloc(index, nbytes, alloc, reuse=False)
                segment = alloc.segment
            alloc.allocator = allocator
            alloc.ptr = segment.ptr
            # the array over the block's memory its last result had, when of the same shape and dtype
            shape, dtype = arr.shape, arr.dtype
            view = segment.view
            if view is not None and view[1] is dtype and view[0] == shape:
                view = view[2]
            else:
                view = np.ndarray(shape, dtype, segment.mem)
                segment.view = (shape, dtype, view)
            view[...] = arr
            return alloc, view
        drv = ctx.driver
        xp = ctx.xp
        if not hasattr(arr, "strides") or not hasattr(arr, "nbytes") or isinstance(arr, np.generic):
            arr = xp.asarray(arr)
        if not ctx.host and isinstance(arr, np.ndarray):  # a host result (bfloat16/float8: as their raw bits)
            arr = drv.upload(arr, _index(ctx, device))
        index = _index(ctx, device)
        alloc = DeviceAllocation(ctx.allocator, index, int(arr.nbytes))
        # Keep a dense permuted layout (a transposed input's ufunc result), as PyTorch's TensorIterator does.
        if arr.flags.c_contiguous:
            strides = _contiguous_bytes(arr.shape, arr.itemsize)
        else:
            strides = tuple(arr.strides) if _is_dense_permutation(arr) else _contiguous_bytes(arr.shape, arr.itemsize)
        view = self.as_array(alloc, arr.dtype, tuple(arr.shape), strides, 0)
        if arr.size:
            if ctx.host:
                view[...] = arr
            else:
                with drv.using_device(index):
                    view[...] = arr
        return alloc, view

    def to_host_array(self, tensor) -> np.ndarray:
        if sync_debug._mode[0]:
            sync_debug.check()
        arr = (_ctx or context()).driver.download(tensor._array())
        return arr if arr.dtype == tensor._dtype.numpy else arr.view(tensor._dtype.numpy)


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


__all__ = ["DeviceAllocation", "PoolArray", "PrivateUse1StorageBackend", "context", "pool_empty"]
