"""``openreg.privateuseone``: the device module of the PrivateUse1 backend (``torch.cuda``'s shape).

Devices, the current device and its guard, synchronisation, the driver in use, memory statistics and
limits, streams and events. Device arguments accept an ``openreg.device``, a string or an int; ``None``
or the bare backend name mean the current device.

>>> import openreg
>>> pu = openreg.privateuseone
>>> pu.is_available(), pu.device_count() >= 1, pu.driver() in ("cuda", "emulated")
(True, True, True)
>>> last = pu.device_count() - 1                 # 1 with two devices, 0 on a one-GPU machine
>>> with pu.device(last):
...     pu.current_device() == last
True
>>> pu.current_device()
0
"""
from __future__ import annotations

from typing import Any

from openreg.devices import privateuse1_name

from . import state
from .allocator import OutOfMemoryError, get_allocator
from .driver_select import available, get_driver
from .streams import Event, Stream, current_stream, default_stream, set_stream, stream


def is_available() -> bool:
    """Whether the device can be used (a driver could be created and has at least one device).

    >>> import openreg
    >>> openreg.privateuseone.is_available()
    True
    """
    return available() and get_driver().device_count() > 0


def is_initialized() -> bool:
    """Whether the driver has been created."""
    from . import driver_select
    return driver_select._driver is not None


def device_count() -> int:
    """The number of devices (``OPENREG_EMULATED_DEVICES`` on the emulated driver, default 2).

    >>> import openreg
    >>> openreg.privateuseone.device_count() >= 1
    True
    """
    return state.device_count() if available() else 0


def current_device() -> int:
    """The calling thread's current device index.

    >>> import openreg
    >>> openreg.privateuseone.current_device()
    0
    """
    return state.current_index()


def set_device(device) -> None:
    """Make ``device`` (int, string or device) the current device of the calling thread.

    >>> import openreg
    >>> last = openreg.privateuseone.device_count() - 1
    >>> openreg.privateuseone.set_device(last); openreg.privateuseone.current_device() == last
    True
    >>> openreg.privateuseone.set_device("privateuseone:0")
    """
    index = state.device_index(device)
    state.set_current_index(index)


class device:
    """Context manager that makes ``device`` current inside the block and restores the previous one
    afterwards (also when the block raises). ``None`` or ``-1`` leave the current device unchanged.

    >>> import openreg
    >>> last = f"privateuseone:{openreg.privateuseone.device_count() - 1}"
    >>> with openreg.privateuseone.device(last):
    ...     openreg.empty(1, device="privateuseone").device == openreg.device(last)
    True
    """

    def __init__(self, device: Any):
        self.idx = -1 if device is None or device == -1 else state.device_index(device)
        self.prev_idx = -1

    def __enter__(self) -> device:  # noqa: PYI034
        self.prev_idx = state.current_index()
        if self.idx != -1:
            state.set_current_index(self.idx)
        return self

    def __exit__(self, *exc) -> bool:
        state.set_current_index(self.prev_idx)
        return False


class device_of(device):
    """Like ``device``, for the device of a tensor (no-op for CPU tensors)."""

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type != "cpu" and d.type != "meta" else None)


def synchronize(device=None) -> None:
    """Wait for all work on a device (default: the current device).

    >>> import openreg
    >>> openreg.privateuseone.synchronize()
    """
    get_driver().synchronize(state.device_index(device))


def driver() -> str:
    """The driver in use: ``"cuda"`` on a machine with a usable GPU (or ``OPENREG_DRIVER=cuda``), else
    ``"emulated"``. It is the driver actually created (on first use), so a forced driver that cannot start
    raises its ``RuntimeError`` here instead of being reported as in use.

    >>> import openreg
    >>> openreg.privateuseone.driver() in ("cuda", "emulated")
    True
    """
    return get_driver().name


