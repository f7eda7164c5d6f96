"""``openreg.<fn>`` math functions: thin calls of ``openreg.ops.aten`` overloads, looked up once at import.

A Python scalar where PyTorch's function wants a Tensor (``openreg.add(x, 2, out=o)``, ``openreg.div(1, x)``)
is wrapped into a zero-dim tensor whose dtype follows PyTorch's rule for scalars, so promotion is unchanged.

>>> import openreg
>>> x = openreg.tensor([[1.0, -2.0], [3.0, 4.0]])
>>> openreg.matmul(x, x).tolist(), openreg.sum(x, 1).tolist()
([[-5.0, -10.0], [15.0, 10.0]], [-1.0, 7.0])
"""
from __future__ import annotations

import numbers

import numpy as np

from . import dtypes as _dt
from ._array_bridge import from_compute, wrap_array
from ._dispatch.ops import ops
from .tensor import Tensor

aten = ops.aten

# Overloads looked up once here: ``ops.aten.<op>`` lookups scan the operator registry.
_ov_add__Tensor = aten.add.Tensor
_ov_add__Scalar = aten.add.Scalar
_ov_add__out = aten.add.out
_ov_sub__Tensor = aten.sub.Tensor
_ov_sub__Scalar = aten.sub.Scalar
_ov_sub__out = aten.sub.out
_ov_rsub__Tensor = aten.rsub.Tensor
_ov_rsub__Scalar = aten.rsub.Scalar
_ov_mul__Tensor = aten.mul.Tensor
_ov_mul__Scalar = aten.mul.Scalar
_ov_mul__out = aten.mul.out
_ov_div__Tensor = aten.div.Tensor
_ov_div__Scalar = aten.div.Scalar
_ov_div__out = aten.div.out
_ov_div__Tensor_mode = aten.div.Tensor_mode
_ov_div__Scalar_mode = aten.div.Scalar_mode
_ov_div__out_mode = aten.div.out_mode
_ov_floor_divide__default = aten.floor_divide.default
_ov_floor_divide__Scalar = aten.floor_divide.Scalar
_ov_floor_divide__out = aten.floor_divide.out
_ov_remainder__Scalar_Tensor = aten.remainder.Scalar_Tensor
_ov_remainder__Scalar_out = aten.remainder.Scalar_out
_ov_remainder__Tensor = aten.remainder.Tensor
_ov_remainder__Scalar = aten.remainder.Scalar
_ov_remainder__Tensor_out = aten.remainder.Tensor_out
_ov_pow__Scalar = aten.pow.Scalar
_ov_pow__Scalar_out = aten.pow.Scalar_out
_ov_pow__Tensor_Tensor = aten.pow.Tensor_Tensor
_ov_pow__Tensor_Tensor_out = aten.pow.Tensor_Tensor_out
_ov_pow__Tensor_Scalar = aten.pow.Tensor_Scalar
_ov_pow__Tensor_Scalar_out = aten.pow.Tensor_Scalar_out
_ov_maximum__default = aten.maximum.default
_ov_maximum__out = aten.maximum.out
_ov_minimum__default = aten.minimum.default
_ov_minimum__out = aten.minimum.out
_ov_clamp__Tensor = aten.clamp.Tensor
_ov_clamp__Tensor_out = aten.clamp.Tensor_out
_ov_clamp__default = aten.clamp.default
_ov_clamp__out = aten.clamp.out
_ov_clamp_min__Tensor = aten.clamp_min.Tensor
_ov_clamp_min__default = aten.clamp_min.default
_ov_clamp_max__Tensor = aten.clamp_max.Tensor
_ov_clamp_max__default = aten.clamp_max.default
_ov_where__self_out = aten.where.self_out
_ov_where__self = aten.where.self
_ov_where__ScalarSelf = aten.where.ScalarSelf
_ov_where__ScalarOther = aten.where.ScalarOther
_ov_where__Scalar = aten.where.Scalar
_ov_where__default = aten.where.default
_ov_nonzero__default = aten.nonzero.default
_ov_nonzero__out = aten.nonzero.out
_ov_sum__IntList_out = aten.sum.IntList_out
_ov_sum__default = aten.sum.default
_ov_sum__dim_IntList = aten.sum.dim_IntList
_ov_mean__out = aten.mean.out
_ov_mean__default = aten.mean.default
_ov_mean__dim = aten.mean.dim
_ov_prod__default = aten.prod.default
_ov_prod__int_out = aten.prod.int_out
_ov_prod__dim_int = aten.prod.dim_int
_ov_amax__default = aten.amax.default
_ov_amax__out = aten.amax.out
_ov_amin__default = aten.amin.default
_ov_amin__out = aten.amin.out
_ov_argmax__out = aten.argmax.out
_ov_argmax__default = aten.argmax.default
_ov_argmin__out = aten.argmin.out
_ov_argmin__default = aten.argmin.default
_ov_softmax__int = aten.softmax.int
_ov_log_softmax__int = aten.log_softmax.int
_ov_mm__default = aten.mm.default
_ov_mm__out = aten.mm.out
_ov_bmm__default = aten.bmm.default
_ov_bmm__out = aten.bmm.out
_ov_matmul__default = aten.matmul.default
_ov_matmul__out = aten.matmul.out
_ov_addmm__out = aten.addmm.out
_ov_addmm__default = aten.addmm.default
_ov_dot__default = aten.dot.default
_ov_dot__out = aten.dot.out
_ov_outer__default = aten.outer.default
_ov_outer__out = aten.outer.out
_ov__foreach_add__List = aten._foreach_add.List
_ov__foreach_add___List = aten._foreach_add_.List
_NUMBER_TYPES = (int, float, bool, complex)


