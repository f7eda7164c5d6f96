"""``openreg.xpu``: Intel's XPU device does not exist in openreg; this is ``torch.xpu`` of a PyTorch build without XPU.

``is_available()`` is False and ``device_count()`` 0; the memory statistics of the never-initialized device are
zero or empty; seeding calls are accepted and have no device to seed (PyTorch queues them until a device is
initialized, which never happens here); every call that needs the device (``current_device``, ``set_device``,
``synchronize``, ``get_rng_state``, ``Stream()``, ...) raises PyTorch's
``AssertionError: Torch not compiled with XPU enabled``.

>>> import openreg
>>> openreg.xpu.is_available(), openreg.xpu.device_count(), openreg.xpu.memory_allocated()
(False, 0, 0)
>>> openreg.xpu.synchronize()
Traceback (most recent call last):
...
AssertionError: Torch not compiled with XPU enabled (openreg has no XPU device)
"""
from __future__ import annotations

import contextlib
from collections import OrderedDict
from typing import Any

__all__ = [
    "Event", "Stream", "current_device", "current_stream", "device", "device_count", "device_of", "empty_cache",
    "get_arch_list", "get_device_capability", "get_device_name", "get_device_properties", "get_rng_state",
    "get_rng_state_all", "init", "initial_seed", "is_available", "is_bf16_supported", "is_initialized",
    "is_tf32_supported", "manual_seed", "manual_seed_all", "max_memory_allocated", "max_memory_reserved",
    "mem_get_info", "memory_allocated", "memory_reserved", "memory_stats", "reset_peak_memory_stats", "seed",
    "seed_all", "set_device", "set_per_process_memory_fraction", "set_rng_state", "set_rng_state_all", "stream",
    "synchronize",
]


def _not_compiled() -> AssertionError:
    return AssertionError("Torch not compiled with XPU enabled (openreg has no XPU device)")


def is_available() -> bool:
    """False: no XPU device."""
    return False


def device_count() -> int:
    """0: no XPU device."""
    return 0


def is_initialized() -> bool:
    """False: the XPU device is never initialized."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list[str]:
    """The XPU architectures openreg is built for: none."""
    return []


def init() -> None:
    raise _not_compiled()


def current_device() -> int:
    raise _not_compiled()


def set_device(device: Any) -> None:
    raise _not_compiled()


def synchronize(device: Any = None) -> None:
    raise _not_compiled()


def get_device_name(device: Any = None) -> str:
    raise _not_compiled()


def get_device_capability(device: Any = None) -> dict[str, Any]:
    raise _not_compiled()


def get_device_properties(device: Any = None) -> Any:
    raise _not_compiled()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    raise _not_compiled()


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    raise _not_compiled()


def current_stream(device: Any = None) -> Any:
    raise _not_compiled()


def initial_seed() -> int:
    raise _not_compiled()


def get_rng_state(device: Any = "xpu") -> Any:
    raise _not_compiled()


def get_rng_state_all() -> list:
    """One state per device: none."""
    return []


def set_rng_state(new_state: Any, device: Any = "xpu") -> None:
    """Accepted; PyTorch defers it until the device is initialized, which never happens without XPU."""


def set_rng_state_all(new_states: Any) -> None:
    """One state per device: there are none."""


def manual_seed(seed: int) -> None:
    """Checked as an int and accepted; there is no XPU generator to seed (PyTorch defers it)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """As ``manual_seed``, for every XPU device (none)."""
    int(seed)


def seed() -> None:
    """Accepted; no XPU generator to seed."""


def seed_all() -> None:
    """Accepted; no XPU generator to seed."""


def empty_cache() -> None:
    """Release cached XPU memory: none is ever cached."""


def memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing is allocated on a device that does not exist."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    return 0


def memory_reserved(device: Any = None) -> int:
    return 0


def max_memory_reserved(device: Any = None) -> int:
    return 0


def memory_stats(device: Any = None) -> dict[str, Any]:
    """The statistics of the never-initialized device: empty."""
    return OrderedDict()


def reset_peak_memory_stats(device: Any = None) -> None:
    raise _not_compiled()


class device:
    """``with openreg.xpu.device(i):`` needs the device: entering raises (index -1 or None selects nothing)."""

    def __init__(self, device: Any) -> None:
        self.idx = device if isinstance(device, int) or device is None else getattr(device, "index", device)

    def __enter__(self) -> None:
        if self.idx not in (-1, None):
            raise _not_compiled()

    def __exit__(self, *exc: object) -> None:
        return None


class device_of(device):
    """``device`` of a tensor's device (a CPU tensor selects nothing)."""

    def __init__(self, obj: Any) -> None:
        super().__init__(obj.get_device() if obj.device.type == "xpu" else -1)


def stream(stream: Any) -> contextlib.AbstractContextManager:
    """``with openreg.xpu.stream(None):`` selects nothing; an XPU stream cannot exist."""
    if stream is None:
        return contextlib.nullcontext()
    raise _not_compiled()


class Stream:
    """An XPU stream needs the device: creating one raises (PyTorch's dummy class without XPU)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Tried to instantiate dummy base class Stream (openreg has no XPU device)")


class Event:
    """An XPU event needs the device: creating one raises (PyTorch's dummy class without XPU)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Tried to instantiate dummy base class Event (openreg has no XPU device)")
