"""Math tensor methods and Python operators (``+ - * / // % ** @``, comparisons, ``& | ^ ~``, unary ``-``).

Each is a thin call of an ``openreg.ops.aten`` overload looked up once at import; installed on ``Tensor``
with ``_tensor_methods.install``. Operators return ``NotImplemented`` for operands that are neither tensors
nor numbers, so Python raises its usual ``TypeError``.

>>> import openreg
>>> x = openreg.tensor([1.0, -2.0])
>>> (2 ** x).tolist(), (x @ x).item(), (x > 0).tolist()
([2.0, 0.25], 5.0, [True, False])
"""
from __future__ import annotations

from . import functions_math as F
from ._dispatch.ops import ops
from ._tensor_methods import install
from .functions_math import is_number, wrap_scalar
from .tensor import Tensor

aten = ops.aten
_NUMBER_TYPES = (int, float, bool)

_abs, _abs_ = aten.abs.default, aten.abs_.default
_neg, _neg_ = aten.neg.default, aten.neg_.default
_add_t, _add_s, _add_t_, _add_s_ = aten.add.Tensor, aten.add.Scalar, aten.add_.Tensor, aten.add_.Scalar
_sub_t, _sub_s, _sub_t_, _sub_s_ = aten.sub.Tensor, aten.sub.Scalar, aten.sub_.Tensor, aten.sub_.Scalar
_rsub_s = aten.rsub.Scalar
_mul_t, _mul_s, _mul_t_, _mul_s_ = aten.mul.Tensor, aten.mul.Scalar, aten.mul_.Tensor, aten.mul_.Scalar
_div_t, _div_s, _div_t_, _div_s_ = aten.div.Tensor, aten.div.Scalar, aten.div_.Tensor, aten.div_.Scalar
_divm_t, _divm_s, _divm_t_, _divm_s_ = (aten.div.Tensor_mode, aten.div.Scalar_mode, aten.div_.Tensor_mode,
                                        aten.div_.Scalar_mode)
_fdiv_t, _fdiv_s = aten.floor_divide.default, aten.floor_divide.Scalar
_fdiv_t_, _fdiv_s_ = aten.floor_divide_.Tensor, aten.floor_divide_.Scalar
_rem_t, _rem_s, _rem_st = aten.remainder.Tensor, aten.remainder.Scalar, aten.remainder.Scalar_Tensor
_rem_t_, _rem_s_ = aten.remainder_.Tensor, aten.remainder_.Scalar
_pow_tt, _pow_ts, _pow_st = aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar, aten.pow.Scalar
_pow_t_, _pow_s_ = aten.pow_.Tensor, aten.pow_.Scalar
_matmul = aten.matmul.default
_ov_bitwise_not__default = aten.bitwise_not.default
_ov_clamp___Tensor = aten.clamp_.Tensor
_ov_clamp___default = aten.clamp_.default
_ov_clamp_min___Tensor = aten.clamp_min_.Tensor
_ov_clamp_min___default = aten.clamp_min_.default
_ov_clamp_max___Tensor = aten.clamp_max_.Tensor
_ov_clamp_max___default = aten.clamp_max_.default
_ov_amax__default = aten.amax.default
_ov_amin__default = aten.amin.default
_ov_argmax__default = aten.argmax.default
_ov_argmin__default = aten.argmin.default
_ov_softmax__int = aten.softmax.int
_ov_log_softmax__int = aten.log_softmax.int
_ov_addmm__default = aten.addmm.default
_ov_addmm___default = aten.addmm_.default


def _num(x) -> bool:
    return type(x) in _NUMBER_TYPES or is_number(x)


# -- arithmetic methods ---------------------------------------------------------------------------------

def add(self, other, *, alpha=1):
    return _add_t(self, other, alpha=alpha) if isinstance(other, Tensor) else _add_s(self, other, alpha)


def add_(self, other, *, alpha=1):
    return _add_t_(self, other, alpha=alpha) if isinstance(other, Tensor) else _add_s_(self, other, alpha)


