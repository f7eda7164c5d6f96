"""The driver protocol of the PrivateUse1 device: what a driver must do for N devices.

A driver owns raw device memory (``Segment``), copies between host and device memory (synchronous and on
a stream), streams, events, device-wide synchronisation, the array module kernels compute with, and page-
locked host memory. The caching allocator (``allocator.py``) sits on top of ``raw_alloc``/``raw_free``;
the storage backend, the copy kernels and the device module only talk to this interface.

A driver implements only what drivers really differ in (the abstract methods below: 13), plus the handle
types of its streams and events (:class:`StreamHandle`, :class:`EventHandle`, whose methods are CuPy's
``Stream``/``Event`` operations). Everything else -- the three copy directions over one ``memcpy``, uploads,
total memory, default streams, the stream/event calls, GEMMs -- is shared here.

Two implementations: ``emulated_driver.EmulatedDriver`` (host buffers kept apart from CPU tensors, NumPy)
and ``cuda_driver.CudaDriver`` (CuPy). ``driver_select.get_driver()`` picks one.

>>> from openreg.backends.privateuseone.driver import Driver, Segment
>>> from openreg.backends.privateuseone.driver_select import get_driver
>>> isinstance(get_driver(), Driver)
True
"""
from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np


class DriverOutOfMemory(Exception):
    """Raised by ``Driver.raw_alloc`` when the device cannot provide the bytes (the allocator reports it)."""


class Segment:
    """A run of raw device memory obtained from a driver: ``nbytes`` bytes at address ``ptr``.

    ``mem`` is the driver's own handle (a NumPy uint8 buffer for the emulated driver, a
    ``cupy.cuda.MemoryPointer`` for the cuda driver).

    >>> Segment(0, 512, 4096, None).nbytes
    512
    """

    __slots__ = ("device", "mem", "nbytes", "ptr", "view")

    def __init__(self, device: int, nbytes: int, ptr: int, mem: Any):
        self.device = device
        self.nbytes = nbytes
        self.ptr = ptr
        self.mem = mem
        # (shape, dtype, array): the last array a storage backend made over ``mem`` from its start, kept for
        # the next allocation of the same shape and dtype from this segment (dropped when it goes back)
        self.view = None

    def __repr__(self) -> str:
        return f"Segment(device={self.device}, nbytes={self.nbytes}, ptr=0x{self.ptr:x})"


class StreamHandle(abc.ABC):
    """A driver's stream: ``device`` and ``priority``, and the operations that differ between drivers."""

    device: int
    priority: int

    @abc.abstractmethod
    def synchronize(self) -> None:
        """Wait for everything queued on the stream."""

    @abc.abstractmethod
    def query(self) -> bool:
        """Whether all work queued on the stream has completed."""

    @abc.abstractmethod
    def wait_event(self, event: EventHandle) -> None:
        """Make future work on the stream wait for ``event``."""


class EventHandle(abc.ABC):
    """A driver's event: ``device``, ``enable_timing`` and the operations that differ between drivers."""

    device: int
    enable_timing: bool

    @abc.abstractmethod
    def record(self, stream: StreamHandle) -> None:
        """Record the event at the current end of ``stream``."""

    @abc.abstractmethod
    def query(self) -> bool:
        """Whether the work before the recorded event has completed."""

    @abc.abstractmethod
    def synchronize(self) -> None:
        """Wait for the recorded event."""

    @abc.abstractmethod
    def elapsed_ms(self, end: EventHandle) -> float:
        """Milliseconds from this recorded timing event to ``end``."""