def is_number(x) -> bool:
    """True for Python/NumPy scalars (what a ``Scalar`` argument accepts)."""
    return type(x) in _NUMBER_TYPES or isinstance(x, (numbers.Number, np.generic))


def wrap_scalar(value, like: Tensor | None = None) -> Tensor:
    """A zero-dim CPU tensor holding the Python number ``value``, marked as a *wrapped number*.

    Like PyTorch's wrapped numbers it promotes as the Python scalar would (``int8_tensor + wrapped(1)`` stays
    int8) and holds the exact value (int64, the default float dtype, or complex). ``like`` is unused and kept
    for call sites that pass the other operand.
    """
    if isinstance(value, np.generic):
        value = value.item()
    d = _dt.default_dtype_for_category(_dt.scalar_category(value))
    if isinstance(value, complex) and _dt.get_default_dtype() is _dt.float64:
        d = _dt.complex128
    arr = np.asarray(value, dtype=np.float32 if d is _dt.bfloat16 else d.numpy)
    t = wrap_array(from_compute(arr, d), d)
    t._wrapped_number = True
    return t


def _as_tensor(value, like: Tensor) -> Tensor:
    return value if isinstance(value, Tensor) else wrap_scalar(value, like)


def _check_input(op: str, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")


# -- unary -------------------------------------------------------------------------------------------------

_UNARY_EXAMPLES = {
    "abs": ("[-1.5, 2.0]", "[1.5, 2.0]"), "neg": ("[-1.5, 2.0]", "[1.5, -2.0]"),
    "exp": ("[0.0]", "[1.0]"), "log": ("[1.0]", "[0.0]"), "sqrt": ("[4.0, 9.0]", "[2.0, 3.0]"),
    "rsqrt": ("[4.0, 0.25]", "[0.5, 2.0]"), "sin": ("[0.0]", "[0.0]"), "cos": ("[0.0]", "[1.0]"),
    "tanh": ("[0.0]", "[0.0]"), "sigmoid": ("[0.0]", "[0.5]"), "reciprocal": ("[4.0]", "[0.25]"),
    "relu": ("[-1.0, 2.0]", "[0.0, 2.0]"), "bitwise_not": ("[0, 5]", "[-1, -6]"),
    "logical_not": ("[0.0, 2.0]", "[True, False]"),
}


def _make_unary(name: str):
    packet = getattr(aten, name)
    functional, out_variant = packet.default, packet.out

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        if out is None:
            return functional(input)
        return out_variant(input, out=out)
    example_in, example_out = _UNARY_EXAMPLES[name]
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` (``aten::{name}``), optionally into ``out``.\n\n"
                  f">>> import openreg\n>>> openreg.{name}(openreg.tensor({example_in})).tolist()\n{example_out}\n")
    return fn


abs = _make_unary("abs")
neg = _make_unary("neg")
negative = neg
exp = _make_unary("exp")
log = _make_unary("log")
sqrt = _make_unary("sqrt")
rsqrt = _make_unary("rsqrt")
sin = _make_unary("sin")
cos = _make_unary("cos")
tanh = _make_unary("tanh")
sigmoid = _make_unary("sigmoid")
reciprocal = _make_unary("reciprocal")
relu = _make_unary("relu")
bitwise_not = _make_unary("bitwise_not")
logical_not = _make_unary("logical_not")


# -- binary --------------------------------------------------------------------------------------------------

def _binary_call(op: str, input, other, tensor_ov, scalar_ov, out_ov, out, **kw):
    """Pick the Tensor or Scalar overload (or ``out=``) for ``input <op> other``."""
    if not isinstance(input, Tensor):
        if isinstance(other, Tensor) and is_number(input):
            input = wrap_scalar(input, other)
        else:
            _check_input(op, input)
    if out is not None:
        return out_ov(input, _as_tensor(other, input) if is_number(other) else other, out=out, **kw)
    if isinstance(other, Tensor) or scalar_ov is None:
        return tensor_ov(input, other, **kw)
    return scalar_ov(input, other, **kw)


def add(input: Tensor, other, *, alpha=1, out: Tensor | None = None) -> Tensor:
    """``input + alpha * other`` with broadcasting and type promotion.

    >>> import openreg
    >>> openreg.add(openreg.tensor([1, 2]), 1.5).tolist()
    [2.5, 3.5]
    """
    return _binary_call("add", input, other, _ov_add__Tensor, _ov_add__Scalar, _ov_add__out, out, alpha=alpha)


def sub(input: Tensor, other, *, alpha=1, out: Tensor | None = None) -> Tensor:
    """``input - alpha * other``.

    >>> import openreg
    >>> openreg.sub(openreg.tensor([5, 7]), openreg.tensor([1, 2]), alpha=2).tolist()
    [3, 3]
    """
    return _binary_call("sub", input, other, _ov_sub__Tensor, _ov_sub__Scalar, _ov_sub__out, out, alpha=alpha)


subtract = sub


def rsub(input: Tensor, other, *, alpha=1) -> Tensor:
    """``other - alpha * input``.

    >>> import openreg
    >>> openreg.rsub(openreg.tensor([1.0, 2.0]), 10).tolist()
    [9.0, 8.0]
    """
    _check_input("rsub", input)
    if isinstance(other, Tensor):
        return _ov_rsub__Tensor(input, other, alpha=alpha)
    return _ov_rsub__Scalar(input, other, alpha)


def mul(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """Elementwise product.

    >>> import openreg
    >>> openreg.mul(openreg.tensor([1, 2]), openreg.tensor([[3], [4]])).tolist()
    [[3, 6], [4, 8]]
    """
    return _binary_call("mul", input, other, _ov_mul__Tensor, _ov_mul__Scalar, _ov_mul__out, out)


multiply = mul


def div(input: Tensor, other, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor:
    """True division (integers give floats), or ``"trunc"``/``"floor"`` rounded division.

    >>> import openreg
    >>> openreg.div(openreg.tensor([7, -7]), 2).tolist()
    [3.5, -3.5]
    >>> openreg.div(openreg.tensor([7, -7]), 2, rounding_mode="floor").tolist()
    [3, -4]
    """
    if rounding_mode is None:
        return _binary_call("div", input, other, _ov_div__Tensor, _ov_div__Scalar, _ov_div__out, out)
    return _binary_call("div", input, other, _ov_div__Tensor_mode, _ov_div__Scalar_mode, _ov_div__out_mode,
                        out, rounding_mode=rounding_mode)


divide = div


def true_divide(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """Alias of ``div`` without rounding.

    >>> import openreg
    >>> openreg.true_divide(openreg.tensor([1]), 4).tolist()
    [0.25]
    """
    return div(input, other, out=out)


def floor_divide(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """Division rounded toward negative infinity (Python's ``//``).

    >>> import openreg
    >>> openreg.floor_divide(openreg.tensor([7, -7]), 2).tolist()
    [3, -4]
    """
    return _binary_call("floor_divide", input, other, _ov_floor_divide__default, _ov_floor_divide__Scalar,
                        _ov_floor_divide__out, out)


def remainder(input, other, *, out: Tensor | None = None) -> Tensor:
    """Python's ``%``: the result has the sign of the divisor.

    >>> import openreg
    >>> openreg.remainder(openreg.tensor([-3, 3]), 2).tolist()
    [1, 1]
    """
    if not isinstance(input, Tensor) and out is None and isinstance(other, Tensor):
        return _ov_remainder__Scalar_Tensor(input, other)
    if out is not None and not isinstance(other, Tensor) and isinstance(input, Tensor):
        return _ov_remainder__Scalar_out(input, other, out=out)
    return _binary_call("remainder", input, other, _ov_remainder__Tensor, _ov_remainder__Scalar,
                        _ov_remainder__Tensor_out, out)


def pow(input, exponent, *, out: Tensor | None = None) -> Tensor:
    """``input ** exponent``; either may be a Python scalar.

    >>> import openreg
    >>> openreg.pow(openreg.tensor([2, 3]), 2).tolist(), openreg.pow(2, openreg.tensor([0.5])).tolist()
    ([4, 9], [1.4142135381698608])
    """
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise TypeError(f"pow(): argument 'exponent' (position 2) must be Tensor, not "
                            f"{type(exponent).__name__}")
        return _ov_pow__Scalar(input, exponent) if out is None else _ov_pow__Scalar_out(input, exponent, out=out)
    if isinstance(exponent, Tensor):
        if out is None:
            return _ov_pow__Tensor_Tensor(input, exponent)
        return _ov_pow__Tensor_Tensor_out(input, exponent, out=out)
    if out is None:
        return _ov_pow__Tensor_Scalar(input, exponent)
    return _ov_pow__Tensor_Scalar_out(input, exponent, out=out)


def maximum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum of two tensors (NaN propagates).

    >>> import openreg
    >>> openreg.maximum(openreg.tensor([1, 5]), openreg.tensor([3, 2])).tolist()
    [3, 5]
    """
    return _ov_maximum__default(input, other) if out is None else _ov_maximum__out(input, other, out=out)


def minimum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum of two tensors (NaN propagates).

    >>> import openreg
    >>> openreg.minimum(openreg.tensor([1, 5]), openreg.tensor([3, 2])).tolist()
    [1, 2]
    """
    return _ov_minimum__default(input, other) if out is None else _ov_minimum__out(input, other, out=out)


_BINARY_EXAMPLES = {
    "eq": "[False, True, False]", "ne": "[True, False, True]", "lt": "[True, False, False]",
    "le": "[True, True, False]", "gt": "[False, False, True]", "ge": "[False, True, True]",
    "bitwise_and": "[0, 2, 2]", "bitwise_or": "[3, 2, 3]", "bitwise_xor": "[3, 0, 1]",
}


def _make_tensor_scalar_binary(name: str):
    packet = getattr(aten, name)
    t_ov, s_ov, t_out, s_out = packet.Tensor, packet.Scalar, packet.Tensor_out, packet.Scalar_out

    def fn(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
        if not isinstance(input, Tensor):
            _check_input(name, input)
        if isinstance(other, Tensor):
            return t_ov(input, other) if out is None else t_out(input, other, out=out)
        return s_ov(input, other) if out is None else s_out(input, other, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` against a tensor or a scalar.\n\n>>> import openreg\n"
                  f">>> openreg.{name}(openreg.tensor([1, 2, 3]), 2).tolist()\n{_BINARY_EXAMPLES[name]}\n")
    return fn