def sub(self, other, *, alpha=1):
    return _sub_t(self, other, alpha=alpha) if isinstance(other, Tensor) else _sub_s(self, other, alpha)


def sub_(self, other, *, alpha=1):
    return _sub_t_(self, other, alpha=alpha) if isinstance(other, Tensor) else _sub_s_(self, other, alpha)


def mul(self, other):
    return _mul_t(self, other) if isinstance(other, Tensor) else _mul_s(self, other)


def mul_(self, other):
    return _mul_t_(self, other) if isinstance(other, Tensor) else _mul_s_(self, other)


def div(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _div_t(self, other) if isinstance(other, Tensor) else _div_s(self, other)
    if isinstance(other, Tensor):
        return _divm_t(self, other, rounding_mode=rounding_mode)
    return _divm_s(self, other, rounding_mode=rounding_mode)


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _div_t_(self, other) if isinstance(other, Tensor) else _div_s_(self, other)
    if isinstance(other, Tensor):
        return _divm_t_(self, other, rounding_mode=rounding_mode)
    return _divm_s_(self, other, rounding_mode=rounding_mode)


def floor_divide(self, other):
    return _fdiv_t(self, other) if isinstance(other, Tensor) else _fdiv_s(self, other)


def floor_divide_(self, other):
    return _fdiv_t_(self, other) if isinstance(other, Tensor) else _fdiv_s_(self, other)


def remainder(self, other):
    return _rem_t(self, other) if isinstance(other, Tensor) else _rem_s(self, other)


def remainder_(self, other):
    return _rem_t_(self, other) if isinstance(other, Tensor) else _rem_s_(self, other)


def pow(self, exponent):
    return _pow_tt(self, exponent) if isinstance(exponent, Tensor) else _pow_ts(self, exponent)


def pow_(self, exponent):
    return _pow_t_(self, exponent) if isinstance(exponent, Tensor) else _pow_s_(self, exponent)


# -- operators --------------------------------------------------------------------------------------------

def __add__(self, other):
    if isinstance(other, Tensor):
        return _add_t(self, other)
    return _add_s(self, other, 1) if _num(other) else NotImplemented


def __radd__(self, other):
    return _add_s(self, other, 1) if _num(other) else NotImplemented


def __iadd__(self, other):
    if isinstance(other, Tensor):
        return _add_t_(self, other)
    return _add_s_(self, other, 1) if _num(other) else NotImplemented


def __sub__(self, other):
    if isinstance(other, Tensor):
        return _sub_t(self, other)
    return _sub_s(self, other, 1) if _num(other) else NotImplemented


def __rsub__(self, other):
    return _rsub_s(self, other, 1) if _num(other) else NotImplemented


def __isub__(self, other):
    if isinstance(other, Tensor):
        return _sub_t_(self, other)
    return _sub_s_(self, other, 1) if _num(other) else NotImplemented


def __mul__(self, other):
    if isinstance(other, Tensor):
        return _mul_t(self, other)
    return _mul_s(self, other) if _num(other) else NotImplemented


def __rmul__(self, other):
    return _mul_s(self, other) if _num(other) else NotImplemented


def __imul__(self, other):
    if isinstance(other, Tensor):
        return _mul_t_(self, other)
    return _mul_s_(self, other) if _num(other) else NotImplemented


def _binary_operator(tensor_op, scalar_op):
    def op(self, other):
        if isinstance(other, Tensor):
            return tensor_op(self, other)
        return scalar_op(self, other) if _num(other) else NotImplemented
    return op


def __rtruediv__(self, other):
    return _div_t(wrap_scalar(other, self), self) if _num(other) else NotImplemented


def __rfloordiv__(self, other):
    return _fdiv_t(wrap_scalar(other, self), self) if _num(other) else NotImplemented


def __rmod__(self, other):
    return _rem_st(other, self) if _num(other) else NotImplemented


def __rpow__(self, other):
    return _pow_st(other, self) if _num(other) else NotImplemented


def __matmul__(self, other):
    return _matmul(self, other) if isinstance(other, Tensor) else NotImplemented


def __rmatmul__(self, other):
    return _matmul(other, self) if isinstance(other, Tensor) else NotImplemented


def __neg__(self):
    return _neg(self)


def __pos__(self):
    if self._dtype.name == "bool":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def __abs__(self):
    return _abs(self)


def __invert__(self):
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _ov_bitwise_not__default(self)


def _commutative(scalar_op):
    def op(self, other):
        return scalar_op(self, other) if _num(other) else NotImplemented
    return op


def _compare_methods(name: str) -> dict:
    packet, inplace = getattr(aten, name), getattr(aten, name + "_")
    t_ov, s_ov, t_ov_, s_ov_ = packet.Tensor, packet.Scalar, inplace.Tensor, inplace.Scalar

    def method(self, other):
        return t_ov(self, other) if isinstance(other, Tensor) else s_ov(self, other)

    def method_(self, other):
        return t_ov_(self, other) if isinstance(other, Tensor) else s_ov_(self, other)
    method.__name__, method_.__name__ = name, name + "_"
    return {name: method, name + "_": method_}


_OPERATORS = {
    "__add__": __add__, "__radd__": __radd__, "__iadd__": __iadd__,
    "__sub__": __sub__, "__rsub__": __rsub__, "__isub__": __isub__,
    "__mul__": __mul__, "__rmul__": __rmul__, "__imul__": __imul__,
    "__truediv__": _binary_operator(_div_t, _div_s), "__rtruediv__": __rtruediv__,
    "__itruediv__": _binary_operator(_div_t_, _div_s_),
    "__floordiv__": _binary_operator(_fdiv_t, _fdiv_s), "__rfloordiv__": __rfloordiv__,
    "__ifloordiv__": _binary_operator(_fdiv_t_, _fdiv_s_),
    "__mod__": _binary_operator(_rem_t, _rem_s), "__rmod__": __rmod__,
    "__imod__": _binary_operator(_rem_t_, _rem_s_),
    "__pow__": _binary_operator(_pow_tt, _pow_ts), "__rpow__": __rpow__,
    "__ipow__": _binary_operator(_pow_t_, _pow_s_),
    "__matmul__": __matmul__, "__rmatmul__": __rmatmul__,
    "__neg__": __neg__, "__pos__": __pos__, "__abs__": __abs__, "__invert__": __invert__,
}
for _name, _op in (("eq", "__eq__"), ("ne", "__ne__"), ("lt", "__lt__"), ("le", "__le__"), ("gt", "__gt__"),
                   ("ge", "__ge__")):
    _p = getattr(aten, _name)
    _OPERATORS[_op] = _binary_operator(_p.Tensor, _p.Scalar)
for _name, _op in (("bitwise_and", "and"), ("bitwise_or", "or"), ("bitwise_xor", "xor")):
    _p, _pi = getattr(aten, _name), getattr(aten, _name + "_")
    _OPERATORS[f"__{_op}__"] = _binary_operator(_p.Tensor, _p.Scalar)
    _OPERATORS[f"__r{_op}__"] = _commutative(_p.Scalar)
    _OPERATORS[f"__i{_op}__"] = _binary_operator(_pi.Tensor, _pi.Scalar)


# -- other math methods ---------------------------------------------------------------------------------

def _unary_methods(name: str) -> dict:
    """``t.<name>()`` and ``t.<name>_()``: the overloads' generated call functions themselves (no wrapper
    frame; their one parameter is ``self``)."""
    return {name: getattr(aten, name).default._call, name + "_": getattr(aten, name + "_").default._call}


def clamp(self, min=None, max=None):
    return F.clamp(self, min, max)


def clamp_(self, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = None if min is None or isinstance(min, Tensor) else wrap_scalar(min, self)
        hi = None if max is None or isinstance(max, Tensor) else wrap_scalar(max, self)
        return _ov_clamp___Tensor(self, min if lo is None else lo, max if hi is None else hi)
    return _ov_clamp___default(self, min, max)


def clamp_min_(self, min):
    return _ov_clamp_min___Tensor(self, min) if isinstance(min, Tensor) else _ov_clamp_min___default(self, min)


def clamp_max_(self, max):
    return _ov_clamp_max___Tensor(self, max) if isinstance(max, Tensor) else _ov_clamp_max___default(self, max)


def where(self, condition, other):
    return F.where(condition, self, other)


def sum(self, dim=None, keepdim=False, *, dtype=None):
    return F.sum(self, dim, keepdim, dtype=dtype)


def mean(self, dim=None, keepdim=False, *, dtype=None):
    return F.mean(self, dim, keepdim, dtype=dtype)


def prod(self, dim=None, keepdim=False, *, dtype=None):
    return F.prod(self, dim, keepdim, dtype=dtype)


def amax(self, dim=(), keepdim=False):
    return _ov_amax__default(self, dim, keepdim)


def amin(self, dim=(), keepdim=False):
    return _ov_amin__default(self, dim, keepdim)


def nonzero(self, *, as_tuple=False):
    return F.nonzero(self, as_tuple=as_tuple)


def argmax(self, dim=None, keepdim=False):
    return _ov_argmax__default(self, dim, keepdim)


def argmin(self, dim=None, keepdim=False):
    return _ov_argmin__default(self, dim, keepdim)


def softmax(self, dim, dtype=None):
    return _ov_softmax__int(self, dim, dtype)


def log_softmax(self, dim, dtype=None):
    return _ov_log_softmax__int(self, dim, dtype)


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    return _ov_addmm__default(self, mat1, mat2, beta=beta, alpha=alpha)


def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    return _ov_addmm___default(self, mat1, mat2, beta=beta, alpha=alpha)


def _logical_methods(name: str) -> dict:
    f, f_ = getattr(aten, name).default, getattr(aten, name + "_").default

    def method(self, other):
        return f(self, other)

    def method_(self, other):
        return f_(self, other)
    return {name: method, name + "_": method_}


_METHODS: dict = {
    "add": add, "add_": add_, "sub": sub, "sub_": sub_, "subtract": sub, "mul": mul, "mul_": mul_,
    "multiply": mul, "div": div, "div_": div_, "divide": div, "true_divide": div, "floor_divide": floor_divide,
    "floor_divide_": floor_divide_, "remainder": remainder, "remainder_": remainder_, "pow": pow, "pow_": pow_,
    "clamp": clamp, "clamp_": clamp_, "clip": clamp, "clip_": clamp_,
    "clamp_min": F.clamp_min, "clamp_max": F.clamp_max, "clamp_min_": clamp_min_, "clamp_max_": clamp_max_,
    "where": where, "maximum": F.maximum, "minimum": F.minimum, "sum": sum, "mean": mean, "prod": prod,
    "amax": amax, "amin": amin, "argmax": argmax, "nonzero": nonzero, "argmin": argmin, "softmax": softmax,
    "log_softmax": log_softmax, "mm": F.mm, "bmm": F.bmm, "matmul": F.matmul, "addmm": addmm, "addmm_": addmm_,
    "dot": F.dot, "outer": F.outer, "ger": F.outer, "rsub": F.rsub,
}
for _name in ("abs", "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal",
              "relu", "bitwise_not", "logical_not"):
    _METHODS.update(_unary_methods(_name))
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor"):
    _METHODS.update(_compare_methods(_name))
for _name in ("logical_and", "logical_or", "logical_xor"):
    _METHODS.update(_logical_methods(_name))
for _alias, _target in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
                        ("not_equal", "ne")):
    _METHODS[_alias] = _METHODS[_target]
_METHODS["negative"] = _METHODS["neg"]

install({**_METHODS, **_OPERATORS})
