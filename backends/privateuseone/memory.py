"""``openreg.<device>.memory``: the memory functions of the device module as one module (``torch.cuda.memory``).

>>> import openreg
>>> mem = getattr(openreg, openreg.utils.get_privateuse1_backend_name()).memory
>>> mem.memory_allocated() >= 0 and callable(mem.memory_summary)
True
"""
from __future__ import annotations

from .device_module import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)
from .memory_reports import (
    get_per_process_memory_fraction,
    ipc_collect,
    max_memory_cached,
    memory_cached,
    memory_snapshot,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_cached,
)

__all__ = ["empty_cache", "get_per_process_memory_fraction", "ipc_collect", "max_memory_allocated",
           "max_memory_cached", "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_cached",
           "memory_reserved", "memory_snapshot", "memory_stats", "memory_summary", "reset_accumulated_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_cached", "reset_peak_memory_stats",
           "set_per_process_memory_fraction"]
