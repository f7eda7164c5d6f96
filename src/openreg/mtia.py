"""``openreg.mtia``: Meta's MTIA device does not exist in openreg; this is ``torch.mtia`` of a PyTorch build without
MTIA.

``is_available()`` is False and ``device_count()`` 0; memory statistics of the never-initialized device are zero or
empty; seeding calls are accepted with no generator to seed (PyTorch defers them until the device is initialized);
calls that need the device raise PyTorch's errors: ``RuntimeError: Cannot execute <call>() without MTIA backend.``
for the runtime's calls, ``AssertionError: Torch not compiled with MTIA enabled`` for initialization and the
generator's state.

>>> import openreg
>>> openreg.mtia.is_available(), openreg.mtia.device_count(), openreg.mtia.memory_stats()
(False, 0, {})
>>> openreg.mtia.synchronize()
Traceback (most recent call last):
...
RuntimeError: Cannot execute getCurrentDevice() without MTIA backend.
"""
from __future__ import annotations

from typing import Any

from ._absent_device import accepted_seeds, availability, function, memory_queries

__all__ = [
    "Event", "Stream", "current_device", "current_stream", "default_stream", "device", "device_count",
    "empty_cache", "get_device_capability", "get_rng_state", "init", "initial_seed", "is_available",
    "is_initialized", "manual_seed", "manual_seed_all", "max_memory_allocated", "memory_allocated",
    "memory_stats", "reset_peak_memory_stats", "seed", "seed_all", "set_device", "set_rng_state", "stream",
    "synchronize",
]


def _without(call: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {call}() without MTIA backend.")


def _not_compiled() -> AssertionError:
    return AssertionError("Torch not compiled with MTIA enabled (openreg has no MTIA device)")


def _no_device() -> RuntimeError:
    return _without("getCurrentDevice")


is_available, device_count, is_initialized = availability("MTIA")
init = function("init()", raises=_not_compiled)
initial_seed = function("initial_seed()", raises=_not_compiled)
get_rng_state = function("get_rng_state(device='mtia')", raises=_not_compiled)
set_rng_state = function("set_rng_state(new_state, device='mtia')", raises=_no_device)

current_device = function("current_device()", raises=_no_device)
set_device = function("set_device(device)", raises=lambda: _without("setCurrentDevice"))
synchronize = function("synchronize(device=None)", raises=_no_device)
get_device_capability = function("get_device_capability(device=None)", raises=_no_device)
current_stream = function("current_stream(device=None)", raises=_no_device)
default_stream = function("default_stream(device=None)", raises=_no_device)
empty_cache = function("empty_cache()", raises=lambda: _without("emptyCache"))

manual_seed, manual_seed_all, seed, seed_all = accepted_seeds("MTIA")
memory_allocated, max_memory_allocated, memory_stats = memory_queries(
    "memory_allocated", "max_memory_allocated", "memory_stats")
reset_peak_memory_stats = function("reset_peak_memory_stats(device=None)",
                                   doc="Reset the peaks of the never-initialized device: there are none.")


class device:
    """``with openreg.mtia.device(i):`` needs the device: entering raises (index -1 selects nothing)."""

    def __init__(self, device: Any) -> None:
        self.idx = device if isinstance(device, int) or device is None else getattr(device, "index", device)

    def __enter__(self) -> None:
        if self.idx not in (-1, None):
            raise _without("maybeExchangeDevice")

    def __exit__(self, *exc: object) -> None:
        return None


stream = function("stream(stream)", raises=_no_device)


class Stream:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _no_device()


class Event:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _no_device()
