"""Nodes for views whose base changed in place: ``AsStridedViewBackward`` (a view's history regenerated
from its base) and ``CopySlices`` (the base's history after an in-place op on one of its views).

>>> import openreg
>>> x = openreg.ones(4, requires_grad=True)
>>> base = x * 1
>>> v = base[1:3]
>>> _ = v.mul_(5)
>>> base.grad_fn.name()
'torch::autograd::CopySlices'
>>> base.sum().backward()
>>> x.grad.tolist()
[1.0, 5.0, 5.0, 1.0]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ._ops import zeros_with_geometry
from .graph import Node, gradient_edge, tensor_meta


def _geometry(base, view) -> tuple:
    """The view's sizes, strides and offset from its base, in the view's elements (``view_as_real`` of a
    complex base counts two reals per base element)."""
    if view._dtype is base._dtype:
        return (tuple(view._size), tuple(view._stride), view._offset - base._offset)
    item = view._dtype.itemsize
    rel = view._offset * item - base._offset * base._dtype.itemsize      # bytes from the base's first element
    if rel % item:
        raise NotImplementedError(f"autograd through a {view._dtype} view that is not aligned to its "
                                  f"{base._dtype} base's first element")
    return (tuple(view._size), tuple(view._stride), rel // item)


def _in_view_dtype(buf, view):
    """``buf`` (base-shaped, offset 0) itself, or its storage seen with the dtype of a dtype-changing view
    (complex <-> real pairs), so the view's geometry applies to it."""
    if buf._dtype is view._dtype:
        return buf
    from ..tensor import Size, TensorBase
    n = buf._storage.nbytes() // view._dtype.itemsize
    return TensorBase._make(buf._storage, Size([n]), (1,), 0, view._dtype, buf._vc, buf)


class _Dtype:
    """Something with a ``_dtype`` (what ``_in_view_dtype`` reads of a view)."""

    def __init__(self, dtype) -> None:
        self._dtype = dtype


class AsStridedViewBackward(Node):
    """Gradient of ``view = base.as_strided(...)``: scatter into zeros shaped like the base."""

    def __init__(self, base, view) -> None:
        super().__init__([gradient_edge(base)])
        self.base_geom = (tuple(base._size), tuple(base._stride))
        self.base_dtype = base._dtype
        self.view_geom = _geometry(base, view)
        self.input_meta = [tensor_meta(view)]

    def name(self) -> str:
        return "AsStridedBackward0"

    def apply(self, grads: list) -> list:
        g = grads[0]
        if g is None:
            return [None]
        size, stride = self.base_geom
        buf = zeros_with_geometry(g, size, stride, self.base_dtype)
        A.copy_(A.as_strided(_in_view_dtype(buf, g), *self.view_geom), g)
        return [buf]


class CopySlices(Node):
    """The base's node after ``fn`` modified a view of it in place: runs ``fn`` on the view's slice of the
    base's gradient and passes the rest through unchanged."""

    def __init__(self, base, view, fn: Node) -> None:
        super().__init__([gradient_edge(base)] + list(fn.next_edges[1:]))
        self.fn = fn
        self.base_geom = (tuple(base._size), tuple(base._stride))
        self.view_geom = _geometry(base, view)
        self.view_dtype = view._dtype
        self.input_meta = [tensor_meta(base)]

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        g = grads[0]
        if g is None:
            return [None] * len(self.next_edges)
        size, stride = self.base_geom
        result = A.copy_(zeros_with_geometry(g, size, stride), g)
        if self.view_dtype is result._dtype:
            grad_slice = A.as_strided(result, *self.view_geom)
        else:
            grad_slice = A.as_strided(_in_view_dtype(result, _Dtype(self.view_dtype)), *self.view_geom)
        sub = self.fn.apply([A.copy_(zeros_with_geometry(grad_slice), grad_slice)])
        if sub[0] is None:
            A.zero_(grad_slice)
        else:
            A.copy_(grad_slice, sub[0])
        return [result] + list(sub[1:])

    def release(self) -> None:
        self.fn.release()
