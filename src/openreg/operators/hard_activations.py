"""``hardsigmoid`` and ``hardswish`` as PyTorch's operators, with its backward kernels: ``hardsigmoid_backward``
multiplies by a single-precision 1/6 strictly inside (-3, 3) (also for float64, as PyTorch's CPU kernel does),
``hardswish_backward`` is ``grad * (x / 3 + 0.5)`` inside [-3, 3], 0 at and below -3 and ``grad`` at and above 3.
Half-precision inputs are computed in float32 and rounded once, as PyTorch's CPU kernels do. Written with tensor
operators, so every device runs them.

>>> import openreg
>>> x = openreg.tensor([-3.0, 0.0, 1.5, 3.0], dtype=openreg.float64, requires_grad=True)
>>> openreg.ops.aten.hardswish(x).sum().backward()
>>> x.grad.tolist()
[0.0, 0.5, 1.0, 1.0]
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._dispatch.ops import A
from ._nn_arrays import like
from ._record import Deriv, Op, register

_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))     # PyTorch's `scalar_t one_sixth(1.0f / 6.0f)`


def _opmath(fn, *tensors):
    """``fn`` on ``tensors``, in float32 when they are float16/bfloat16 (rounded once to their type)."""
    dtype = tensors[0]._dtype
    if dtype.is_reduced_float:
        return A._to_copy(fn(*(A._to_copy(t, dtype=_dt.float32) for t in tensors)), dtype=dtype)
    return fn(*tensors)


def _check_floating(name: str, self) -> None:
    if not self._dtype.is_floating_point:
        from ..aten.meta_rules import scalar_type_name
        raise NotImplementedError(f'"{name}" not implemented for \'{scalar_type_name(self._dtype)}\'')


def _hardsigmoid(self):
    _check_floating("hardsigmoid_cpu", self)
    return _opmath(lambda x: A.div__Scalar(A.hardtanh(A.add__Scalar(x, 3.0), 0.0, 6.0), 6.0), self)


def _hardswish(self):
    _check_floating("hardswish_cpu", self)
    return _opmath(lambda x: A.div__Scalar(A.mul__Tensor(x, A.hardtanh(A.add__Scalar(x, 3.0), 0.0, 6.0)), 6.0),
                   self)


def _hardsigmoid_backward(grad_output, self):
    def fn(g, x):
        inside = A.logical_and(A.gt__Scalar(x, -3.0), A.lt__Scalar(x, 3.0))
        return A.where__ScalarOther(inside, A.mul__Scalar(g, _ONE_SIXTH), 0.0)
    return _opmath(fn, grad_output, self)


def _hardswish_backward(grad_output, self):
    def fn(g, x):
        middle = A.mul__Tensor(g, A.add__Scalar(A.div__Scalar(x, 3.0), 0.5))
        return A.where__ScalarSelf(A.le__Scalar(x, -3.0), 0.0, A.where__self(A.ge__Scalar(x, 3.0), g, middle))
    return _opmath(fn, grad_output, self)


def _meta_unary(self):
    return like(self, tuple(self._size))


def _meta_binary(grad_output, self):
    return like(grad_output, tuple(grad_output._size))


def _not_implemented_self_grad(gg, a):
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")   # as PyTorch


def _hardswish_backward_self_grad(gg, a):
    # PyTorch's: where(-3 < self < 3, gg * grad_output / 3, 0)
    inside = (a.self > -3.0) & (a.self < 3.0)
    return (gg * a.grad_output / 3.0).where(inside, 0.0)


hardsigmoid = Op(
    "hardsigmoid",
    "hardsigmoid(Tensor self) -> Tensor  [pointwise]",
    kernels={"hardsigmoid": {"CompositeExplicitAutograd": _hardsigmoid, "Meta": _meta_unary}},
    derivatives={"hardsigmoid": Deriv(save="self", pointwise=True, self=lambda g, a: A.hardsigmoid_backward(g, a.self))},
    function=False, method=False,
    doc="""``relu6(self + 3) / 6``.

    >>> import openreg
    >>> openreg.ops.aten.hardsigmoid(openreg.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """,
)

hardswish = Op(
    "hardswish",
    "hardswish(Tensor self) -> Tensor  [pointwise]",
    kernels={"hardswish": {"CompositeExplicitAutograd": _hardswish, "Meta": _meta_unary}},
    derivatives={"hardswish": Deriv(save="self", pointwise=True, self=lambda g, a: A.hardswish_backward(g, a.self))},
    function=False, method=False,
    doc="""``self * relu6(self + 3) / 6``.

    >>> import openreg
    >>> openreg.ops.aten.hardswish(openreg.tensor([-4.0, 0.0, 4.0])).tolist()
    [-0.0, 0.0, 4.0]
    """,
)

hardsigmoid_backward = Op(
    "hardsigmoid_backward",
    "hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor  [pointwise]",
    kernels={"hardsigmoid_backward": {"CompositeExplicitAutograd": _hardsigmoid_backward, "Meta": _meta_binary}},
    derivatives={"hardsigmoid_backward": Deriv(
        save="self", pointwise=True, grad_output=lambda gg, a: A.hardsigmoid_backward(gg, a.self),
        self=_not_implemented_self_grad)},
    function=False, method=False,
    doc="""The gradient of ``hardsigmoid``: ``grad_output`` times a float32 1/6 inside (-3, 3), else 0.

    >>> import openreg
    >>> openreg.ops.aten.hardsigmoid_backward(openreg.ones(3), openreg.tensor([-3.0, 0.0, 3.0])).tolist()
    [0.0, 0.1666666716337204, 0.0]
    """,
)

hardswish_backward = Op(
    "hardswish_backward",
    "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor  [pointwise]",
    kernels={"hardswish_backward": {"CompositeExplicitAutograd": _hardswish_backward, "Meta": _meta_binary}},
    derivatives={"hardswish_backward": Deriv(
        save="grad_output self", pointwise=True, grad_output=lambda gg, a: A.hardswish_backward(gg, a.self),
        self=_hardswish_backward_self_grad)},
    function=False, method=False,
    doc="""The gradient of ``hardswish``: 0 at and below -3, ``grad_output`` at and above 3, else
    ``grad_output * (self / 3 + 0.5)``.

    >>> import openreg
    >>> openreg.ops.aten.hardswish_backward(openreg.ones(3), openreg.tensor([-3.0, 0.0, 3.0])).tolist()
    [0.0, 0.5, 1.0]
    """,
)

register(hardsigmoid, hardswish, hardsigmoid_backward, hardswish_backward)
