"""Array helpers of the neural-network operator families: a tensor's elements in computation form (half and
bfloat16 widened to float32), results stored back as tensors, and strided window views built through the
storage backend (so the same code runs on NumPy and on CuPy).

>>> import numpy as np
>>> import openreg
>>> x = openreg.arange(6.0)
>>> w = windows(values(x), x.device, (2, 3), (3, 1))
>>> w.tolist()
[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import from_float32, to_compute, wrap_array
from ..aten.meta_rules import fmt_shape
from ..memory_format import channels_last as _CHANNELS_LAST
from ..memory_format import strides_for, suggest_memory_format

_HALF = (_dt.float16, _dt.bfloat16)


def xp_of(t):
    """The array module (numpy or cupy) of a tensor's storage."""
    return t._storage._backend.array_module


def values(t, like=None):
    """``t``'s elements as an array to compute with (float16/bfloat16 widened to float32); a tensor on another
    device than ``like`` raises PyTorch's device error."""
    if like is not None and (d := t._storage.device) is not like._storage.device and d != like._storage.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{like.device} and {t.device}!")
    arr = to_compute(t)
    return arr.astype("float32") if t._dtype is _dt.float16 else arr


def store(arr, dtype, device):
    """A new tensor of ``dtype`` on ``device`` holding ``arr`` (computed in float32 for half types)."""
    if dtype.is_narrow_float:
        return wrap_array(from_float32(arr, dtype), dtype, device)
    return wrap_array(arr.astype(dtype.numpy, copy=False), dtype, device)


def windows(arr, device, shape, elem_strides):
    """A strided view of the C-contiguous array ``arr`` (numpy or cupy) with element strides ``elem_strides``,
    made by the storage backend of ``device``: the im2col / pooling windows without a copy."""
    t = wrap_array(arr, None, device)
    item = arr.dtype.itemsize
    return t._storage._array(arr.dtype, tuple(shape), tuple(s * item for s in elem_strides), 0)


def like(t, size, dtype=None, channels_last: bool = False):
    """An uninitialised tensor of ``size`` with ``t``'s dtype and device (Meta kernels), channels_last strided when
    asked."""
    from ..aten.structured import empty_tensor
    stride = strides_for(tuple(size), _CHANNELS_LAST) if channels_last else None
    return empty_tensor(tuple(size), dtype or t._dtype, t._storage.device, stride)


def channels_last_input(*tensors) -> bool:
    """Whether a 4-d operand suggests the channels_last memory format (PyTorch's ``suggest_memory_format``): the
    result of a CPU convolution or pooling is then laid out channels_last too."""
    if len(tensors[0]._size) != 4:
        return False
    for t in tensors:
        if suggest_memory_format(t) is _CHANNELS_LAST:
            return True
    return False


def in_channels_last(xp, arr):
    """``arr`` (N, C, H, W) with the channels fastest in memory: the same values (no copy when they already are)."""
    return xp.moveaxis(xp.ascontiguousarray(xp.moveaxis(arr, 1, -1)), -1, 1)


def same_float_dtype(op: str, *tensors) -> None:
    """PyTorch's check that the operands of a neural-network kernel share one floating dtype."""
    first = tensors[0]
    if not first._dtype.is_floating_point:
        raise NotImplementedError(f"\"{op}\" not implemented for '{_dt_name(first._dtype)}'")
    for t in tensors[1:]:
        if t is not None and t._dtype is not first._dtype:
            raise RuntimeError(f"{op}: expected all operands to have the same dtype, but got {first._dtype} and "
                               f"{t._dtype} (shapes {fmt_shape(first._size)} and {fmt_shape(t._size)})")


def _dt_name(d) -> str:
    from ..aten.meta_rules import scalar_type_name
    return scalar_type_name(d)


HALF = _HALF
