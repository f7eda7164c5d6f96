"""Readable reports of the caching allocator (``memory_summary``, ``memory_snapshot``), PyTorch's deprecated
memory aliases (``memory_cached``, ``max_memory_cached``, ``reset_max_memory_allocated``,
``reset_max_memory_cached``), the per-process fraction, and ``ipc_collect``.

>>> import openreg
>>> dev = openreg.utils.get_privateuse1_backend_name()
>>> x = openreg.ones(256, device=dev)
>>> mod = getattr(openreg, dev)
>>> "Allocated memory" in mod.memory_summary()
True
>>> any(b["state"] == "active_allocated" for s in mod.memory_snapshot() for b in s["blocks"])
True
"""
from __future__ import annotations

import warnings

from openreg.devices import privateuse1_name

from .allocator import format_size, get_allocator

__all__ = ["get_per_process_memory_fraction", "ipc_collect", "max_memory_cached", "memory_cached",
           "memory_snapshot", "memory_summary", "reset_max_memory_allocated", "reset_max_memory_cached"]


def _index(device) -> int:
    from .device_module import _checked_index
    return _checked_index(device)


_ROWS = (("Allocated memory", "allocated_bytes", True), ("Requested memory", "requested_bytes", True),
         ("GPU reserved memory", "reserved_bytes", True), ("Allocations", "allocation", False),
         ("GPU reserved segments", "segment", False))


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A table of the allocator's statistics of a device (current, peak, total allocated and freed), per pool
    unless ``abbreviated``, in PyTorch's layout.
    """
    index = _index(device)
    stats = get_allocator().stats(index)
    width = 75
    lines = ["=" * width,
             f"|{f'PyTorch CUDA memory summary, device ID {index}':^{width - 2}}|",
             "|" + "-" * (width - 2) + "|",
             (f"|{'  CUDA OOMs: ' + str(stats['num_ooms']):<36}|"
              f"{'  cudaMalloc retries: ' + str(stats['num_alloc_retries']):<36}|"),
             "=" * width,
             "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ",
             "-" * width]
    pools = ("all",) if abbreviated else ("all", "large_pool", "small_pool")
    names = {"all": "", "large_pool": "      from large pool", "small_pool": "      from small pool"}
    for title, key, is_bytes in _ROWS:
        for pool in pools:
            cells = [stats[f"{key}.{pool}.{field}"] for field in ("current", "peak", "allocated", "freed")]
            text = [format_size(c) if is_bytes else str(c) for c in cells]
            label = title if pool == "all" else names[pool]
            lines.append(f"|{label:<23}|" + "|".join(f" {t:>10} " for t in text) + "|")
        lines.append("|" + "-" * (width - 2) + "|")
    lines[-1] = "=" * width
    return "\n".join(lines) + "\n"


def memory_snapshot(mempool_id=None, include_traces: bool = True) -> list:
    """The allocator's segments on every device, PyTorch's snapshot format: one dict per segment (``device``,
    ``address``, ``total_size``, ``allocated_size``, ``active_size``, ``segment_type``, ``blocks``). openreg's
    allocator serves each request from a segment of its own size class, so every segment holds one block,
    ``active_allocated`` or ``inactive`` (cached).
    """
    return get_allocator().snapshot()


def memory_cached(device=None) -> int:
    """Deprecated alias of ``memory_reserved``."""
    warnings.warn(f"openreg.{privateuse1_name()}.memory_cached has been renamed to "
                  f"openreg.{privateuse1_name()}.memory_reserved", FutureWarning, stacklevel=2)
    from .device_module import memory_reserved
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """Deprecated alias of ``max_memory_reserved``."""
    warnings.warn(f"openreg.{privateuse1_name()}.max_memory_cached has been renamed to "
                  f"openreg.{privateuse1_name()}.max_memory_reserved", FutureWarning, stacklevel=2)
    from .device_module import max_memory_reserved
    return max_memory_reserved(device)


def reset_max_memory_allocated(device=None) -> None:
    """Deprecated: ``reset_peak_memory_stats`` (which resets every peak)."""
    warnings.warn(f"openreg.{privateuse1_name()}.reset_max_memory_allocated now calls "
                  f"openreg.{privateuse1_name()}.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    from .device_module import reset_peak_memory_stats
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None) -> None:
    """Deprecated: ``reset_peak_memory_stats`` (which resets every peak)."""
    warnings.warn(f"openreg.{privateuse1_name()}.reset_max_memory_cached now calls "
                  f"openreg.{privateuse1_name()}.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    from .device_module import reset_peak_memory_stats
    reset_peak_memory_stats(device)


def get_per_process_memory_fraction(device=None) -> float:
    """The fraction of the device's memory this process may reserve (1.0 unless set)."""
    fraction = get_allocator()._state(_index(device)).fraction
    return 1.0 if fraction is None else fraction


def ipc_collect() -> None:
    """Free memory kept alive for other processes through CUDA IPC: openreg shares no device memory between
    processes (tensors cross processes through host shared memory), so there is never any to collect."""
