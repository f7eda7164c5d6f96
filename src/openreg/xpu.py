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

from ._absent_device import accepted_seeds, availability, function, memory_queries

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


is_available, device_count, is_initialized = availability("XPU")
is_bf16_supported = function("is_bf16_supported(including_emulation=True)", False)
is_tf32_supported = function("is_tf32_supported()", False)
get_arch_list = function("get_arch_list()", [], doc="The XPU architectures openreg is built for: none.")

init = function("init()", raises=_not_compiled)
current_device = function("current_device()", raises=_not_compiled)
set_device = function("set_device(device)", raises=_not_compiled)
synchronize = function("synchronize(device=None)", raises=_not_compiled)
get_device_name = function("get_device_name(device=None)", raises=_not_compiled)
get_device_capability = function("get_device_capability(device=None)", raises=_not_compiled)
get_device_properties = function("get_device_properties(device=None)", raises=_not_compiled)
mem_get_info = function("mem_get_info(device=None)", raises=_not_compiled)
set_per_process_memory_fraction = function("set_per_process_memory_fraction(fraction, device=None)",
                                           raises=_not_compiled)
current_stream = function("current_stream(device=None)", raises=_not_compiled)
reset_peak_memory_stats = function("reset_peak_memory_stats(device=None)", raises=_not_compiled)

initial_seed = function("initial_seed()", raises=_not_compiled)
get_rng_state = function("get_rng_state(device='xpu')", raises=_not_compiled)
get_rng_state_all = function("get_rng_state_all()", [], doc="One state per device: none.")
set_rng_state = function("set_rng_state(new_state, device='xpu')", doc="Accepted; PyTorch defers it until the "
                         "device is initialized, which never happens without XPU.")
set_rng_state_all = function("set_rng_state_all(new_states)", doc="One state per device: there are none.")
manual_seed, manual_seed_all, seed, seed_all = accepted_seeds("XPU")

empty_cache = function("empty_cache()", doc="Release cached XPU memory: none is ever cached.")
memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved, memory_stats = memory_queries(
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
    stats=OrderedDict())


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
