"""``openreg.cuda`` while openreg's device is not named ``cuda``: a CPU-only PyTorch build's ``torch.cuda``.

``is_available()`` is False and ``device_count()`` 0; seeding calls are accepted and deferred (only the latest
``manual_seed`` and ``manual_seed_all`` are kept, as PyTorch's lazy seed tracker does) and run if the device
is renamed ``cuda`` later; statistics of the never-initialized device are empty; every call that needs a
device raises PyTorch's ``AssertionError: Torch not compiled with CUDA enabled``, extended with how to turn
openreg's device into ``cuda``.

>>> from openreg import _cuda_unavailable as cuda
>>> cuda.is_available(), cuda.device_count(), cuda.manual_seed(0)
(False, 0, None)
>>> cuda.current_device()
Traceback (most recent call last):
...
AssertionError: Torch not compiled with CUDA enabled: ... set OPENREG_DEVICE_NAME=cuda ...
"""
from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable

from ._absent_device import availability, function, memory_queries
from .devices import cuda_not_enabled

# Deferred calls, replayed by ``run_deferred`` when the device becomes "cuda" (PyTorch's _lazy_call queue).
_seed_calls: dict[str, Callable[[], None]] = {}    # "seed" / "seed_all" -> latest call, in call order
_queued: list[Callable[[], None]] = []


def _device_module():
    import openreg
    return openreg.privateuseone


def _queue_seed(kind: str, call: Callable[[], None]) -> None:
    _seed_calls.pop(kind, None)   # the latest of the two kinds runs last
    _seed_calls[kind] = call


def run_deferred() -> None:
    """Run the deferred seeding calls on the device (called when it is renamed ``cuda``)."""
    calls = list(_seed_calls.values()) + _queued
    _seed_calls.clear()
    _queued.clear()
    for call in calls:
        call()


is_available, device_count, is_initialized = availability("CUDA")
is_bf16_supported = function("is_bf16_supported(including_emulation=True)", False)


def manual_seed(seed) -> None:
    """Deferred: seeds the current device once openreg's device is named ``cuda``."""
    seed = int(seed)
    _queue_seed("seed", lambda: _device_module().manual_seed(seed))


def manual_seed_all(seed) -> None:
    """Deferred: seeds every device once openreg's device is named ``cuda``."""
    seed = int(seed)
    _queue_seed("seed_all", lambda: _device_module().manual_seed_all(seed))


def seed() -> None:
    _queued.append(lambda: _device_module().seed())


def seed_all() -> None:
    _queued.append(lambda: _device_module().seed_all())


def set_rng_state(new_state, device="cuda") -> None:
    _queued.append(lambda: _device_module().set_rng_state(new_state, device))


def get_rng_state_all() -> list:
    return []


def set_rng_state_all(new_states) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


default_generators: tuple = ()


for _name in ("init", "current_device", "set_device", "synchronize", "initial_seed", "get_rng_state",
              "mem_get_info", "current_stream", "default_stream", "set_stream", "get_device_name",
              "get_device_properties", "get_device_capability", "reset_peak_memory_stats",
              "reset_accumulated_memory_stats", "set_per_process_memory_fraction", "ipc_collect",
              "memory_summary", "memory_snapshot", "memory_cached", "max_memory_cached", "reset_max_memory_allocated",
              "reset_max_memory_cached", "get_per_process_memory_fraction", "set_sync_debug_mode",
              "get_sync_debug_mode", "make_graphed_callables", "graph_pool_handle"):
    globals()[_name] = function(f"{_name}(*args, **kwargs)", raises=cuda_not_enabled, doc="Needs a ``cuda`` "
                                f"device: raises PyTorch's CPU-build AssertionError ({_name}).")

memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved, memory_stats = memory_queries(
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats")


def empty_cache() -> None:
    """Nothing is cached on a device that was never initialized."""


def get_arch_list() -> list:
    """No CUDA architectures: empty, as a CPU-only PyTorch build."""
    return []


def is_current_stream_capturing() -> bool:
    """False: nothing can capture without a device."""
    return False


class CUDAGraph:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph" + _HINT)


class graph:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph" + _HINT)


def _nvtx_missing(*args, **kwargs):
    raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?" + _HINT)


class device:
    """``with openreg.cuda.device(i)``: None/-1 change nothing; a real index needs a device."""

    def __init__(self, device):
        self.idx = -1 if device is None or device == -1 else device

    def __enter__(self):
        if self.idx != -1:
            raise RuntimeError("PyTorch was compiled without CUDA support" + _HINT)
        return self

    def __exit__(self, *exc) -> bool:
        return False


class device_of(device):
    def __init__(self, obj):
        super().__init__(obj.device.index if obj.device.type == "cuda" else -1)


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support" + _HINT)


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event" + _HINT)


@contextlib.contextmanager
def stream(stream):
    """``stream(None)`` is a no-op; a stream cannot exist without a ``cuda`` device."""
    if stream is not None:
        raise cuda_not_enabled()
    yield


_HINT = " (openreg: set OPENREG_DEVICE_NAME=cuda to run on openreg's device under the name 'cuda')"


def __getattr__(name: str):
    if name in ("memory", "random", "streams", "graphs"):   # torch.cuda's submodules: these same functions
        return sys.modules[__name__]
    if name == "nvtx":
        import types
        return types.SimpleNamespace(**dict.fromkeys(("range_push", "range_pop", "range_start", "range_end", "mark",
                                                      "range"), _nvtx_missing))
    if name == "amp":
        from . import _cuda_amp
        return _cuda_amp
    from .legacy_tensor_types import CUDA_UNAVAILABLE_TYPES
    if name in CUDA_UNAVAILABLE_TYPES:  # calling one raises PyTorch's CPU-build TypeError
        return CUDA_UNAVAILABLE_TYPES[name]
    raise AttributeError(f"module 'openreg.cuda' has no attribute '{name}'")