# -- memory ---------------------------------------------------------------------------------------------
def memory_stats(device=None) -> dict:
    """The caching allocator's statistics of a device, PyTorch's keys (``"allocated_bytes.all.current"``,
    ``"reserved_bytes.all.peak"``, ``"num_alloc_retries"``, ``"num_ooms"`` ...).

    >>> import openreg
    >>> openreg.privateuseone.memory_stats()["num_ooms"]
    0
    """
    return get_allocator().stats(state.device_index(device))


def memory_allocated(device=None) -> int:
    """Bytes currently occupied by tensors on a device (block sizes after rounding).

    >>> import openreg
    >>> pu = openreg.privateuseone
    >>> before = pu.memory_allocated(); t = openreg.empty(1000, device="privateuseone")
    >>> pu.memory_allocated() - before
    4096
    """
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None) -> int:
    """Peak of ``memory_allocated`` since start or ``reset_peak_memory_stats``.

    >>> import openreg
    >>> openreg.privateuseone.max_memory_allocated() >= openreg.privateuseone.memory_allocated()
    True
    """
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None) -> int:
    """Bytes held by the caching allocator on a device (allocated plus cached).

    >>> import openreg
    >>> openreg.privateuseone.memory_reserved() >= openreg.privateuseone.memory_allocated()
    True
    """
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None) -> int:
    """Peak of ``memory_reserved``."""
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None) -> None:
    """Set every peak statistic of a device to its current value.

    >>> import openreg
    >>> openreg.privateuseone.reset_peak_memory_stats()
    >>> openreg.privateuseone.max_memory_allocated() == openreg.privateuseone.memory_allocated()
    True
    """
    get_allocator().reset_peak(state.device_index(device))


def reset_accumulated_memory_stats(device=None) -> None:
    """Zero the accumulated statistics (totals allocated/freed, retries, OOMs) of a device."""
    get_allocator().reset_accumulated(state.device_index(device))


def empty_cache() -> None:
    """Give every cached, unused block of every device back to the driver.

    >>> import openreg
    >>> openreg.privateuseone.empty_cache()
    >>> openreg.privateuseone.memory_reserved() == openreg.privateuseone.memory_allocated()
    True
    """
    get_allocator().empty_cache()


def mem_get_info(device=None) -> tuple[int, int]:
    """``(free, total)`` bytes of a device as the driver reports them.

    >>> import openreg
    >>> free, total = openreg.privateuseone.mem_get_info()
    >>> 0 <= free <= total
    True
    """
    return get_driver().mem_get_info(state.device_index(device))


def set_per_process_memory_fraction(fraction: float, device=None) -> None:
    """Limit this process's reserved memory on a device to ``fraction`` of its total memory; allocations
    beyond it raise ``OutOfMemoryError`` (a ``RuntimeError``).

    >>> import openreg
    >>> openreg.privateuseone.set_per_process_memory_fraction(1.0)
    >>> openreg.privateuseone.set_per_process_memory_fraction(2.0)
    Traceback (most recent call last):
    ...
    ValueError: Invalid fraction value: 2.0. Allowed range: 0~1
    """
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    get_allocator().set_memory_fraction(fraction, state.device_index(device))


