"""The emulated driver: PrivateUse1 devices whose memory is host memory kept apart from CPU tensors.

Each device has ``OPENREG_EMULATED_MEMORY`` bytes (default 8 GiB); there are ``OPENREG_EMULATED_DEVICES``
devices (default 2). Device memory is allocated here (aligned host buffers never shared with CPU tensors),
copies are real byte copies, and streams execute their work in submission order at submission time, so an
event is complete as soon as it is recorded and its timestamp is when the preceding work finished.

>>> from openreg.backends.privateuseone.emulated_driver import EmulatedDriver
>>> d = EmulatedDriver(devices=2, memory=1 << 20)
>>> seg = d.raw_alloc(1, 1024)
>>> d.mem_get_info(1)
(1047552, 1048576)
>>> d.raw_free(seg); d.mem_get_info(1)[0]
1048576
"""
from __future__ import annotations

import ctypes
import itertools
import os
import threading
import time

import numpy as np

from .driver import Driver, DriverOutOfMemory, EventHandle, Segment, StreamHandle

ALIGNMENT = 512          # device allocations are aligned like cudaMalloc's (256) or better
PAGE = 4096              # page-locked host buffers are page aligned


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise RuntimeError(f"{name} must be an integer, got {text!r}") from None
    if value < 0:
        raise RuntimeError(f"{name} must be non-negative, got {value}")
    return value


def aligned_buffer(nbytes: int, alignment: int) -> np.ndarray:
    """A fresh uint8 NumPy buffer of ``nbytes`` whose address is a multiple of ``alignment``."""
    raw = np.empty(nbytes + alignment, dtype=np.uint8)
    skip = (-raw.ctypes.data) % alignment
    return raw[skip:skip + nbytes]


class EmuStream(StreamHandle):
    """An emulated stream: work runs at submission, in order; ``last`` is when its last work finished."""

    _ids = itertools.count(1)

    def __init__(self, device: int, priority: int = 0, default: bool = False):
        self.device = device
        self.priority = priority
        self.id = 0 if default else next(EmuStream._ids)
        self.last = time.perf_counter()

    def __repr__(self) -> str:
        return f"EmuStream(device={self.device}, id={self.id})"

    def synchronize(self) -> None:
        """Emulated streams have no pending work."""

    def query(self) -> bool:
        return True

    def wait_event(self, event: EmuEvent) -> None:
        if event.time is not None and event.time > self.last:
            self.last = event.time

    def touch(self) -> None:
        """Work was just submitted (and so finished)."""
        self.last = time.perf_counter()


class EmuEvent(EventHandle):
    """An emulated event: ``time`` is set when recorded."""

    def __init__(self, device: int, enable_timing: bool):
        self.device = device
        self.enable_timing = enable_timing
        self.time: float | None = None

    def record(self, stream: EmuStream) -> None:
        self.time = time.perf_counter()
        stream.last = max(stream.last, self.time)

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        """The recorded work is already complete."""

    def elapsed_ms(self, end: EmuEvent) -> float:
        return (end.time - self.time) * 1000.0


class EmulatedDriver(Driver):
    """Host-memory devices with the same interface as the cuda driver."""

    name = "emulated"

    def __init__(self, devices: int | None = None, memory: int | None = None):
        super().__init__()
        self._count = _env_int("OPENREG_EMULATED_DEVICES", 2) if devices is None else devices
        self._total = _env_int("OPENREG_EMULATED_MEMORY", 8 << 30) if memory is None else memory
        self._used = [0] * self._count
        self._lock = threading.Lock()

    @property
    def array_module(self):
        return np

    def device_count(self) -> int:
        return self._count

    def properties(self, index: int) -> dict:
        # Compute capability 8.0: the emulated device implements what the kernels target at their lowest
        # architecture (sm_80: bfloat16 GEMMs with float32 accumulation), so capability checks take that path.
        return {"name": "openreg emulated device", "total_memory": self._total,
                "multi_processor_count": os.cpu_count() or 1, "major": 8, "minor": 0}

    def mem_get_info(self, index: int) -> tuple[int, int]:
        return self._total - self._used[index], self._total

    def synchronize(self, index: int) -> None:
        """All emulated work is complete when submitted: nothing to wait for."""

    # -- raw memory -------------------------------------------------------------------------------------
    def raw_alloc(self, index: int, nbytes: int) -> Segment:
        with self._lock:
            if self._used[index] + nbytes > self._total:
                raise DriverOutOfMemory(f"device {index}: {nbytes} bytes requested, "
                                        f"{self._total - self._used[index]} free")
            self._used[index] += nbytes
        try:
            buf = aligned_buffer(nbytes, ALIGNMENT)
        except MemoryError:
            with self._lock:
                self._used[index] -= nbytes
            raise DriverOutOfMemory(f"device {index}: host memory exhausted for {nbytes} bytes") from None
        return Segment(index, nbytes, buf.ctypes.data, buf)

    def raw_free(self, segment: Segment) -> None:
        with self._lock:
            self._used[segment.device] -= segment.nbytes
        segment.mem = None

    def as_array(self, segment, byte_offset, np_dtype, shape, byte_strides):
        return np.ndarray(shape, np_dtype, buffer=segment.mem, offset=byte_offset, strides=byte_strides)

    # -- copies -----------------------------------------------------------------------------------------
    def memcpy(self, dst, dst_device, src, src_device, nbytes, stream=None, host=None):
        # Device memory is host memory: every direction is one memmove (overlapping ranges are fine).
        ctypes.memmove(dst, src, nbytes)
        if stream is not None:
            stream.touch()

    def download(self, arr):
        return np.array(arr, copy=True)

    def to_device(self, arr, index):
        return np.array(arr, copy=True, order="C")

    # -- streams and events -----------------------------------------------------------------------------
    def create_stream(self, index, priority=0, *, default=False):
        return EmuStream(index, priority, default=default)

    def create_event(self, index, enable_timing):
        return EmuEvent(index, enable_timing)

    # -- page-locked host memory ------------------------------------------------------------------------
    def alloc_pinned(self, nbytes):
        buf = aligned_buffer(max(nbytes, 1), PAGE)[:nbytes]
        return buf, buf


__all__ = ["EmuEvent", "EmuStream", "EmulatedDriver", "aligned_buffer"]
