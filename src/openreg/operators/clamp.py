"""Selection operators: ``clamp`` (``clip``), ``clamp_min``, ``clamp_max`` and ``where`` (three-way, and
``where(condition)``, the indices of ``nonzero``).

>>> import openreg
>>> x = openreg.tensor([-2.0, 0.5, 3.0])
>>> x.clamp(-1, 1).tolist(), openreg.where(x > 0, x, 0.0).tolist()
([-1.0, 0.5, 1.0], [0.0, 0.5, 3.0])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import to_compute
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, broadcast_shapes, common_device, scalar_type_name
from ..scalar_conversion import check_scalar_fits
from ..tensor import TensorBase as Tensor
from ._compute import operand, select, with_constant, xp_of
from ._formulas import mask
from ._pointwise import promote
from ._record import NONDIFF, Deriv, Op, register
from ._scalars import as_tensor_operand, check_input

_DEVICE = "openreg.backends.privateuseone.device_ops"   # bfloat16 where selects words there

# -- clamp --------------------------------------------------------------------------------------------------

def _clamp_meta(self, min=None, max=None) -> Spec:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = [t for t in (min, max) if isinstance(t, Tensor)]
    dev = common_device("clamp", self, *tensors) if tensors else self._storage.device
    size = self._size
    if tensors:
        size = broadcast_shapes(size, *(t._size for t in tensors))
    dtype = promote(self, min, max)
    if dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    for bound in (min, max):
        check_scalar_fits(bound, dtype)
    return Spec(size, dtype, dev)


def _clamp(spec, self, min=None, max=None):
    xp = xp_of(self)
    x = operand(self, spec, xp)
    for bound, ufunc in ((min, xp.maximum), (max, xp.minimum)):
        if bound is not None:
            b = operand(bound, spec, xp)
            x = with_constant(xp, ufunc, x, b) if b.ndim == 0 and b.dtype == x.dtype else ufunc(x, b)
    return x


def clamp(input: Tensor, min=None, max=None, *, out: Tensor | None = None) -> Tensor:
    """Limit values to ``[min, max]`` (scalars or broadcastable tensors; either may be None).

    >>> import openreg
    >>> openreg.clamp(openreg.tensor([-2, 0, 5]), min=-1, max=3).tolist()
    [-1, 0, 3]
    """
    check_input("clamp", input)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = None if min is None else as_tensor_operand(min, input)
        hi = None if max is None else as_tensor_operand(max, input)
        return A.clamp__Tensor(input, lo, hi) if out is None else A.clamp__Tensor_out(input, lo, hi, out=out)
    return A.clamp(input, min, max) if out is None else A.clamp__out(input, min, max, out=out)


def _clamp_method(self, min=None, max=None):
    return clamp(self, min, max)


def _clamp_method_(self, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = None if min is None or isinstance(min, Tensor) else as_tensor_operand(min, self)
        hi = None if max is None or isinstance(max, Tensor) else as_tensor_operand(max, self)
        return A.clamp___Tensor(self, min if lo is None else lo, max if hi is None else hi)
    return A.clamp_(self, min, max)


def _clamp_grad(g, a):
    x = a.self
    keep = None
    lo, hi = getattr(a, "min", None), getattr(a, "max", None)
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        k2 = x <= hi
        keep = k2 if keep is None else mask(keep, x) * mask(k2, x) > 0
    return g if keep is None else g * mask(keep, g)


clamp_op = Op(
    "clamp",
    """
    clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor  [core, pointwise]
    clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor  [core, pointwise]
    clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)  [pointwise]
    clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)  [pointwise]
    """,
    meta=_clamp_meta, compute=_clamp, elementwise=True,
    derivatives={"clamp": Deriv(save="self", pointwise=True, name="ClampBackward1", self=_clamp_grad),
                 "clamp.Tensor": Deriv(save="self min max", name="ClampBackward0", pointwise=True,
                                       self=_clamp_grad, min=lambda g, a: g * mask(a.self < a.min, g),
                                       max=lambda g, a: g * mask(a.self > a.max, g))},
    function=clamp, method=_clamp_method, extra_functions={"clip": clamp},
    extra_methods={"clamp_": _clamp_method_, "clip": _clamp_method, "clip_": _clamp_method_})


def _clamp_side(name: str, arg: str, keep, example: str) -> Op:
    other = "max" if arg == "min" else "min"
    wins = (lambda g, a: g * mask(a.self < a.min, g)) if arg == "min" else (lambda g, a: g * mask(a.self > a.max, g))
    return Op(
        name,
        f"""
        {name}(Tensor self, Scalar {arg}) -> Tensor  [pointwise]
        {name}.Tensor(Tensor self, Tensor {arg}) -> Tensor  [pointwise]
        {name}.out(Tensor self, Scalar {arg}, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
        {name}.Tensor_out(Tensor self, Tensor {arg}, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
        {name}_(Tensor(a!) self, Scalar {arg}) -> Tensor(a!)  [pointwise]
        {name}_.Tensor(Tensor(a!) self, Tensor {arg}) -> Tensor(a!)  [pointwise]
        """,
        meta=lambda self, bound: _clamp_meta(self, **{arg: bound, other: None}),
        compute=lambda spec, self, bound: _clamp(spec, self, **{arg: bound, other: None}), elementwise=True,
        derivatives={name: Deriv(save="self", pointwise=True, name=f"{name.title().replace('_', '')}Backward0",
                                 self=lambda g, a: g * mask(keep(a), g)),
                     f"{name}.Tensor": Deriv(save=f"self {arg}", pointwise=True,
                                             name=f"{name.title().replace('_', '')}Backward1",
                                             self=lambda g, a: g * mask(keep(a), g), **{arg: wins})},
        doc=f"""``clamp(input, {arg}={arg})``.

        >>> import openreg
        >>> openreg.{name}(openreg.tensor([-2.0, 1.0]), 0).tolist()
        {example}
        """)


clamp_min = _clamp_side("clamp_min", "min", lambda a: a.self >= a.min, "[0.0, 1.0]")
clamp_max = _clamp_side("clamp_max", "max", lambda a: a.self <= a.max, "[-2.0, 0.0]")


# -- hardtanh: clamp's values, with the gradient zero at the bounds (clamp's passes there) --------------

def _hardtanh_meta(self, min_val=-1, max_val=1) -> Spec:
    if self._dtype is _dt.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return _clamp_meta(self, min_val, max_val)


def _hardtanh_grad(g, a):
    # PyTorch's hardtanh_backward: the gradient flows strictly inside (min_val, max_val); it reads the result,
    # which lies inside exactly where the input did, so hardtanh_ keeps working after overwriting its input
    y = a.result
    return g * mask(y > a.min_val, g) * mask(y < a.max_val, g)


hardtanh_op = Op(
    "hardtanh",
    """
    hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor  [pointwise]
    hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)  [pointwise]
    """,
    meta=_hardtanh_meta, compute=lambda spec, self, min_val=-1, max_val=1: _clamp(spec, self, min_val, max_val),
    elementwise=True,
    derivatives={"hardtanh": Deriv(save="result min_val max_val", pointwise=True, self=_hardtanh_grad)},
    function=False, method=False,
    doc="""``self`` clamped to ``[min_val, max_val]``; its gradient is zero at the bounds, as PyTorch's.

    >>> import openreg
    >>> x = openreg.tensor([-2.0, -1.0, 0.5, 1.0], requires_grad=True)
    >>> openreg.ops.aten.hardtanh(x).sum().backward()
    >>> x.grad.tolist()
    [0.0, 0.0, 1.0, 0.0]
    """,
)


# -- where --------------------------------------------------------------------------------------------------

def _where_meta(condition, self, other) -> Spec:
    if condition._dtype is not _dt.bool and condition._dtype is not _dt.uint8:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{scalar_type_name(condition._dtype)}")
    tensors = [condition] + [t for t in (self, other) if isinstance(t, Tensor)]
    dev = common_device("where", *tensors)
    size = broadcast_shapes(*(t._size for t in tensors))
    dtype = promote(self, other)
    if dtype is not _dt.float16 and dtype is not _dt.bfloat16:  # PyTorch lets those round to inf
        for value in (self, other):
            check_scalar_fits(value, dtype)
    return Spec(size, dtype, dev)


def _where(spec, condition, self, other):
    xp = xp_of(condition)
    cond = to_compute(condition)
    if cond.dtype != np.bool_:
        cond = cond.astype(xp.bool_)
    return select(xp, cond, operand(self, spec, xp), operand(other, spec, xp))


_NOT_GIVEN = object()


def where(condition: Tensor, input=_NOT_GIVEN, other=_NOT_GIVEN, *, out: Tensor | None = None):
    """``input`` where ``condition`` is true, else ``other`` (tensors or scalars, broadcast together);
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    >>> import openreg
    >>> c = openreg.tensor([True, False])
    >>> openreg.where(c, openreg.tensor([1.0, 2.0]), 0).tolist()
    [1.0, 0.0]
    >>> openreg.where(c)[0].tolist()
    [0]
    """
    if input is _NOT_GIVEN and other is _NOT_GIVEN and out is None:
        return tuple(A.where(condition))
    if input is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError("where() received an invalid combination of arguments: expected (Tensor condition) or "
                        "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None) (inputs and "
                        "others may be numbers)")
    if out is not None:
        like = input if isinstance(input, Tensor) else other
        if not isinstance(like, Tensor):
            like = condition
        return A.where__self_out(condition, as_tensor_operand(input, like), as_tensor_operand(other, like),
                                 out=out)
    t_in, t_other = isinstance(input, Tensor), isinstance(other, Tensor)
    if t_in and t_other:
        return A.where__self(condition, input, other)
    if t_other:
        return A.where__ScalarSelf(condition, input, other)
    if t_in:
        return A.where__ScalarOther(condition, input, other)
    return A.where__Scalar(condition, input, other)


def _where_condition(condition):
    """``aten::where(Tensor condition) -> Tensor[]``: ``nonzero(condition, as_tuple=True)``."""
    if condition.dim() == 0:
        condition = A.unsqueeze(condition, 0)
    return list(A.unbind__int(A.nonzero(condition), 1))


def _where_method(self, condition, other):
    return where(condition, self, other)


where_op = Op(
    "where",
    """
    where.self(Tensor condition, Tensor self, Tensor other) -> Tensor  [core, pointwise]
    where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
    where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor
    where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor
    where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor
    where(Tensor condition) -> Tensor[]
    """,
    meta={o: _where_meta for o in ("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar")},
    compute=_where, elementwise=True, overrides={"privateuseone": f"{_DEVICE}:where_compute"},
    kernels={"where": {"CompositeImplicitAutograd": _where_condition}},
    derivatives={
        "where.self": Deriv(save="condition", pointwise=True, self=lambda g, a: g * mask(a.condition, g),
                            other=lambda g, a: g * (1 - mask(a.condition, g))),
        "where.ScalarOther": Deriv(save="condition", pointwise=True, name="WhereBackward0",
                                   self=lambda g, a: g * mask(a.condition, g)),
        "where.ScalarSelf": Deriv(save="condition", pointwise=True, name="WhereBackward0",
                                  other=lambda g, a: g * (1 - mask(a.condition, g))),
        "where.Scalar": NONDIFF},
    function=where, method=_where_method)

register(clamp_op, clamp_min, clamp_max, hardtanh_op, where_op)