class DeviceProperties:
    """What ``get_device_properties`` reports (``torch.cuda``'s ``_CudaDeviceProperties`` fields)."""

    __slots__ = ("major", "minor", "multi_processor_count", "name", "total_memory")

    def __init__(self, name: str, total_memory: int, multi_processor_count: int, major: int, minor: int):
        self.name, self.total_memory, self.multi_processor_count = name, total_memory, multi_processor_count
        self.major, self.minor = major, minor

    def __repr__(self) -> str:
        return (f"_{privateuse1_name().capitalize()}DeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory >> 20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def _checked_index(device) -> int:
    # torch.cuda.get_device_properties: an index outside [0, device_count()) is an AssertionError.
    index = state.current_index() if device is None else _index_unchecked(device)
    if not 0 <= index < device_count():
        raise AssertionError("Invalid device id")
    return index


def _index_unchecked(device) -> int:
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    from openreg.devices import device as Device
    d = Device(device)
    if d.type != privateuse1_name():
        raise ValueError(f"Expected a {privateuse1_name()} device, but got: {d}")
    return state.current_index() if d.index is None else d.index


def get_device_properties(device=None) -> DeviceProperties:
    """Name, total memory, multiprocessor count and compute capability of a device.

    >>> import openreg
    >>> p = openreg.privateuseone.get_device_properties(0)
    >>> p.total_memory == openreg.privateuseone.mem_get_info(0)[1], p.major >= 8
    (True, True)
    """
    return DeviceProperties(**get_driver().properties(_checked_index(device)))


def get_device_name(device=None) -> str:
    """The name of a device (``"openreg emulated device"`` on the emulated driver).

    >>> import openreg
    >>> openreg.privateuseone.get_device_name() in ("openreg emulated device",) or openreg.privateuseone.driver() == "cuda"
    True
    """
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple[int, int]:
    """``(major, minor)`` compute capability (the emulated device reports 8.0, see ``emulated_driver.py``)."""
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 works on the device: compute capability 8.0 or newer (or emulated bf16 when allowed).

    >>> import openreg
    >>> openreg.privateuseone.is_bf16_supported()
    True
    """
    if not is_available():
        return False
    return get_device_capability()[0] >= 8 or including_emulation


def get_amp_supported_dtype() -> list:
    """The dtypes ``autocast`` may use on the device (PyTorch asks a PrivateUse1 module for this)."""
    import openreg
    return [openreg.float16, openreg.bfloat16]


def init() -> None:
    """Initialize the device (create its driver); a no-op when done already."""
    get_driver()


__all__ = [
    "Event",
    "OutOfMemoryError",
    "Stream",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "driver",
    "empty_cache",
    "get_amp_supported_dtype",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "init",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device",
    "set_per_process_memory_fraction",
    "set_stream",
    "stream",
    "synchronize",
]

# -- random numbers (generator.py): manual_seed, manual_seed_all, seed, seed_all, initial_seed, get/set_rng_state
from .generator import (  # noqa: F401
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .graphs import (  # noqa: F401
    CUDAGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from .memory_reports import (  # noqa: F401
    get_per_process_memory_fraction,
    ipc_collect,
    max_memory_cached,
    memory_cached,
    memory_snapshot,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_cached,
)
from .sync_debug import get_sync_debug_mode, set_sync_debug_mode  # noqa: F401

# torch.cuda's submodules: openreg.<device>.memory, .random, .streams, .nvtx, .graphs (imported on first use)
_SUBMODULES = {"memory": "memory", "random": "generator", "streams": "streams", "nvtx": "nvtx", "graphs": "graphs"}


def get_arch_list() -> list:
    """The architectures openreg's CUDA kernels are built for: compiled at run time by NVRTC for the device in
    use, and checked for sm_80 and sm_90 (``tests/test_kernel_builds.py``); empty when no device is available,
    as PyTorch."""
    return ["sm_80", "sm_90"] if is_available() else []


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__package__}.{_SUBMODULES[name]}")
    if name == "default_generators":  # one per device, made on first use (never at import)
        from .generator import default_generators
        return default_generators()
    if name == "amp" and privateuse1_name() == "cuda":  # openreg.cuda.amp: PyTorch's deprecated aliases
        from openreg import _cuda_amp
        return _cuda_amp
    if name == "sparse":  # openreg.<device>.sparse.FloatTensor & co.: legacy sparse constructors on the device
        import types

        from openreg.sparse.legacy_types import DEVICE_SPARSE_TYPES
        return types.SimpleNamespace(**DEVICE_SPARSE_TYPES)
    from openreg.legacy_tensor_types import DEVICE_TYPES
    if name in DEVICE_TYPES:  # openreg.<device>.FloatTensor & co.: legacy constructors of device tensors
        return DEVICE_TYPES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
