"""How many bytes a strided view needs, and whether it fits its storage: one place for the arithmetic.

Sizes, strides and offsets are int64 in PyTorch, and so is a storage's size in bytes. Python ints never
overflow, so the results that PyTorch could not represent (a negative extent, more than 2**63 - 1 bytes or
elements) are refused here with PyTorch's messages. Every path that puts a tensor over memory (allocation,
``resize_``, ``set_``, ``as_strided``, the inductor pool views, ``load``'s rebuild, DLPack import) calls these.

>>> from openreg.storage_bounds import storage_nbytes, check_in_bounds
>>> storage_nbytes((2, 3), (3, 1), 4), storage_nbytes((2, 3), None, 4), storage_nbytes((0, 5), (1, 1), 4)
(24, 24, 0)
>>> storage_nbytes((2,), (2**62,), 4)
Traceback (most recent call last):
RuntimeError: Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]
>>> check_in_bounds((2,), (3,), 1, 4, 16)
Traceback (most recent call last):
RuntimeError: setStorage: sizes [2], strides [3], storage offset 1, and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 16
"""
from __future__ import annotations

INT64_MAX = 2**63 - 1


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _overflowed(size, stride) -> RuntimeError:
    where = f"sizes={_fmt(size)}" if stride is None else f"sizes={_fmt(size)} and strides={_fmt(stride)}"
    return RuntimeError(f"Storage size calculation overflowed with {where}")


def storage_nbytes(size, stride, itemsize: int, offset: int = 0) -> int:
    """Bytes from the storage's start to the end of the view's last element (0 for an empty view).

    ``stride=None`` means contiguous. Raises PyTorch's "Storage size calculation overflowed" when the result
    (or a step of it) is not a non-negative int64.
    """
    if 0 in size:
        return 0
    if stride is None:
        n = itemsize
        for s in size:
            if s < 0:
                raise _overflowed(size, None)
            n *= s
        if n > INT64_MAX:
            raise _overflowed(size, None)
        return n
    last = offset
    for s, st in zip(size, stride):
        step = (s - 1) * st
        if s < 0 or step < 0 or step > INT64_MAX:
            raise _overflowed(size, stride)
        last += step
    n = (last + 1) * itemsize
    if n > INT64_MAX:
        raise _overflowed(size, stride)
    return n


def check_numel(size) -> int:
    """The number of elements, refusing what int64 cannot count (PyTorch's ``safe_compute_numel``)."""
    n = 1
    for s in size:
        n *= s
    if n > INT64_MAX or any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    return n


def check_in_bounds(size, stride, offset: int, itemsize: int, nbytes: int) -> None:
    """PyTorch's ``checkInBoundsForStorage``: the view ``(size, stride, offset)`` must lie in ``nbytes`` bytes."""
    needed = storage_nbytes(size, stride, itemsize)
    if needed == 0:
        return
    needed += offset * itemsize
    if needed > nbytes:
        raise RuntimeError(f"setStorage: sizes {_fmt(size)}, strides {_fmt(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage "
                           f"of size {nbytes}")


def check_view_args(op: str, size, stride, offset: int) -> None:
    """The argument checks of ``as_strided`` and the other views over a storage, before the bounds check
    (``check_in_bounds``, skipped on meta) and ``check_numel``, in PyTorch's order."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in stride:
        if s < 0:
            raise RuntimeError(f"{op}: Negative strides are not supported at the moment, got strides: {_fmt(stride)}")
    for s in size:
        if s < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {s}: {_fmt(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
