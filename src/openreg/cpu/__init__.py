"""``openreg.cpu``: PyTorch's ``torch.cpu`` device module, for device-agnostic code. The CPU runs every operator
synchronously on the calling thread, so its streams and events only keep the API: ``synchronize()`` has nothing
to wait for, and ``stream(s)`` makes ``s`` the current stream for the block.

>>> import openreg
>>> openreg.cpu.is_available(), openreg.cpu.device_count(), openreg.cpu.current_device()
(True, 1, 'cpu')
>>> s = openreg.cpu.Stream()
>>> with openreg.cpu.stream(s):
...     openreg.cpu.current_stream() is s
True
"""
from __future__ import annotations

from contextlib import AbstractContextManager

from . import amp  # noqa: F401  (openreg.cpu.amp.autocast)

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count", "is_available",
           "is_initialized", "set_device", "stream", "synchronize"]


def is_available() -> bool:
    """True: the CPU is always there."""
    return True


def is_initialized() -> bool:
    """True: nothing to initialise."""
    return True


def device_count() -> int:
    """1: one CPU device."""
    return 1


def current_device() -> str:
    """``"cpu"``, as PyTorch."""
    return "cpu"


def set_device(device) -> None:
    """Nothing to select: there is one CPU device."""


def synchronize(device=None) -> None:
    """Wait for the CPU's work: every CPU operator has finished when it returns, so there is nothing to wait for."""


class Stream:
    """A CPU stream (work on the CPU runs in order on the calling thread).

    >>> import openreg
    >>> openreg.cpu.Stream().query()
    True
    """

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self, event=None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass


class Event:
    """A CPU event: complete as soon as it is recorded."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing

    def record(self, stream=None) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass


_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


def current_stream(device=None) -> Stream:
    """The stream selected by the innermost ``stream(...)`` block (the default stream otherwise)."""
    return _current_stream


class StreamContext(AbstractContextManager):
    """Make ``stream`` the current CPU stream inside a ``with`` block (``None`` leaves it unchanged)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self) -> None:
        global _current_stream
        if self.stream is not None:
            self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, *exc: object) -> None:
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream: Stream | None) -> AbstractContextManager:
    """``StreamContext(stream)``."""
    return StreamContext(stream)
