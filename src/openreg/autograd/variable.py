"""``openreg.autograd.Variable``: PyTorch's pre-0.4 wrapper, today a function returning a plain tensor.

Programs written before tensors carried autograd state (and many copied from them since) wrap every input in
``Variable(x)`` or ``Variable(x, requires_grad=True)``. As in PyTorch, the result is a leaf sharing ``x``'s
memory with ``requires_grad`` as asked, every tensor is an instance of ``Variable``, and ``volatile=`` is
accepted with PyTorch's warning and has no effect.

>>> import openreg
>>> from openreg.autograd import Variable
>>> x = openreg.ones(2)
>>> v = Variable(x, requires_grad=True)
>>> v.requires_grad, v.is_leaf, v.data_ptr() == x.data_ptr(), isinstance(x, Variable)
(True, True, True, True)
"""
from __future__ import annotations

import warnings

from ..tensor import TensorBase


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, TensorBase)

    def __call__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            from ..operators.factories import empty
            data = empty(0)
        elif not isinstance(data, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


class Variable(metaclass=_VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False)``: ``data`` as a new leaf tensor sharing its
    memory (an empty tensor without ``data``); ``isinstance(t, Variable)`` holds for every tensor."""


__all__ = ["Variable"]
