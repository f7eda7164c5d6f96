"""``Tensor.__getitem__`` / ``__setitem__``: Python index expressions translated to aten operators.

Basic indices (ints, slices with positive steps, ``None``, ``...``) give views through ``select``,
``slice.Tensor`` and ``unsqueeze``; tensors, lists, NumPy arrays and bool scalars are advanced indices and
go through ``index.Tensor`` (a copy) or ``index_put_`` (assignment), as in PyTorch.

>>> import openreg
>>> x = openreg.arange(12).view(3, 4)
>>> x[1, ::2].tolist(), x[None, ..., 0].shape, x[[0, 2], 1:3].tolist()
([4, 6], openreg.Size([1, 3]), [[1, 2], [9, 10]])
>>> x[x > 9] = 0
>>> x[2].tolist()
[8, 9, 0, 0]
"""
from __future__ import annotations

import operator

import numpy as np

from . import dtypes as _dt
from ._dispatch.ops import A
from .scalar_conversion import as_tensor_scalar
from .tensor import TensorBase as Tensor  # importable while the Tensor class is built

_tuple_item = tuple.__getitem__

_BASIC_TYPES = (int, slice, type(None), type(Ellipsis))


def _as_index_tensor(obj, like: Tensor) -> Tensor:
    from .tensor_from_data import tensor
    if isinstance(obj, range):  # PyTorch indexes with any sequence: x[range(n), y]
        obj = list(obj)
    try:
        return tensor(obj, device=like.device if isinstance(obj, np.ndarray) else None)
    except (TypeError, ValueError) as exc:
        raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                         f"valid indices (got {type(obj).__name__})") from exc


def _invalid(obj):
    if isinstance(obj, (str, bytes)):  # PyTorch tries to build an index tensor from it
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     f"indices (got {type(obj).__name__})")


def _count_dims(items) -> int:
    n = 0
    for it in items:
        if it is None or isinstance(it, bool):
            continue
        if it is Ellipsis:  # PyTorch accepts repeated ellipses; each skips the same number of dims
            continue
        if isinstance(it, Tensor) and it._dtype in (_dt.bool, _dt.uint8):
            n += it.dim()
        else:
            n += 1
    return n


def _bound(value):
    """A slice bound; a tensor one is read as the program's value (refused when batched in a running vmap)."""
    if isinstance(value, Tensor) and value._vmap_levels:
        from ._vmap_batched import ITEM, refuse
        refuse(value, ITEM)
    return value


def _select(result: Tensor, dim: int, real_dim: int, i: int) -> Tensor:
    size = _tuple_item(result._size, dim)     # not Size.__getitem__, a Python frame
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {size}")
    return A.select__int(result, dim, i)


def apply_indices(self: Tensor, index):
    """``(view, advanced)``: the view from the basic indices and the ``index.Tensor`` list (or None)."""
    items = index if isinstance(index, tuple) else (index,)
    items = [it if isinstance(it, (Tensor, bool) + _BASIC_TYPES) else
             (operator.index(it) if isinstance(it, np.integer) else
              (_as_index_tensor(it, self) if isinstance(it, (list, range, np.ndarray, np.bool_)) else _invalid(it)))
             for it in items]
    specified = _count_dims(items)
    if specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result, dim, real_dim = self, 0, 0
    indices: list = []
    has_tensor = False
    for it in items:
        if isinstance(it, bool):
            result = A.unsqueeze(result, dim)
            indices.append(_bool_index(it, self))
            has_tensor = True
            dim += 1
        elif isinstance(it, int):
            result = _select(result, dim, real_dim, it)
            real_dim += 1
        elif isinstance(it, slice):
            step = 1 if it.step is None else operator.index(_bound(it.step))
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            if not (it.start is None and it.stop is None and step == 1):
                start = None if it.start is None else operator.index(_bound(it.start))
                stop = None if it.stop is None else operator.index(_bound(it.stop))
                result = A.slice__Tensor(result, dim, start, stop, step)
            indices.append(None)
            dim += 1
            real_dim += 1
        elif it is None:
            result = A.unsqueeze(result, dim)
            indices.append(None)
            dim += 1
        elif it is Ellipsis:
            skip = self.dim() - specified
            indices.extend([None] * skip)
            dim += skip
            real_dim += skip
        else:  # Tensor
            is_mask = it._dtype in (_dt.bool, _dt.uint8)
            if it.dim() == 0 and not is_mask and not it._dtype.is_floating_point and not it._dtype.is_complex:
                result = _select(result, dim, real_dim, int(it.item()))
                real_dim += 1
                continue
            if it.dim() == 0 and is_mask:
                result = A.unsqueeze(result, dim)
                indices.append(_bool_index(bool(it.item()), self))
                has_tensor = True
                dim += 1
                continue
            span = it.dim() if is_mask else 1
            indices.append(it)
            has_tensor = True
            dim += span
            real_dim += span
    if not has_tensor:
        if result is self:
            result = A.alias(self)
        return result, None
    while indices and indices[-1] is None:
        indices.pop()
    return result, indices


def _bool_index(value: bool, like: Tensor) -> Tensor:
    from .tensor_from_data import tensor
    return tensor([0] if value else [], dtype=_dt.int64)


def getitem(self: Tensor, index):
    if type(index) is int:
        if not self._size:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        size = _tuple_item(self._size, 0)
        if -size <= index < size:           # _select(self, 0, 0, index), written out
            return A.select__int(self, 0, index)
        return _select(self, 0, 0, index)
    view, advanced = apply_indices(self, index)
    if advanced is None:
        return view
    return A.index__Tensor(view, advanced)


def _strip_leading_ones(value: Tensor) -> Tensor:
    n = 0
    while n < value.dim() and value._size[n] == 1:
        n += 1
    if n == 0:
        return value
    return A.view(value, value._size[n:])


def setitem(self: Tensor, index, value) -> None:
    if not isinstance(value, Tensor):
        if isinstance(value, np.generic):
            value = value.item()
        elif isinstance(value, np.ndarray):
            from .tensor_from_data import tensor
            value = tensor(value)
        elif not isinstance(value, (bool, int, float, complex)):
            raise TypeError(f"can't assign a {type(value).__name__} to a {self.type()}")
        value = as_tensor_scalar(value, self._dtype)
    view, advanced = apply_indices(self, index)
    if advanced is None:
        if isinstance(value, Tensor):
            A.copy_(view, _strip_leading_ones(value))
        else:
            A.fill___Scalar(view, value)
        return
    if not isinstance(value, Tensor):
        value = A.full((), value, dtype=self._dtype, device=self.device)
    else:
        value = _strip_leading_ones(value)
    A.index_put_(view, advanced, value, False)
