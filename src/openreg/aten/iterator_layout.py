"""The memory layout PyTorch's TensorIterator gives the result of an elementwise op.

When every operand is contiguous the result is contiguous. Otherwise the dimensions are sorted by the operands'
strides (broadcast dimensions count as stride 0): the first operand whose strides of two dimensions are both
non-zero and differ decides their order, equal strides put the smaller dimension first, and a pair no operand
decides keeps its row-major order (``TensorIteratorBase::reorder_dimensions``). The result is dense in that order.

>>> import openreg
>>> a = openreg.ones(2, 3).t()            # strides (1, 3)
>>> iterator_strides((3, 2), [a, openreg.ones(3, 2)])
(1, 3)
>>> iterator_strides((3, 2), [openreg.ones(3, 2), a])
(2, 1)
"""
from __future__ import annotations

import numpy as np

from .._array_bridge import _contiguous_cache
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ..tensor import contiguous_strides

_cached = _contiguous_cache.get


def _broadcast_strides(t: Tensor, shape: tuple) -> list:
    offset = len(shape) - len(t._size)
    strides = [0] * offset
    for i, (s, st) in enumerate(zip(t._size, t._stride)):
        strides.append(0 if s == 1 and shape[offset + i] != 1 else st)
    return strides


def iterator_strides(shape: tuple, tensors) -> tuple:
    """Strides of an elementwise result of ``shape`` computed from the operands ``tensors`` (in argument order)."""
    shape = tuple(shape)
    ndim = len(shape)
    operands = [t for t in tensors if t._size]
    if ndim < 2 or all(t.is_contiguous() for t in operands):
        return contiguous_strides(shape)
    strides = [_broadcast_strides(t, shape) for t in operands]

    def should_swap(d0: int, d1: int) -> int:
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # perm[0] is the fastest-moving dimension
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def has_strided_operand(args, kwargs) -> bool:
    """Whether a tensor argument is not laid out row-major (cheap: one cached-strides lookup per tensor).

    When none is, NumPy's result is already row-major, which is what TensorIterator gives too.
    """
    for a in args:
        if isinstance(a, Tensor) and a._stride != _cached(a._size):  # a shape not cached yet counts as strided
            return True
    if kwargs:
        return has_strided_operand(kwargs.values(), None)
    return False


def tensor_operands(args, kwargs) -> list:
    """The tensor arguments of an elementwise call, in PyTorch's operand order (positional, then keywords)."""
    ops = [a for a in args if isinstance(a, Tensor)]
    if kwargs:
        ops.extend(v for v in kwargs.values() if isinstance(v, Tensor))
    return ops


def relayout(arr, strides: tuple):
    """``arr`` with element strides ``strides`` (a dense permutation): ``arr`` itself when it already has them."""
    item = arr.itemsize
    if arr.size == 0 or all(st * item == a or n == 1 for st, a, n in zip(strides, arr.strides, arr.shape)):
        return arr
    order = sorted(range(arr.ndim), key=lambda d: -strides[d])
    xp = np if isinstance(arr, np.ndarray) else __import__("cupy")
    dense = xp.empty(tuple(arr.shape[d] for d in order), dtype=arr.dtype)
    inverse = [0] * arr.ndim
    for i, d in enumerate(order):
        inverse[d] = i
    out = dense.transpose(inverse)
    out[...] = arr
    return out
