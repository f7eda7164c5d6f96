"""``copy_`` for the PrivateUse1 device: CPU -> device, device -> CPU and device -> device (also across
device indices), contiguous or strided, with dtype conversion and broadcasting.

Same-dtype copies between contiguous tensors are single driver memcpys; everything else converts on one
side and writes elementwise (the raw ``copy`` kernel on cuda / with ``OPENREG_EMULATE_KERNELS=1``; between
two device tensors that kernel converts dtypes itself, except bfloat16 and complex). With
``non_blocking=True`` a copy between pinned host memory and the device is queued on the current stream and
the call returns without waiting; otherwise a copy to or from the host returns when it is complete. A
device -> device copy is stream-ordered like a kernel and never waits on the host (see
``_device_to_device``).

>>> import openreg
>>> x = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> d = openreg.empty(2, 2, device="privateuseone:0").copy_(x.as_strided((2, 2), (1, 2)))
>>> d.cpu().tolist()
[[1.0, 3.0], [2.0, 4.0]]
"""
from __future__ import annotations

import numpy as np

from openreg._array_bridge import _contiguous_strides, from_compute, from_float32, host_array, to_compute
from openreg.devices import PRIVATEUSE1
from openreg.dtypes import bfloat16
from openreg.operators.copy import check_copy

from . import kernels, sync_debug
from .driver_select import get_driver
from .pinned_memory import storage_is_pinned
from .streams import current_stream


def _byte_offset(t) -> int:
    return t._storage._base_offset + t._offset * t._dtype.itemsize


def _segment(t):
    return t._storage._data.segment


def _raw_copyable(self, src) -> bool:
    """Whether the copy is one contiguous run of bytes on both sides."""
    return (self._dtype is src._dtype and tuple(self._size) == tuple(src._size) and _contiguous(self)
            and _contiguous(src))


def _contiguous(t) -> bool:
    """``t.is_contiguous()``, answered without a call when the strides are the row-major ones."""
    return t._stride == _contiguous_strides(tuple(t._size)) or t.is_contiguous()


def _real_if_needed(value, src, dst):
    if src._dtype.is_complex and not dst._dtype.is_complex:
        return value.real
    return value


def _converted(values, dtype):
    """Element values in ``dtype``'s storage form. A uint8 source holds values, never float8 bits, so narrow
    floats are rounded from the values (on the cuda driver their storage is raw bits of the same width)."""
    return from_float32(values, dtype) if dtype.is_narrow_float else from_compute(values, dtype)


def _host_bytes(t) -> np.ndarray:
    return t._array().reshape(-1).view(np.uint8)


def copy_(self, src, non_blocking: bool = False):
    """The PrivateUse1 kernel of ``aten::copy_`` (argument checks shared with the CPU: ``check_copy``)."""
    check_copy(self, src)
    dst_type, src_type = self._storage.device._type, src._storage.device._type
    if "meta" in (dst_type, src_type):
        raise NotImplementedError(f"Cannot copy between '{src.device}' and '{self.device}': meta tensors have "
                                  f"no data")
    if self.numel() == 0:
        return self
    if dst_type == PRIVATEUSE1 and src_type == PRIVATEUSE1:
        _device_to_device(self, src)
    elif dst_type == PRIVATEUSE1:
        _host_to_device(self, src, non_blocking)
    else:
        _device_to_host(self, src, non_blocking)
    return self


def _host_to_device(dst, src, non_blocking: bool) -> None:
    drv = get_driver()
    index = dst._storage.device.index
    stream = current_stream(index)._handle
    if _raw_copyable(dst, src):
        drv.memcpy_htod(_segment(dst), _byte_offset(dst), _host_bytes(src), stream)
        if not (non_blocking and storage_is_pinned(src._storage)):
            drv.stream_synchronize(stream)
        return
    value = _converted(_real_if_needed(host_array(src), src, dst), dst._dtype)
    with drv.using_device(index), drv.using_stream(stream):
        kernels.copy_into(dst._array(), drv.upload(np.ascontiguousarray(value), index))
        drv.stream_synchronize(stream)


def _device_to_host(dst, src, non_blocking: bool) -> None:
    if sync_debug._mode[0] and not (non_blocking and storage_is_pinned(dst._storage)):
        sync_debug.check()
    drv = get_driver()
    index = src._storage.device.index
    stream = current_stream(index)._handle
    if _raw_copyable(dst, src):
        drv.memcpy_dtoh(_host_bytes(dst), _segment(src), _byte_offset(src), stream)
        if not (non_blocking and storage_is_pinned(dst._storage)):
            drv.stream_synchronize(stream)
        return
    with drv.using_stream(stream):
        value = host_array(src)
    dst._array()[...] = from_compute(_real_if_needed(value, src, dst), dst._dtype)


