"""Factory kernels that allocate through the storage backend of the requested device (any backend).

>>> import openreg
>>> openreg.empty_strided((2, 3), (1, 2)).stride()
(1, 2)
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..devices import CPU, device as Device
from .meta_rules import check_nonnegative_size
from .structured import empty_tensor


def _resolve_device(device):
    from ..devices import PRIVATEUSE1
    dev = CPU if device is None else Device(device)
    if dev._type == PRIVATEUSE1 and dev.index is None:
        from ..privateuse1_hooks import current_device_index
        dev = Device(PRIVATEUSE1, current_device_index())
    return dev


def empty_memory_format(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    check_nonnegative_size("empty", size)
    dev = _resolve_device(device)
    t = empty_tensor(size, dtype or _dt.get_default_dtype(), dev)
    if pin_memory:
        return t.pin_memory()
    return t


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    check_nonnegative_size("empty_strided", size)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    t = empty_tensor(size, dtype or _dt.get_default_dtype(), _resolve_device(device), stride=tuple(stride))
    if pin_memory:
        return t.pin_memory()
    return t


KERNELS = {"empty.memory_format": empty_memory_format, "empty_strided": empty_strided}
