"""The synchronization debug mode (``set_sync_debug_mode``/``get_sync_debug_mode``): 0 ("default") does nothing,
1 ("warn") warns and 2 ("error") raises on an implicit synchronization of the host with the device -- a copy of
device memory to the host that waits for the stream (``item()``, ``tolist()``, ``cpu()``, printing). Explicit
``synchronize()`` calls are never reported, as in PyTorch.

>>> import openreg
>>> mod = getattr(openreg, openreg.utils.get_privateuse1_backend_name())
>>> mod.set_sync_debug_mode("warn"); mod.get_sync_debug_mode()
1
>>> mod.set_sync_debug_mode(0)
"""
from __future__ import annotations

import warnings

__all__ = ["check", "get_sync_debug_mode", "set_sync_debug_mode"]

_MODES = {"default": 0, "warn": 1, "error": 2}
_mode = [0]


def set_sync_debug_mode(debug_mode) -> None:
    """Set the mode: 0/"default", 1/"warn" or 2/"error"."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError('invalid value of debug_mode, expected one of `default`, `warn`, `error`')
        debug_mode = _MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected one of 0, 1, 2 (got {debug_mode})")
    _mode[0] = int(debug_mode)


def get_sync_debug_mode() -> int:
    """The current mode as an int."""
    return _mode[0]


def check() -> None:
    """Report an implicit synchronization as the mode says (called by the synchronizing copies)."""
    mode = _mode[0]
    if mode == 1:
        warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=4)
    elif mode == 2:
        raise RuntimeError("called a synchronizing CUDA operation")
