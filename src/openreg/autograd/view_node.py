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
    return (tuple(view._size), tuple(view._stride), view._offset - base._offset)


class AsStridedViewBackward(Node):
    """Gradient of ``view = base.as_strided(...)``: scatter into zeros shaped like the base."""

    def __init__(self, base, view) -> None:
        super().__init__([gradient_edge(base)])
        self.base_geom = (tuple(base._size), tuple(base._stride))
        self.view_geom = _geometry(base, view)
        self.input_meta = [tensor_meta(view)]

    def name(self) -> str:
        return "AsStridedBackward0"

    def apply(self, grads: list) -> list:
        g = grads[0]
        if g is None:
            return [None]
        size, stride = self.base_geom
        buf = zeros_with_geometry(g, size, stride)
        A.copy_(A.as_strided(buf, *self.view_geom), g)
        return [buf]


class CopySlices(Node):
    """The base's node after ``fn`` modified a view of it in place: runs ``fn`` on the view's slice of the
    base's gradient and passes the rest through unchanged."""

    def __init__(self, base, view, fn: Node) -> None:
        super().__init__([gradient_edge(base)] + list(fn.next_edges[1:]))
        self.fn = fn
        self.base_geom = (tuple(base._size), tuple(base._stride))
        self.view_geom = _geometry(base, view)
        self.input_meta = [tensor_meta(base)]

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        g = grads[0]
        if g is None:
            return [None] * len(self.next_edges)
        size, stride = self.base_geom
        result = A.copy_(zeros_with_geometry(g, size, stride), g)
        grad_slice = A.as_strided(result, *self.view_geom)
        sub = self.fn.apply([A.copy_(zeros_with_geometry(grad_slice), grad_slice)])
        if sub[0] is None:
            A.zero_(grad_slice)
        else:
            A.copy_(grad_slice, sub[0])
        return [result] + list(sub[1:])

    def release(self) -> None:
        self.fn.release()
