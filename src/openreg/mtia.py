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


def is_available() -> bool:
    """False: no MTIA device."""
    return False


def device_count() -> int:
    """0: no MTIA device."""
    return 0


def is_initialized() -> bool:
    return False


def init() -> None:
    raise _not_compiled()


def initial_seed() -> int:
    raise _not_compiled()


def get_rng_state(device: Any = "mtia") -> Any:
    raise _not_compiled()


def set_rng_state(new_state: Any, device: Any = "mtia") -> None:
    raise _without("getCurrentDevice")


def current_device() -> int:
    raise _without("getCurrentDevice")


def set_device(device: Any) -> None:
    raise _without("setCurrentDevice")


def synchronize(device: Any = None) -> None:
    raise _without("getCurrentDevice")


def get_device_capability(device: Any = None) -> tuple[int, int]:
    raise _without("getCurrentDevice")


def current_stream(device: Any = None) -> Any:
    raise _without("getCurrentDevice")


def default_stream(device: Any = None) -> Any:
    raise _without("getCurrentDevice")


def empty_cache() -> None:
    raise _without("emptyCache")


def manual_seed(seed: int) -> None:
    """Checked as an int and accepted; no MTIA generator to seed (PyTorch defers it)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    int(seed)


def seed() -> None:
    """Accepted; no MTIA generator to seed."""


def seed_all() -> None:
    """Accepted; no MTIA generator to seed."""


def memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing is allocated on a device that does not exist."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    return 0


def memory_stats(device: Any = None) -> dict[str, Any]:
    """The statistics of the never-initialized device: empty."""
    return {}


def reset_peak_memory_stats(device: Any = None) -> None:
    """Reset the peaks of the never-initialized device: there are none."""


class device:
    """``with openreg.mtia.device(i):`` needs the device: entering raises (index -1 selects nothing)."""

    def __init__(self, device: Any) -> None:
        self.idx = device if isinstance(device, int) or device is None else getattr(device, "index", device)

    def __enter__(self) -> None:
        if self.idx not in (-1, None):
            raise _without("maybeExchangeDevice")

    def __exit__(self, *exc: object) -> None:
        return None


def stream(stream: Any) -> Any:
    raise _without("getCurrentDevice")


class Stream:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _without("getCurrentDevice")


class Event:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _without("getCurrentDevice")
