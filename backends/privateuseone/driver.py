"""The driver protocol of the PrivateUse1 device: what a driver must do for N devices.

A driver owns raw device memory (``Segment``), copies between host and device memory (synchronous and on
a stream), streams, events, device-wide synchronisation, the array module kernels compute with, and page-
locked host memory. The caching allocator (``allocator.py``) sits on top of ``raw_alloc``/``raw_free``;
the storage backend, the copy kernels and the device module only talk to this interface.

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

    __slots__ = ("device", "mem", "nbytes", "ptr")

    def __init__(self, device: int, nbytes: int, ptr: int, mem: Any):
        self.device = device
        self.nbytes = nbytes
        self.ptr = ptr
        self.mem = mem

    def __repr__(self) -> str:
        return f"Segment(device={self.device}, nbytes={self.nbytes}, ptr=0x{self.ptr:x})"


class Driver(abc.ABC):
    """The interface every PrivateUse1 driver implements (device indices are plain ints)."""

    name: str = "abstract"

    # -- devices -----------------------------------------------------------------------------------------
    @property
    @abc.abstractmethod
    def array_module(self):
        """The module kernels compute with on this driver (``numpy`` or ``cupy``)."""

    @abc.abstractmethod
    def device_count(self) -> int:
        """How many devices this driver drives."""

    @abc.abstractmethod
    def total_memory(self, index: int) -> int:
        """Total bytes of device ``index``."""

    @abc.abstractmethod
    def properties(self, index: int) -> dict:
        """``name``, ``total_memory``, ``multi_processor_count``, ``major``, ``minor`` of device ``index``."""

    @abc.abstractmethod
    def mem_get_info(self, index: int) -> tuple[int, int]:
        """``(free, total)`` bytes of device ``index`` as the driver sees them."""

    @abc.abstractmethod
    def synchronize(self, index: int) -> None:
        """Wait for all work queued on device ``index``."""

    @contextlib.contextmanager
    def using_device(self, index: int) -> Iterator[None]:
        """Make ``index`` the driver's current device inside the block (no-op where that means nothing)."""
        yield

    # -- raw memory ------------------------------------------------------------------------------------
    @abc.abstractmethod
    def raw_alloc(self, index: int, nbytes: int) -> Segment:
        """``nbytes`` of fresh device memory; raises ``DriverOutOfMemory`` when the device is full."""

    @abc.abstractmethod
    def raw_free(self, segment: Segment) -> None:
        """Give a segment back to the device."""

    def release_cached(self, index: int) -> None:
        """Return memory cached below the driver (e.g. CuPy's pool) to the device."""

    @abc.abstractmethod
    def as_array(self, segment: Segment, byte_offset: int, np_dtype, shape: tuple, byte_strides: tuple):
        """An array of ``array_module`` viewing device memory (no copy)."""

    # -- copies ------------------------------------------------------------------------------------------
    @abc.abstractmethod
    def memcpy_htod(self, dst: Segment, dst_offset: int, src: np.ndarray, stream: Any = None) -> None:
        """Copy a contiguous host uint8 array into device memory (asynchronously when ``stream`` is given)."""

    @abc.abstractmethod
    def memcpy_dtoh(self, dst: np.ndarray, src: Segment, src_offset: int, stream: Any = None) -> None:
        """Copy ``dst.nbytes`` bytes of device memory into a contiguous host uint8 array."""

    @abc.abstractmethod
    def memcpy_dtod(self, dst: Segment, dst_offset: int, src: Segment, src_offset: int, nbytes: int,
                    stream: Any = None) -> None:
        """Copy between device memory, also across devices (peer copy)."""

    @abc.abstractmethod
    def upload(self, host: np.ndarray, index: int):
        """A temporary device array (of ``array_module``) on device ``index`` holding ``host``'s values."""

    @abc.abstractmethod
    def download(self, arr) -> np.ndarray:
        """A NumPy copy of a device array (any strides)."""

    @abc.abstractmethod
    def to_device(self, arr, index: int):
        """A contiguous copy of device array ``arr`` on device ``index``."""

    def gemm(self, a, b, out=None):
        """Matrix product of device arrays (cuBLAS through CuPy on the cuda driver)."""
        return self.array_module.matmul(a, b, out=out)

    def gemm_16bit(self, a, b, out, kind: str, alpha: float = 1.0, beta: float = 0.0):
        """``out = alpha * a @ b + beta * out`` for float16/bfloat16 storage arrays: float32 accumulation, one
        rounding (``gemm_16bit.py``; cuBLAS gemmEx on the cuda driver)."""
        from .gemm_16bit import host_gemm_16bit
        return host_gemm_16bit(self.array_module, a, b, out, kind, alpha, beta)

    # -- streams and events -------------------------------------------------------------------------------
    @abc.abstractmethod
    def default_stream(self, index: int) -> Any:
        """The handle of device ``index``'s default stream."""

    @abc.abstractmethod
    def create_stream(self, index: int, priority: int = 0) -> Any:
        """A new stream handle on device ``index``."""

    @abc.abstractmethod
    def stream_synchronize(self, stream: Any) -> None:
        """Wait for everything queued on ``stream``."""

    @abc.abstractmethod
    def stream_query(self, stream: Any) -> bool:
        """Whether all work queued on ``stream`` has completed."""

    @abc.abstractmethod
    def stream_wait_event(self, stream: Any, event: Any) -> None:
        """Make future work on ``stream`` wait for ``event``."""

    @abc.abstractmethod
    def create_event(self, index: int, enable_timing: bool) -> Any:
        """A new event handle on device ``index``."""

    @abc.abstractmethod
    def event_record(self, event: Any, stream: Any) -> None:
        """Record ``event`` at the current end of ``stream``."""

    @abc.abstractmethod
    def event_query(self, event: Any) -> bool:
        """Whether the work before the recorded event has completed."""

    @abc.abstractmethod
    def event_synchronize(self, event: Any) -> None:
        """Wait for the recorded event."""

    @abc.abstractmethod
    def event_elapsed_ms(self, start: Any, end: Any) -> float:
        """Milliseconds between two recorded timing events."""

    @contextlib.contextmanager
    def using_stream(self, stream: Any) -> Iterator[None]:
        """Queue array-module work on ``stream`` inside the block."""
        yield

    # -- page-locked host memory -----------------------------------------------------------------------
    @abc.abstractmethod
    def alloc_pinned(self, nbytes: int) -> tuple[np.ndarray, Any]:
        """Page-locked host memory: ``(uint8 NumPy array over it, owner handle)``; freed with the handle."""


__all__ = ["Driver", "DriverOutOfMemory", "Segment"]