eq = _make_tensor_scalar_binary("eq")
ne = _make_tensor_scalar_binary("ne")
lt = _make_tensor_scalar_binary("lt")
le = _make_tensor_scalar_binary("le")
gt = _make_tensor_scalar_binary("gt")
ge = _make_tensor_scalar_binary("ge")
bitwise_and = _make_tensor_scalar_binary("bitwise_and")
bitwise_or = _make_tensor_scalar_binary("bitwise_or")
bitwise_xor = _make_tensor_scalar_binary("bitwise_xor")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _make_logical(name: str, result: str):
    packet = getattr(aten, name)

    def fn(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        return packet.default(input, other) if out is None else packet.out(input, other, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` of the truth values of two tensors.\n\n>>> import openreg\n"
                  f">>> openreg.{name}(openreg.tensor([0, 1, 2]), openreg.tensor([1, 1, 0])).tolist()\n{result}\n")
    return fn


logical_and = _make_logical("logical_and", "[False, True, False]")
logical_or = _make_logical("logical_or", "[True, True, True]")
logical_xor = _make_logical("logical_xor", "[True, False, True]")


# -- clamp and where -------------------------------------------------------------------------------------

def clamp(input: Tensor, min=None, max=None, *, out: Tensor | None = None) -> Tensor:
    """Limit values to ``[min, max]`` (scalars or broadcastable tensors; either may be None).

    >>> import openreg
    >>> openreg.clamp(openreg.tensor([-2, 0, 5]), min=-1, max=3).tolist()
    [-1, 0, 3]
    """
    _check_input("clamp", input)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = None if min is None else _as_tensor(min, input)
        hi = None if max is None else _as_tensor(max, input)
        return _ov_clamp__Tensor(input, lo, hi) if out is None else _ov_clamp__Tensor_out(input, lo, hi, out=out)
    return _ov_clamp__default(input, min, max) if out is None else _ov_clamp__out(input, min, max, out=out)


clip = clamp


def clamp_min(input: Tensor, min) -> Tensor:
    """``clamp(input, min=min)``.

    >>> import openreg
    >>> openreg.clamp_min(openreg.tensor([-2.0, 1.0]), 0).tolist()
    [0.0, 1.0]
    """
    return _ov_clamp_min__Tensor(input, min) if isinstance(min, Tensor) else _ov_clamp_min__default(input, min)


def clamp_max(input: Tensor, max) -> Tensor:
    """``clamp(input, max=max)``.

    >>> import openreg
    >>> openreg.clamp_max(openreg.tensor([-2.0, 1.0]), 0).tolist()
    [-2.0, 0.0]
    """
    return _ov_clamp_max__Tensor(input, max) if isinstance(max, Tensor) else _ov_clamp_max__default(input, max)


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
        return tuple(_ov_where__default(condition))
    if input is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError("where() received an invalid combination of arguments: expected (Tensor condition) or "
                        "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None) (inputs and "
                        "others may be numbers)")
    if out is not None:
        like = input if isinstance(input, Tensor) else other
        if not isinstance(like, Tensor):
            like = condition
        return _ov_where__self_out(condition, _as_tensor(input, like), _as_tensor(other, like), out=out)
    t_in, t_other = isinstance(input, Tensor), isinstance(other, Tensor)
    if t_in and t_other:
        return _ov_where__self(condition, input, other)
    if t_other:
        return _ov_where__ScalarSelf(condition, input, other)
    if t_in:
        return _ov_where__ScalarOther(condition, input, other)
    return _ov_where__Scalar(condition, input, other)


def nonzero(input: Tensor, *, out: Tensor | None = None, as_tuple: bool = False):
    """Indices of the non-zero elements: an ``(N, input.dim())`` int64 tensor, or with ``as_tuple=True`` one
    index vector per dimension (a 0-d input counts as 1-d).

    >>> import openreg
    >>> x = openreg.tensor([[1, 0], [0, 3]])
    >>> openreg.nonzero(x).tolist(), [t.tolist() for t in openreg.nonzero(x, as_tuple=True)]
    ([[0, 0], [1, 1]], [[0, 1], [0, 1]])
    """
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return tuple(_ov_where__default(input))
    if out is not None:
        return _ov_nonzero__out(input, out=out)
    return _ov_nonzero__default(input)


# -- reductions ----------------------------------------------------------------------------------------------

def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out: Tensor | None = None) -> Tensor:
    """Sum over ``dim`` (int, list, or None for all); bool and integers accumulate in int64.

    >>> import openreg
    >>> openreg.sum(openreg.tensor([[1, 2], [3, 4]]), dim=0).tolist()
    [4, 6]
    """
    if out is not None:
        return _ov_sum__IntList_out(input, dim, keepdim, dtype=dtype, out=out)
    if dim is None and not keepdim:
        return _ov_sum__default(input, dtype=dtype)
    return _ov_sum__dim_IntList(input, dim, keepdim, dtype=dtype)


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out: Tensor | None = None) -> Tensor:
    """Mean over ``dim``; needs a floating or complex dtype (``dtype=`` may supply one).

    >>> import openreg
    >>> openreg.mean(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]), 1).tolist()
    [1.5, 3.5]
    """
    if out is not None:
        return _ov_mean__out(input, dim, keepdim, dtype=dtype, out=out)
    if dim is None and not keepdim:
        return _ov_mean__default(input, dtype=dtype)
    return _ov_mean__dim(input, dim, keepdim, dtype=dtype)


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out: Tensor | None = None) -> Tensor:
    """Product of all elements, or over one ``dim``.

    >>> import openreg
    >>> openreg.prod(openreg.tensor([[1, 2], [3, 4]])).item(), openreg.prod(openreg.tensor([[1, 2], [3, 4]]), 1).tolist()
    (24, [2, 12])
    """
    if dim is None:
        if out is not None:
            raise TypeError("prod(): out= needs dim; use openreg.prod(input, dim, out=...)")
        return _ov_prod__default(input, dtype=dtype)
    if out is not None:
        return _ov_prod__int_out(input, dim, keepdim, dtype=dtype, out=out)
    return _ov_prod__dim_int(input, dim, keepdim, dtype=dtype)


def amax(input: Tensor, dim=(), keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Maximum over ``dim`` (all dims when empty); NaN propagates.

    >>> import openreg
    >>> openreg.amax(openreg.tensor([[1, 5], [7, 2]]), 1).tolist()
    [5, 7]
    """
    return _ov_amax__default(input, dim, keepdim) if out is None else _ov_amax__out(input, dim, keepdim, out=out)


def amin(input: Tensor, dim=(), keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Minimum over ``dim`` (all dims when empty); NaN propagates.

    >>> import openreg
    >>> openreg.amin(openreg.tensor([[1, 5], [7, 2]]), 1).tolist()
    [1, 2]
    """
    return _ov_amin__default(input, dim, keepdim) if out is None else _ov_amin__out(input, dim, keepdim, out=out)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Index of the maximum (of the flattened tensor when ``dim`` is None), as int64.

    >>> import openreg
    >>> openreg.argmax(openreg.tensor([[1, 5], [7, 2]])).item(), openreg.argmax(openreg.tensor([[1, 5], [7, 2]]), 1).tolist()
    (2, [1, 0])
    """
    if out is not None:
        return _ov_argmax__out(input, dim, keepdim, out=out)
    return _ov_argmax__default(input, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Index of the minimum (of the flattened tensor when ``dim`` is None), as int64.

    >>> import openreg
    >>> openreg.argmin(openreg.tensor([[1, 5], [7, 2]]), 0).tolist()
    [0, 1]
    """
    if out is not None:
        return _ov_argmin__out(input, dim, keepdim, out=out)
    return _ov_argmin__default(input, dim, keepdim)


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)``, computed stably.

    >>> import openreg
    >>> openreg.softmax(openreg.tensor([0.0, 0.0]), 0).tolist()
    [0.5, 0.5]
    """
    return _ov_softmax__int(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``log(softmax(x, dim))``, computed stably.

    >>> import openreg
    >>> round(openreg.log_softmax(openreg.tensor([0.0, 0.0]), 0)[0].item(), 4)
    -0.6931
    """
    return _ov_log_softmax__int(input, dim, dtype)


# -- matrix products ---------------------------------------------------------------------------------------

def mm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix product of two 2-D tensors.

    >>> import openreg
    >>> openreg.mm(openreg.ones(2, 3), openreg.ones(3, 1)).tolist()
    [[3.0], [3.0]]
    """
    return _ov_mm__default(input, mat2) if out is None else _ov_mm__out(input, mat2, out=out)


def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Batched matrix product of two 3-D tensors with the same batch size.

    >>> import openreg
    >>> openreg.bmm(openreg.ones(4, 2, 3), openreg.ones(4, 3, 5)).shape
    openreg.Size([4, 2, 5])
    """
    return _ov_bmm__default(input, mat2) if out is None else _ov_bmm__out(input, mat2, out=out)


def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """PyTorch's ``matmul``: dot, matrix-vector, matrix or broadcast batched product by operand dims.

    >>> import openreg
    >>> openreg.matmul(openreg.ones(2, 1, 3, 4), openreg.ones(4)).shape
    openreg.Size([2, 1, 3])
    """
    return _ov_matmul__default(input, other) if out is None else _ov_matmul__out(input, other, out=out)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out: Tensor | None = None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape.

    >>> import openreg
    >>> openreg.addmm(openreg.tensor([1.0, 2.0]), openreg.ones(1, 3), openreg.ones(3, 2), alpha=2).tolist()
    [[7.0, 8.0]]
    """
    if out is not None:
        return _ov_addmm__out(input, mat1, mat2, beta=beta, alpha=alpha, out=out)
    return _ov_addmm__default(input, mat1, mat2, beta=beta, alpha=alpha)


def dot(input: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inner product of two 1-D tensors of the same dtype and length.

    >>> import openreg
    >>> openreg.dot(openreg.tensor([1, 2]), openreg.tensor([3, 4])).item()
    11
    """
    return _ov_dot__default(input, tensor) if out is None else _ov_dot__out(input, tensor, out=out)


def outer(input: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Outer product of two vectors.

    >>> import openreg
    >>> openreg.outer(openreg.tensor([1, 2]), openreg.tensor([3, 4])).tolist()
    [[3, 4], [6, 8]]
    """
    return _ov_outer__default(input, vec2) if out is None else _ov_outer__out(input, vec2, out=out)


ger = outer


def _check_tensor_lists(op: str, a, b) -> None:
    if len(a) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(a) != len(b):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(a)} and {len(b)}")


def _foreach_add(self: list, other: list, *, alpha=1) -> list:
    """``[a + alpha * b for a, b in zip(self, other)]`` as one operator call.

    >>> import openreg
    >>> [t.tolist() for t in openreg._foreach_add([openreg.ones(2)], [openreg.ones(2)])]
    [[2.0, 2.0]]
    """
    _check_tensor_lists("_foreach_add", self, other)
    return _ov__foreach_add__List(self, other, alpha=alpha)


def _foreach_add_(self: list, other: list, *, alpha=1) -> None:
    """In-place ``a.add_(b, alpha=alpha)`` for each pair.

    >>> import openreg
    >>> a = [openreg.ones(2)]
    >>> openreg._foreach_add_(a, [openreg.ones(2)]); a[0].tolist()
    [2.0, 2.0]
    """
    _check_tensor_lists("_foreach_add_", self, other)
    _ov__foreach_add___List(self, other, alpha=alpha)


__all__ = [
    "_foreach_add",
    "_foreach_add_",
    "abs",
    "add",
    "addmm",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "bmm",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "cos",
    "div",
    "divide",
    "dot",
    "eq",
    "exp",
    "floor_divide",
    "ge",
    "ger",
    "greater",
    "greater_equal",
    "gt",
    "le",
    "less",
    "less_equal",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "matmul",
    "maximum",
    "mean",
    "minimum",
    "mm",
    "mul",
    "multiply",
    "ne",
    "neg",
    "negative",
    "nonzero",
    "not_equal",
    "outer",
    "pow",
    "prod",
    "reciprocal",
    "relu",
    "remainder",
    "rsqrt",
    "rsub",
    "sigmoid",
    "sin",
    "softmax",
    "sqrt",
    "sub",
    "subtract",
    "sum",
    "tanh",
    "true_divide",
    "where",
]
