"""Allocation through the storage backend of the requested device (any backend): the kernels of
``empty.memory_format`` and ``empty_strided`` (their records are in ``openreg/operators/factories.py``).

>>> import openreg
>>> openreg.empty_strided((2, 3), (1, 2)).stride()
(1, 2)
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..devices import CPU, PRIVATEUSE1
from ..devices import device as Device
from ..storage_bounds import check_numel
from .structured import empty_tensor
from .views import check_size_nonnegative


def resolve_device(device):
    """The concrete device of a factory's ``device=`` (default CPU; a bare PrivateUse1 -> current index)."""
    if device is None:
        return CPU
    dev = device if device.__class__ is Device else Device(device)
    if dev.index is None and dev._type == PRIVATEUSE1:
        from ..privateuse1_hooks import current_device_index
        dev = Device(PRIVATEUSE1, current_device_index())
    return dev


def empty_memory_format(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    check_size_nonnegative(size)
    dev = resolve_device(device)
    stride = None
    if memory_format is not None:
        from ..memory_format import normalize, preserve_format, strides_for
        fmt = normalize(memory_format)
        if fmt is preserve_format:
            raise RuntimeError("preserve_format not supported for empty")
        stride = strides_for(size, fmt)
    t = empty_tensor(size, dtype or _dt.get_default_dtype(), dev, stride=stride)
    if pin_memory:
        return t.pin_memory()
    return t


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    check_size_nonnegative(size)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    t = empty_tensor(size, dtype or _dt.get_default_dtype(), resolve_device(device), stride=tuple(stride))
    check_numel(size)  # after the storage-size check, as PyTorch (zero strides can keep the storage small)
    if pin_memory:
        return t.pin_memory()
    return t