def _kernel_converts(dst, src) -> bool:
    """Whether a raw copy kernel converts between the two dtypes itself: copy.cu's dtypes, or bfloat16 with
    one of them (bf16.cu, widening per element; raw kernels on) -- not float8 or complex."""
    if dst._dtype is bfloat16 or src._dtype is bfloat16:
        other = src if dst._dtype is bfloat16 else dst
        return kernels.enabled() and (other._dtype is bfloat16 or np.dtype(other._dtype.numpy) in kernels.COPY_DTYPES)
    return (not dst._dtype.is_narrow_float and not src._dtype.is_narrow_float
            and np.dtype(dst._dtype.numpy) in kernels.COPY_DTYPES
            and np.dtype(src._dtype.numpy) in kernels.COPY_DTYPES)


def _kernel_array(t):
    """A tensor's array as a copy kernel operand (bfloat16 as its 16-bit words)."""
    arr = t._array()
    return arr.view(np.uint16) if t._dtype is bfloat16 else arr


def _device_to_device(dst, src) -> None:
    """Device -> device copy, queued on the destination's current stream; the host does not wait.

    Same device: the source's producers and the destination's later readers are all on that device's
    current stream, so stream order alone makes the copy correct (PyTorch does not synchronize the host
    here either). Across devices the two current streams are unrelated, so a two-way barrier of events
    orders them instead of a host synchronize: the destination stream waits for the work queued so far on
    the source stream (the producers of ``src``), and afterwards the source stream waits for the copy
    (so later writes to ``src``, or reuse of its freed memory by the caching allocator, cannot overtake it).
    """
    drv = get_driver()
    d_index, s_index = dst._storage.device.index, src._storage.device.index
    stream = current_stream(d_index)._handle
    s_stream = current_stream(s_index)._handle
    cross_device = s_index != d_index
    if cross_device:
        _stream_waits_for(drv, stream, s_stream, s_index)
    _device_copy(drv, dst, src, stream, s_stream)
    if cross_device:
        _stream_waits_for(drv, s_stream, stream, d_index)


def _stream_waits_for(drv, waiter, producer, producer_index: int) -> None:
    """Make future work on ``waiter`` wait for the work queued so far on ``producer`` (no host wait)."""
    event = drv.create_event(producer_index, False)
    drv.event_record(event, producer)
    drv.stream_wait_event(waiter, event)


def _device_copy(drv, dst, src, stream, s_stream) -> None:
    d_index, s_index = dst._storage.device.index, src._storage.device.index
    same_memory = dst._storage._data is src._storage._data
    if _raw_copyable(dst, src) and not same_memory:
        drv.memcpy_dtod(_segment(dst), _byte_offset(dst), _segment(src), _byte_offset(src),
                        dst.numel() * dst._dtype.itemsize, stream)
        return
    if _kernel_converts(dst, src) and not same_memory:
        # The raw kernel reads any layout and converts while it copies: no astype, no temporary on one
        # device; across devices only the source is made contiguous (in its own dtype) and moved.
        value = _kernel_array(src)
        if s_index != d_index:
            with drv.using_device(s_index), drv.using_stream(s_stream):
                value = drv.array_module.ascontiguousarray(value)
            value = drv.to_device(value, d_index)
        with drv.using_device(d_index), drv.using_stream(stream):
            if bfloat16 in (dst._dtype, src._dtype):
                kernels.bf16_copy_into(_kernel_array(dst), value)
            else:
                kernels.copy_into(dst._array(), value)
        return
    with drv.using_device(s_index), drv.using_stream(s_stream):
        value = _real_if_needed(to_compute(src), src, dst)
        if src._dtype is not dst._dtype or dst._dtype.is_narrow_float:
            value = _converted(value, dst._dtype)
        if same_memory:
            value = value.copy()
        if s_index != d_index:
            value = drv.array_module.ascontiguousarray(value)
    if s_index != d_index:
        value = drv.to_device(value, d_index)
    with drv.using_device(d_index), drv.using_stream(stream):
        kernels.copy_into(dst._array(), value)


__all__ = ["copy_"]
