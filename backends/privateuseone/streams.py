"""Streams and events of the PrivateUse1 device (``torch.cuda.Stream``/``Event`` semantics).

Each device has a default stream; ``current_stream(device)`` is per thread and per device and changes
inside ``with stream(s):`` (or ``with s:``). Events record a point on a stream; other streams can wait for
it, the host can query or wait for it, and two timing events give the elapsed milliseconds.

>>> import openreg
>>> pu = openreg.privateuseone
>>> s = pu.Stream()
>>> start, end = pu.Event(enable_timing=True), pu.Event(enable_timing=True)
>>> with pu.stream(s):
...     start.record()
...     end.record()
>>> end.synchronize(); start.elapsed_time(end) >= 0.0, pu.current_stream() == s
(True, False)
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from openreg.devices import PRIVATEUSE1
from openreg.devices import device as Device

from . import state
from .driver_select import get_driver

_tls = threading.local()
_defaults: dict[tuple[int, int], Stream] = {}


class Stream:
    """A queue of device work on one device; ``Stream(device=None, priority=0)`` creates a new one."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        handle = kwargs.pop("_handle", None)
        if kwargs:
            raise TypeError(f"Stream() got unexpected keyword arguments {sorted(kwargs)}")
        self.device_index = state.device_index(device)
        self.priority = priority
        self._driver = get_driver()
        self._handle = handle if handle is not None else self._driver.create_stream(self.device_index, priority)

    @property
    def device(self) -> Device:
        return Device(PRIVATEUSE1, self.device_index)

    @property
    def stream_id(self) -> int:
        return int(self._handle.id)

    def query(self) -> bool:
        """Whether all work submitted to this stream has completed."""
        return self._driver.stream_query(self._handle)

    def synchronize(self) -> None:
        """Wait for all work submitted to this stream."""
        self._driver.stream_synchronize(self._handle)

    def wait_event(self, event: Event) -> None:
        """Make all future work on this stream wait for ``event`` (no-op if it was never recorded)."""
        if event._handle is not None:
            self._driver.stream_wait_event(self._handle, event._handle)

    def wait_stream(self, stream: Stream) -> None:
        """Make all future work on this stream wait for the work currently queued on ``stream``."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one if None) on this stream and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> Stream:  # noqa: PYI034
        self._ctx = stream(self)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        ctx, self._ctx = self._ctx, None
        ctx.__exit__(*exc)

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other._handle is self._handle

    def __hash__(self) -> int:
        return hash((self.device_index, id(self._handle)))

    def __repr__(self) -> str:
        return f"<openreg.{self.device.type}.Stream device={self.device} stream_id={self.stream_id}>"


def default_stream(device=None) -> Stream:
    """The default stream of a device."""
    index = state.device_index(device)
    drv = get_driver()
    key = (id(drv), index)
    s = _defaults.get(key)
    if s is None or s._driver is not drv:
        s = _defaults[key] = Stream(index, _handle=drv.default_stream(index))
    return s


def _current_map() -> dict:
    m = getattr(_tls, "streams", None)
    if m is None:
        m = _tls.streams = {}
    return m


def current_stream(device=None) -> Stream:
    """The calling thread's current stream on a device (its default stream unless changed)."""
    if device.__class__ is int:
        # A device index, as the kernels pass it: a stream already made for it (current or default) on this
        # driver needs no check of the index (it was checked when the stream was made).
        drv = get_driver()
        s = _current_map().get(device)
        if s is None:
            s = _defaults.get((id(drv), device))
        if s is not None and s._driver is drv:
            return s
    index = state.device_index(device)
    s = _current_map().get(index)
    if s is None or s._driver is not get_driver():
        return default_stream(index)
    return s


def set_stream(s: Stream) -> None:
    """Make ``s`` the current stream of its device (for the calling thread)."""
    _current_map()[s.device_index] = s


@contextlib.contextmanager
def stream(s: Stream | None) -> Iterator[None]:
    """Run the block with ``s`` as the current stream (and its device as the current device)."""
    if s is None:
        yield
        return
    if not isinstance(s, Stream):
        raise TypeError(f"stream(): expected an openreg Stream, got {type(s).__name__}")
    prev_device = state.current_index()
    prev_stream = _current_map().get(s.device_index)
    state.set_current_index(s.device_index)
    set_stream(s)
    try:
        yield
    finally:
        if prev_stream is None:
            _current_map().pop(s.device_index, None)
        else:
            set_stream(prev_stream)
        state.set_current_index(prev_device)


class Event:
    """A marker in a stream: ``record``, ``wait``, ``query``, ``synchronize``, ``elapsed_time``."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        if interprocess:
            raise NotImplementedError(f"Event(interprocess=True) is not supported on the "
                                      f"'{Device(PRIVATEUSE1).type}' device")
        self.enable_timing = enable_timing
        self.blocking = blocking
        self._handle = None
        self._device_index: int | None = None
        self._driver = None

    @property
    def device(self) -> Device | None:
        return None if self._device_index is None else Device(PRIVATEUSE1, self._device_index)

    def record(self, stream: Stream | None = None) -> None:
        """Record the event at the current end of ``stream`` (default: the current stream)."""
        s = current_stream() if stream is None else stream
        if self._handle is None:
            self._driver = s._driver
            self._handle = s._driver.create_event(s.device_index, self.enable_timing)
            self._device_index = s.device_index
        elif self._device_index != s.device_index:
            raise RuntimeError(f"Event device {self.device} does not match recording stream's device {s.device}.")
        s._driver.event_record(self._handle, s._handle)

    def wait(self, stream: Stream | None = None) -> None:
        """Make future work on ``stream`` (default: current) wait for this event."""
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        """Whether the work before the event has completed (True if never recorded)."""
        return True if self._handle is None else self._driver.event_query(self._handle)

    def synchronize(self) -> None:
        """Wait until the work before the event has completed."""
        if self._handle is not None:
            self._driver.event_synchronize(self._handle)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event to ``end_event`` (both recorded with ``enable_timing=True``)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._handle is None or end_event._handle is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        end_event.synchronize()
        return self._driver.event_elapsed_ms(self._handle, end_event._handle)

    def __repr__(self) -> str:
        return f"<openreg.{Device(PRIVATEUSE1).type}.Event {'recorded' if self._handle else 'uninitialized'}>"


__all__ = ["Event", "Stream", "current_stream", "default_stream", "set_stream", "stream"]
