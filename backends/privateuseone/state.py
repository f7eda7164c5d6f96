"""Per-thread device state of the PrivateUse1 backend: the current device, and device-argument parsing.

Device arguments everywhere accept an ``openreg.device``, a string (``"privateuseone:1"``, or the name
alone for the current device) or a plain int index; ``None`` means the current device.

>>> from openreg.backends.privateuseone import state
>>> state.device_index(0), state.device_index("privateuseone:0"), state.device_index(None)
(0, 0, 0)
>>> state.device_index(7)
Traceback (most recent call last):
...
RuntimeError: Invalid device index 7 for the 'privateuseone' backend: invalid device ordinal ...
"""
from __future__ import annotations

import threading

from openreg.devices import PRIVATEUSE1, privateuse1_name
from openreg.devices import device as Device

from .driver_select import get_driver

_tls = threading.local()


def device_count() -> int:
    """How many PrivateUse1 devices the driver has."""
    return get_driver().device_count()


def check_index(index: int) -> int:
    """``index`` if it names an existing device, else a RuntimeError naming the backend and the range."""
    n = device_count()
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
        raise RuntimeError(f"Invalid device index {index} for the '{privateuse1_name()}' backend: invalid device "
                           f"ordinal (the {get_driver().name} driver has {n} device{'s' if n != 1 else ''}, "
                           f"valid indices are 0..{n - 1})")
    return index


def current_index() -> int:
    """The calling thread's current device index (0 until ``set_device``)."""
    return getattr(_tls, "index", 0)


def set_current_index(index: int) -> None:
    _tls.index = check_index(index)


def device_index(device=None, *, optional: bool = True) -> int:
    """The device index a device argument names (``None`` and the bare backend name: current device)."""
    if device is None:
        return current_index()
    if isinstance(device, int) and not isinstance(device, bool):
        return check_index(device)
    dev = Device(device)
    if dev._type != PRIVATEUSE1:
        raise ValueError(f"Expected a '{privateuse1_name()}' device, but got: {dev}")
    return current_index() if dev.index is None else check_index(dev.index)


__all__ = ["check_index", "current_index", "device_count", "device_index", "set_current_index"]