class Driver(abc.ABC):
    """The interface every PrivateUse1 driver implements (device indices are plain ints)."""

    name: str = "abstract"

    def __init__(self) -> None:
        self._default_streams: dict[int, StreamHandle] = {}

    # -- what a driver implements --------------------------------------------------------------------------
    @property
    @abc.abstractmethod
    def array_module(self):
        """The module kernels compute with on this driver (``numpy`` or ``cupy``)."""

    @abc.abstractmethod
    def device_count(self) -> int:
        """How many devices this driver drives."""

    @abc.abstractmethod
    def properties(self, index: int) -> dict:
        """``name``, ``total_memory``, ``multi_processor_count``, ``major``, ``minor`` of device ``index``."""

    @abc.abstractmethod
    def mem_get_info(self, index: int) -> tuple[int, int]:
        """``(free, total)`` bytes of device ``index`` as the driver sees them."""

    @abc.abstractmethod
    def synchronize(self, index: int) -> None:
        """Wait for all work queued on device ``index``."""

    @abc.abstractmethod
    def raw_alloc(self, index: int, nbytes: int) -> Segment:
        """``nbytes`` of fresh device memory; raises ``DriverOutOfMemory`` when the device is full."""

    @abc.abstractmethod
    def as_array(self, segment: Segment, byte_offset: int, np_dtype, shape: tuple, byte_strides: tuple):
        """An array of ``array_module`` viewing device memory (no copy)."""

    @abc.abstractmethod
    def memcpy(self, dst: int, dst_device: int | None, src: int, src_device: int | None, nbytes: int,
               stream: StreamHandle | None = None, host: np.ndarray | None = None) -> None:
        """Copy ``nbytes`` from address ``src`` to ``dst``; a ``None`` device is host memory, two devices make
        a peer copy. With a ``stream`` the copy is queued there, and ``host`` (the host array of the copy)
        is kept alive until it has run."""

    @abc.abstractmethod
    def download(self, arr) -> np.ndarray:
        """A NumPy copy of a device array (any strides)."""

    @abc.abstractmethod
    def to_device(self, arr, index: int):
        """A contiguous copy of device array ``arr`` on device ``index``."""

    @abc.abstractmethod
    def create_stream(self, index: int, priority: int = 0, *, default: bool = False) -> StreamHandle:
        """A new stream on device ``index`` (``default``: the handle of the device's default stream)."""

    @abc.abstractmethod
    def create_event(self, index: int, enable_timing: bool) -> EventHandle:
        """A new event on device ``index``."""

    @abc.abstractmethod
    def alloc_pinned(self, nbytes: int) -> tuple[np.ndarray, Any]:
        """Page-locked host memory: ``(uint8 NumPy array over it, owner handle)``; freed with the handle."""

    # -- shared by every driver ------------------------------------------------------------------------------
    def total_memory(self, index: int) -> int:
        """Total bytes of device ``index``."""
        return self.mem_get_info(index)[1]

    @contextlib.contextmanager
    def using_device(self, index: int) -> Iterator[None]:
        """Make ``index`` the driver's current device inside the block (no-op where that means nothing)."""
        yield

    @contextlib.contextmanager
    def using_stream(self, stream: StreamHandle) -> Iterator[None]:
        """Queue array-module work on ``stream`` inside the block."""
        yield

    def raw_free(self, segment: Segment) -> None:
        """Give a segment back to the device (dropping the driver's handle of it)."""
        segment.mem = None

    def release_cached(self, index: int) -> None:
        """Return memory cached below the driver (e.g. CuPy's pool) to the device."""

    def memcpy_htod(self, dst: Segment, dst_offset: int, src: np.ndarray, stream: StreamHandle | None = None) -> None:
        """Copy a contiguous host uint8 array into device memory (asynchronously when ``stream`` is given)."""
        self.memcpy(dst.ptr + dst_offset, dst.device, src.ctypes.data, None, src.nbytes, stream, host=src)

    def memcpy_dtoh(self, dst: np.ndarray, src: Segment, src_offset: int, stream: StreamHandle | None = None) -> None:
        """Copy ``dst.nbytes`` bytes of device memory into a contiguous host uint8 array."""
        self.memcpy(dst.ctypes.data, None, src.ptr + src_offset, src.device, dst.nbytes, stream, host=dst)

    def memcpy_dtod(self, dst: Segment, dst_offset: int, src: Segment, src_offset: int, nbytes: int,
                    stream: StreamHandle | None = None) -> None:
        """Copy between device memory, also across devices (peer copy)."""
        self.memcpy(dst.ptr + dst_offset, dst.device, src.ptr + src_offset, src.device, nbytes, stream)

    def upload(self, host: np.ndarray, index: int):
        """A temporary device array (of ``array_module``) on device ``index`` holding ``host``'s values."""
        with self.using_device(index):
            return self.array_module.array(np.ascontiguousarray(host), copy=True)

    def gemm(self, a, b, out=None):
        """Matrix product of device arrays (cuBLAS through CuPy on the cuda driver)."""
        return self.array_module.matmul(a, b, out=out)

    def gemm_16bit(self, a, b, out, kind: str, alpha: float = 1.0, beta: float = 0.0):
        """``out = alpha * a @ b + beta * out`` for float16/bfloat16 storage arrays: float32 accumulation, one
        rounding (``gemm_16bit.py``; cuBLAS gemmEx on the cuda driver)."""
        from .gemm_16bit import host_gemm_16bit
        return host_gemm_16bit(self.array_module, a, b, out, kind, alpha, beta)

    # -- streams and events: the handles' own operations --------------------------------------------------
    def default_stream(self, index: int) -> StreamHandle:
        """The handle of device ``index``'s default stream (one per device)."""
        stream = self._default_streams.get(index)
        if stream is None:   # two threads may race here: both get the handle stored first
            stream = self._default_streams.setdefault(index, self.create_stream(index, default=True))
        return stream

    def stream_synchronize(self, stream: StreamHandle) -> None:
        stream.synchronize()

    def stream_query(self, stream: StreamHandle) -> bool:
        return stream.query()

    def stream_wait_event(self, stream: StreamHandle, event: EventHandle) -> None:
        stream.wait_event(event)

    def event_record(self, event: EventHandle, stream: StreamHandle) -> None:
        event.record(stream)

    def event_query(self, event: EventHandle) -> bool:
        return event.query()

    def event_synchronize(self, event: EventHandle) -> None:
        event.synchronize()

    def event_elapsed_ms(self, start: EventHandle, end: EventHandle) -> float:
        return start.elapsed_ms(end)


__all__ = ["Driver", "DriverOutOfMemory", "EventHandle", "Segment", "StreamHandle"]
