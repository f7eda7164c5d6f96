"""``openreg.accelerator``: PyTorch 2.6+'s device-agnostic accelerator API, served by the PrivateUse1 device.

The accelerator is openreg's device under its current name (``privateuseone``, or ``cuda`` after
``OPENREG_DEVICE_NAME=cuda``). Device arguments are an index, a string or a device of that type.

>>> import openreg
>>> acc = openreg.accelerator.current_accelerator()
>>> acc.type == openreg.utils.get_privateuse1_backend_name(), acc.index
(True, None)
>>> last = openreg.accelerator.device_count() - 1      # 1 with two devices, 0 on a one-GPU machine
>>> with openreg.accelerator.device_index(last):
...     openreg.accelerator.current_device_index() == last
True
>>> openreg.accelerator.current_device_index()
0
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from .devices import PRIVATEUSE1, privateuse1_name
from .devices import device as Device

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "get_device_capability",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]


def _module():
    import openreg
    return getattr(openreg, PRIVATEUSE1)


def _device_index(device, optional: bool = False) -> int:
    """PyTorch's accelerator ``_get_device_index``: ints pass, devices must be of the accelerator's type."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        device = Device(device)
    index = None
    if isinstance(device, Device):
        acc = current_accelerator()
        if acc.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator {acc}.")
        index = device.index
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        return current_device_index()
    return index


def current_accelerator(check_available: bool = False) -> Device | None:
    """The accelerator's device type as a device without index (None if ``check_available`` and it is not).

    >>> import openreg
    >>> openreg.accelerator.current_accelerator(check_available=True) is not None
    True
    """
    if check_available and not is_available():
        return None
    return Device(privateuse1_name())


def is_available() -> bool:
    """Whether the accelerator can be used (a driver with at least one device)."""
    return _module().is_available()


def device_count() -> int:
    """How many accelerator devices there are (0 if none is usable)."""
    return _module().device_count()


def current_device_index() -> int:
    """The calling thread's current device index."""
    return _module().current_device()


def set_device_index(device, /) -> None:
    """Make ``device`` (index or indexed device) current; a negative index changes nothing."""
    index = _device_index(device, optional=False)
    if index >= 0:
        _module().set_device(index)


def current_device_idx() -> int:
    """Deprecated alias of ``current_device_index`` (FutureWarning, as PyTorch)."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device, /) -> None:
    """Deprecated alias of ``set_device_index`` (FutureWarning, as PyTorch)."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def get_device_capability(device=None, /) -> dict[str, Any]:
    """``{"supported_dtypes": {...}}``: the dtypes tensors of the device can be made in.

    >>> import openreg
    >>> openreg.bfloat16 in openreg.accelerator.get_device_capability()["supported_dtypes"]
    True
    """
    from . import dtypes
    _module().get_device_properties(_device_index(device, optional=True))
    names = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128")
    return {"supported_dtypes": {getattr(dtypes, n) for n in names if hasattr(dtypes, n)}}


def current_stream(device=None, /):
    """The current stream of a device (default: the current device)."""
    return _module().current_stream(_device_index(device, optional=True))


def set_stream(stream) -> None:
    """Make ``stream`` current on its device, and that device the current device."""
    mod = _module()
    mod.set_device(stream.device_index)
    mod.set_stream(stream)


def synchronize(device=None, /) -> None:
    """Wait for all work on a device (default: the current device)."""
    _module().synchronize(_device_index(device, optional=True))


class device_index:
    """Context manager making device ``device`` (an int, or None for no change) current inside the block."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            _module().set_device(self.idx)

    def __exit__(self, *exc_info: object) -> None:
        if self.idx is not None:
            _module().set_device(self.prev_idx)


# -- memory (torch.accelerator.memory) ---------------------------------------------------------------------
def empty_cache() -> None:
    """Give the cached, unused device memory back to the driver."""
    _module().empty_cache()


def memory_stats(device_index=None, /) -> OrderedDict:
    """The allocator statistics of a device, sorted by key (PyTorch's flat ``"allocated_bytes.all.current"``)."""
    stats = _module().memory_stats(_device_index(device_index, optional=True))
    return OrderedDict(sorted(stats.items()))


def memory_allocated(device_index=None, /) -> int:
    """Bytes occupied by tensors on a device."""
    return memory_stats(device_index).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device_index=None, /) -> int:
    """Peak of ``memory_allocated``."""
    return memory_stats(device_index).get("allocated_bytes.all.peak", 0)


def memory_reserved(device_index=None, /) -> int:
    """Bytes held by the caching allocator on a device."""
    return memory_stats(device_index).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device_index=None, /) -> int:
    """Peak of ``memory_reserved``."""
    return memory_stats(device_index).get("reserved_bytes.all.peak", 0)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    _module().reset_accumulated_memory_stats(_device_index(device_index, optional=True))


def reset_peak_memory_stats(device_index=None, /) -> None:
    _module().reset_peak_memory_stats(_device_index(device_index, optional=True))


def get_memory_info(device_index=None, /) -> tuple[int, int]:
    """``(free, total)`` bytes of a device."""
    return _module().mem_get_info(_device_index(device_index, optional=True))
