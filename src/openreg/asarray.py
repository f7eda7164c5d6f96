"""``openreg.asarray`` and ``openreg.frombuffer``: tensors that share memory with what they are given when they
can (tensors, NumPy arrays, DLPack capsules, objects with the buffer protocol), with PyTorch's rules for when a
copy is made (``copy=None``: only for another dtype or device; ``copy=True``: always; ``copy=False``: never, else
``ValueError``) and for ``requires_grad`` (``None``: the input tensor's).

>>> import numpy as np, openreg
>>> a = np.zeros(3, dtype=np.float32)
>>> t = openreg.asarray(a)
>>> _ = t.add_(1)
>>> a.tolist()
[1.0, 1.0, 1.0]
>>> openreg.frombuffer(bytearray(b"\\x01\\x02\\x03\\x04"), dtype=openreg.uint8, offset=1).tolist()
[2, 3, 4]
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes as _dt
from .devices import device as Device
from .tensor import Tensor
from .tensor_from_data import from_numpy, tensor

__all__ = ["asarray", "frombuffer"]

_warned = {"requires_grad": False, "writable": False}


def _warn_once(key: str, message: str) -> None:
    from ._runtime_flags import is_warn_always_enabled
    if not _warned[key] or is_warn_always_enabled():
        _warned[key] = True
        warnings.warn(message, UserWarning, stacklevel=3)


def _warn_not_writable() -> None:
    _warn_once("writable", "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
                           "This means you can write to the underlying (supposedly non-writable) buffer using the "
                           "tensor. You may want to copy the buffer to protect its data or make it writable before "
                           "converting it to a tensor. This type of warning will be suppressed for the rest of "
                           "this program.")


def frombuffer(buffer: Any, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D CPU tensor over the memory of ``buffer`` (an object with the buffer protocol): ``count`` elements of
    ``dtype`` starting ``offset`` bytes in (all that fit when ``count`` is -1). Writes go through to ``buffer``.

    >>> import array, openreg
    >>> a = array.array("i", [1, 2, 3])
    >>> t = openreg.frombuffer(a, dtype=openreg.int32)
    >>> _ = t.mul_(10)
    >>> a.tolist()
    [10, 20, 30]
    """
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    raw = view.cast("B") if view.c_contiguous else None
    if raw is None:
        raise ValueError("frombuffer(): the buffer must be contiguous")
    length, elsize = raw.nbytes, dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0 and (length - offset) % elsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                         f"multiple of element size ({elsize})")
    n = (length - offset) // elsize if count < 0 else count
    if offset + n * elsize > length:
        raise ValueError(f"requested buffer length ({n} * {elsize} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    if raw.readonly:
        _warn_not_writable()
    arr = np.frombuffer(raw, dtype=np.uint8, count=n * elsize, offset=offset).view(dtype.numpy)
    t = from_numpy(arr)
    if dtype is not _dt.from_numpy(arr.dtype):    # bfloat16/float8 arrays come back under their own dtype
        t = t.view(dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def asarray(obj: Any, *, dtype=None, device=None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """``obj`` as a tensor, sharing its memory when no copy is asked for or needed.

    ``obj`` may be a tensor, a NumPy array or scalar, a DLPack capsule, an object with the buffer protocol (read
    as bytes of ``dtype``, the default dtype unless given) or a (nested) sequence of numbers (always copied, with
    ``tensor``'s dtype inference unless ``dtype`` is given).

    >>> import openreg
    >>> x = openreg.arange(3.0)
    >>> openreg.asarray(x) is x, openreg.asarray(x, copy=True).data_ptr() == x.data_ptr()
    (True, False)
    >>> openreg.asarray([1, 2], dtype=openreg.float64)
    tensor([1., 2.], dtype=openreg.float64)
    """
    force_copy = bool(copy) if copy is not None else False
    force_alias = copy is not None and not copy
    t = obj if isinstance(obj, Tensor) else None
    rg = requires_grad if requires_grad is not None else (t is not None and t.requires_grad)
    if rg and requires_grad is None:
        _warn_once("requires_grad", "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                                    "instead of False. Pass requires_grad=False explicitly to get the old "
                                    "behavior and silence this warning.")
    not_writable = False
    if t is None and isinstance(obj, (np.ndarray, np.generic)):
        arr = obj
        if isinstance(obj, np.generic):
            if force_alias:
                raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a "
                                 "ndarray. ")
            arr = np.array(obj)
        not_writable = not arr.flags.writeable
        t = from_numpy(arr)
        if isinstance(obj, np.generic):
            t, force_copy = t.clone(), False        # a new storage, never the scalar's
    if t is None and type(obj).__name__ == "PyCapsule":
        from .dlpack import from_dlpack
        t = from_dlpack(obj)
    if t is None:
        try:
            memoryview(obj)
        except TypeError:
            pass
        else:
            t = frombuffer(obj, dtype=dtype or _dt.get_default_dtype(), requires_grad=bool(rg))
    if t is None:   # a sequence or a number: always a new tensor
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor(obj, dtype=dtype, device=device)
        return out.requires_grad_(True) if rg else out
    dev = None if device is None else Device(device)
    wrong_device = dev is not None and dev != t.device and not (dev.index is None and dev.type == t.device.type)
    wrong_dtype = dtype is not None and dtype is not t.dtype
    if force_copy or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            t = t.to(device=dev if wrong_device else t.device, dtype=dtype or t.dtype, copy=force_copy)
        else:
            t = t.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{t.device}' to '{dev}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{t.dtype.scalar_name}' into dtype "
                             f"'{dtype.scalar_name}'.")
        if not_writable:
            _warn_not_writable()
    if not t.is_leaf and not rg:
        return t.detach()
    if t.is_leaf and t.requires_grad != rg:
        t.requires_grad_(rg)
    return t

