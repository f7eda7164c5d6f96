"""The cuda driver: PrivateUse1 devices are CUDA GPUs driven through CuPy.

* memory: one ``cupy.cuda.MemoryPool`` per device; the caching allocator takes its segments from it;
* arrays: ``cupy.ndarray(shape, dtype, cupy.cuda.MemoryPointer(mem, offset), strides)`` views openreg
  storage in place (no copy);
* copies: ``cudaMemcpy[Async]`` / ``cudaMemcpyPeer[Async]`` through ``cupy.cuda.runtime``;
* streams and events: ``cupy.cuda.Stream`` / ``cupy.cuda.Event``;
* page-locked host memory: ``cupy.cuda.alloc_pinned_memory``; GEMMs: ``cupy.matmul`` (cuBLAS).

CuPy is imported inside functions only, so importing this module never needs a GPU.

>>> from openreg.backends.privateuseone.cuda_driver import CudaDriver
>>> CudaDriver.name
'cuda'
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from openreg.dtypes import raw_storage_numpy

from .driver import Driver, DriverOutOfMemory, EventHandle, Segment, StreamHandle


def _cupy():
    import cupy
    return cupy


class CudaStream(StreamHandle):
    """A CuPy stream bound to its device."""

    __slots__ = ("cupy_stream", "device", "is_default", "priority")

    def __init__(self, device: int, cupy_stream: Any, priority: int = 0, is_default: bool = False):
        self.device = device
        self.cupy_stream = cupy_stream
        self.priority = priority
        self.is_default = is_default

    @property
    def id(self) -> int:
        return int(self.cupy_stream.ptr)

    @property
    def ptr(self) -> int:
        return int(self.cupy_stream.ptr)

    def synchronize(self) -> None:
        with _cupy().cuda.Device(self.device):
            self.cupy_stream.synchronize()

    def query(self) -> bool:
        with _cupy().cuda.Device(self.device):
            return bool(self.cupy_stream.done)

    def wait_event(self, event: CudaEvent) -> None:
        with _cupy().cuda.Device(self.device):
            self.cupy_stream.wait_event(event.cupy_event)


class CudaEvent(EventHandle):
    """A CuPy event bound to its device."""

    __slots__ = ("cupy_event", "device", "enable_timing")

    def __init__(self, device: int, cupy_event: Any, enable_timing: bool):
        self.device = device
        self.cupy_event = cupy_event
        self.enable_timing = enable_timing

    def record(self, stream: CudaStream) -> None:
        with _cupy().cuda.Device(stream.device):
            self.cupy_event.record(stream.cupy_stream)

    def query(self) -> bool:
        return bool(self.cupy_event.done)

    def synchronize(self) -> None:
        self.cupy_event.synchronize()

    def elapsed_ms(self, end: CudaEvent) -> float:
        return float(_cupy().cuda.get_elapsed_time(self.cupy_event, end.cupy_event))


class CudaDriver(Driver):
    """CUDA devices through CuPy (an H100 or any GPU CuPy supports)."""

    name = "cuda"

    def __init__(self):
        super().__init__()
        cp = _cupy()
        self._count = int(cp.cuda.runtime.getDeviceCount())
        if self._count < 1:
            raise RuntimeError("the cuda driver found no CUDA device")
        self._pools: dict[int, Any] = {}
        self._pending: list[tuple[Any, Any]] = []     # (event, host object kept alive for an async copy)
        self._lock = threading.Lock()
        # CuPy's own temporaries (kernel results before they are adopted) come from the same per-device pools.
        cp.cuda.set_allocator(self._malloc_on_current_device)

    def _malloc_on_current_device(self, nbytes: int):
        return self.pool(int(_cupy().cuda.runtime.getDevice())).malloc(nbytes)

    @property
    def array_module(self):
        return _cupy()

    def device_count(self) -> int:
        return self._count

    def _device(self, index: int):
        return _cupy().cuda.Device(index)

    @contextlib.contextmanager
    def using_device(self, index: int) -> Iterator[None]:
        with self._device(index):
            yield

    def properties(self, index: int) -> dict:
        props = _cupy().cuda.runtime.getDeviceProperties(index)
        name = props["name"]
        return {"name": name.decode() if isinstance(name, bytes) else str(name),
                "total_memory": int(props["totalGlobalMem"]),
                "multi_processor_count": int(props["multiProcessorCount"]),
                "major": int(props["major"]), "minor": int(props["minor"])}

    def mem_get_info(self, index: int) -> tuple[int, int]:
        with self._device(index):
            free, total = _cupy().cuda.runtime.memGetInfo()
        return int(free), int(total)

    def synchronize(self, index: int) -> None:
        with self._device(index):
            _cupy().cuda.runtime.deviceSynchronize()
        self._prune(all_done=False)

    # -- raw memory -------------------------------------------------------------------------------------
    def pool(self, index: int):
        """The ``cupy.cuda.MemoryPool`` of device ``index`` (created on first use)."""
        with self._lock:
            pool = self._pools.get(index)
            if pool is None:
                with self._device(index):
                    pool = self._pools[index] = _cupy().cuda.MemoryPool()
            return pool

    def raw_alloc(self, index: int, nbytes: int) -> Segment:
        cp = _cupy()
        pool = self.pool(index)
        try:
            with self._device(index):
                memptr = pool.malloc(nbytes)
        except cp.cuda.memory.OutOfMemoryError as exc:
            raise DriverOutOfMemory(str(exc)) from None
        return Segment(index, nbytes, int(memptr.ptr), memptr)

    def release_cached(self, index: int) -> None:
        pool = self._pools.get(index)
        if pool is not None:
            with self._device(index):
                pool.free_all_blocks()

    def as_array(self, segment, byte_offset, np_dtype, shape, byte_strides):
        cp = _cupy()
        memptr = segment.mem
        base = memptr.mem
        view_ptr = cp.cuda.MemoryPointer(base, int(memptr.ptr) - int(base.ptr) + byte_offset)
        # bfloat16/float8 (ml_dtypes types on the host) are kept as raw bits: kernels widen them.
        return cp.ndarray(shape, raw_storage_numpy(np_dtype), view_ptr, byte_strides)

    # -- copies -----------------------------------------------------------------------------------------
    def memcpy(self, dst, dst_device, src, src_device, nbytes, stream=None, host=None):
        rt = _cupy().cuda.runtime
        if src_device is None or dst_device is None:
            kind = rt.memcpyHostToDevice if src_device is None else rt.memcpyDeviceToHost
            args, peer = (dst, src, nbytes, kind), False
        elif dst_device == src_device:
            args, peer = (dst, src, nbytes, rt.memcpyDeviceToDevice), False
        else:
            args, peer = (dst, dst_device, src, src_device, nbytes), True
        with self._device(src_device if dst_device is None else dst_device):
            if stream is None:
                (rt.memcpyPeer if peer else rt.memcpy)(*args)
            else:
                (rt.memcpyPeerAsync if peer else rt.memcpyAsync)(*args, stream.ptr)
                if host is not None:
                    self._keep_alive(stream, host)

    def upload(self, host, index):
        # CuPy cannot hold ml_dtypes' bfloat16/float8: their raw bits travel (kernels widen them).
        cp = _cupy()
        host = np.ascontiguousarray(host)
        with self._device(index):
            return cp.asarray(host.view(raw_storage_numpy(host.dtype)))

    def download(self, arr):
        return _cupy().asnumpy(arr)

    def to_device(self, arr, index):
        cp = _cupy()
        src_dev = int(arr.device.id)
        with self._device(src_dev):
            src = cp.ascontiguousarray(arr)
        if src_dev == index:
            return src
        with self._device(index):
            out = cp.empty(src.shape, src.dtype)
            cp.cuda.runtime.memcpyPeer(out.data.ptr, index, src.data.ptr, src_dev, src.nbytes)
        return out

    def gemm_16bit(self, a, b, out, kind, alpha=1.0, beta=0.0):
        # bfloat16 has no CuPy dtype: cuBLAS reads the raw 16-bit buffers (gemm_16bit.cublas_gemm_16bit).
        from . import gemm_16bit
        return gemm_16bit.cublas_gemm_16bit(_cupy(), a, b, out, kind, alpha, beta)

    # -- streams and events -----------------------------------------------------------------------------
    def create_stream(self, index, priority=0, *, default=False):
        if default:
            return CudaStream(index, _cupy().cuda.Stream.null, 0, is_default=True)
        with self._device(index):
            return CudaStream(index, _cupy().cuda.Stream(non_blocking=True, priority=priority), priority)

    def stream_synchronize(self, stream):
        super().stream_synchronize(stream)
        self._prune(all_done=False)     # host buffers of finished asynchronous copies can go

    def create_event(self, index, enable_timing):
        with self._device(index):
            return CudaEvent(index, _cupy().cuda.Event(block=False, disable_timing=not enable_timing),
                             enable_timing)

    @contextlib.contextmanager
    def using_stream(self, stream) -> Iterator[None]:
        with self._device(stream.device), stream.cupy_stream:
            yield

    # -- page-locked host memory ------------------------------------------------------------------------
    def alloc_pinned(self, nbytes):
        mem = _cupy().cuda.alloc_pinned_memory(max(nbytes, 1))
        return np.frombuffer(mem, dtype=np.uint8, count=nbytes), mem

    # -- keeping host buffers alive until asynchronous copies finish ------------------------------------
    def _keep_alive(self, stream: CudaStream, obj: Any) -> None:
        ev = _cupy().cuda.Event(block=False, disable_timing=True)
        ev.record(stream.cupy_stream)
        with self._lock:
            self._pending.append((ev, obj))
        self._prune(all_done=False)

    def _prune(self, all_done: bool) -> None:
        with self._lock:
            self._pending = [(ev, obj) for ev, obj in self._pending if not (all_done or ev.done)]


__all__ = ["CudaDriver", "CudaEvent", "CudaStream"]
