"""``openreg.mps``: Apple's Metal device does not exist in openreg; this is ``torch.mps`` of a PyTorch build without
MPS, consistent with ``openreg.backends.mps`` (``is_available()`` and ``is_built()`` False).

``device_count()`` is 0 and ``manual_seed`` is accepted (PyTorch skips it when MPS is unavailable); every call
that needs the device raises PyTorch's ``RuntimeError: Cannot execute <call>() without MPS backend.``

>>> import openreg
>>> openreg.mps.is_available(), openreg.mps.device_count()
(False, 0)
>>> openreg.mps.empty_cache()
Traceback (most recent call last):
...
RuntimeError: Cannot execute emptyCache() without MPS backend.
"""
from __future__ import annotations

from typing import Any

__all__ = [
    "Event", "current_allocated_memory", "device_count", "driver_allocated_memory", "empty_cache",
    "get_rng_state", "is_available", "manual_seed", "recommended_max_memory", "seed",
    "set_per_process_memory_fraction", "set_rng_state", "synchronize",
]


def _without(call: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {call}() without MPS backend.")


def is_available() -> bool:
    """False: no MPS device (``openreg.backends.mps.is_available()``)."""
    from .backends import mps
    return mps.is_available()


def device_count() -> int:
    """0: no MPS device."""
    return 0


def synchronize() -> None:
    raise _without("deviceSynchronize")


def manual_seed(seed: int) -> None:
    """Accepted and skipped, as PyTorch does when MPS is unavailable."""


def seed() -> None:
    raise _without("getDefaultGenerator")


def get_rng_state(device: Any = "mps") -> Any:
    raise _without("getDefaultGenerator")


def set_rng_state(new_state: Any, device: Any = "mps") -> None:
    raise _without("getDefaultGenerator")


def empty_cache() -> None:
    raise _without("emptyCache")


def set_per_process_memory_fraction(fraction: float) -> None:
    raise _without("setMemoryFraction")


def current_allocated_memory() -> int:
    raise _without("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    raise _without("getDriverAllocatedMemory")


def recommended_max_memory() -> int:
    raise _without("getRecommendedMaxMemory")


class Event:
    """An MPS event needs the device: creating one raises."""

    def __init__(self, enable_timing: bool = False) -> None:
        raise _without("acquireEvent")
