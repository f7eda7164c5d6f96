"""Pointwise operators: their PyTorch schemas and meta functions (size, dtype, device of the result).

Every op here is structured (``structured_ops.register``): one meta function serves the functional, ``out=``
and in-place overloads on every backend, and each backend supplies a compute function
(``backends/cpu/compute_math.py``). Metas have a fast path for the common case (same shapes, same dtype).

>>> from openreg.aten.structured_ops import STRUCTURED
>>> STRUCTURED["mul.Tensor"].inplace
'mul_.Tensor'
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.tags import Tag
from ..scalar_conversion import check_scalar_fits
from ..tensor import Tensor
from .meta_rules import Spec, broadcast_shapes, common_device, result_type, scalar_type_name
from .structured_ops import register

C, P = Tag.core, Tag.pointwise
_BOOL, _INTEGRAL = _dt.BOOL, _dt.INTEGRAL
_SCALAR_CATEGORY = {bool: _dt.BOOL, int: _dt.INTEGRAL, float: _dt.FLOATING, complex: _dt.COMPLEX}

_UNARY_FLOAT = ("exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal")
_BINARY_ARITH = ("add", "sub", "mul", "div")
_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")
_LOGICAL = ("logical_and", "logical_or", "logical_xor")


def _schemas() -> list:
    s: list = []

    def add(text: str, *tags) -> None:
        s.append((text, tags))

    # -- unary --
    for name in ("abs", "neg", *_UNARY_FLOAT, "relu", "bitwise_not", "logical_not"):
        if name != "relu":
            add(f"{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", P)
        add(f"{name}(Tensor self) -> Tensor", C, P)
        add(f"{name}_(Tensor(a!) self) -> Tensor(a!)", *(() if name == "abs" else (P,)))
    add("relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    # -- add/sub/mul/div and friends --
    for name in ("add", "sub"):
        add(f"{name}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", C, P)
        add(f"{name}_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", P)
        add(f"{name}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", P)
        add(f"{name}.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", C, P)
        add(f"{name}_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", P)
    add("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    add("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", P)
    for name in ("mul", "div"):
        add(f"{name}.Tensor(Tensor self, Tensor other) -> Tensor", C, P)
        add(f"{name}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", P)
        add(f"{name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", P)
        add(f"{name}.Scalar(Tensor self, Scalar other) -> Tensor", C, P)
        add(f"{name}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", P)
    add("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", C, P)
    add("div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)", P)
    add("div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)", P)
    add("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", C, P)
    add("div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)", P)
    add("floor_divide(Tensor self, Tensor other) -> Tensor")
    add("floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")
    add("floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
    add("floor_divide.Scalar(Tensor self, Scalar other) -> Tensor")
    add("floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")
    add("remainder.Tensor(Tensor self, Tensor other) -> Tensor", C, P)
    add("remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", P)
    add("remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", P)
    add("remainder.Scalar(Tensor self, Scalar other) -> Tensor", C, P)
    add("remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", P)
    add("remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)", P)
    add("remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", P)
    add("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", C, P)
    add("pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", P)
    add("pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)", P)
    add("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", C, P)
    add("pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", P)
    add("pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)", P)
    add("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", C, P)
    add("pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)", P)
    for name in ("maximum", "minimum"):
        add(f"{name}(Tensor self, Tensor other) -> Tensor", C, P)
        add(f"{name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", P)
    # -- comparisons and bitwise --
    for name in (*_COMPARE, *_BITWISE):
        add(f"{name}.Scalar(Tensor self, Scalar other) -> Tensor", C, P)
        add(f"{name}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)", P)
        add(f"{name}.Tensor(Tensor self, Tensor other) -> Tensor", C, P)
        add(f"{name}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", P)
        inplace_tags = () if name in _COMPARE else (P,)  # PyTorch tags eq_ ... ge_ with nothing
        add(f"{name}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", *inplace_tags)
        add(f"{name}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", *inplace_tags)
    for name in _LOGICAL:
        add(f"{name}(Tensor self, Tensor other) -> Tensor", C, P)
        add(f"{name}_(Tensor(a!) self, Tensor other) -> Tensor(a!)", P)
        add(f"{name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", P)
    # -- clamp and where --
    add("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", C, P)
    add("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", C, P)
    add("clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)", P)
    add("clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)", P)
    add("clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", P)
    add("clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)", P)
    for name, arg in (("clamp_min", "min"), ("clamp_max", "max")):
        add(f"{name}(Tensor self, Scalar {arg}) -> Tensor", P)
        add(f"{name}.Tensor(Tensor self, Tensor {arg}) -> Tensor", P)
        add(f"{name}.out(Tensor self, Scalar {arg}, *, Tensor(a!) out) -> Tensor(a!)", P)
        add(f"{name}.Tensor_out(Tensor self, Tensor {arg}, *, Tensor(a!) out) -> Tensor(a!)", P)
        add(f"{name}_(Tensor(a!) self, Scalar {arg}) -> Tensor(a!)", P)
        add(f"{name}_.Tensor(Tensor(a!) self, Tensor {arg}) -> Tensor(a!)", P)
    add("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", C, P)
    add("where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
    add("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor")
    add("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor")
    add("where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor")
    return s


SCHEMAS = _schemas()


# -- shared meta pieces -------------------------------------------------------------------------------

def unwrap_number(x):
    """A wrapped-number tensor (``functions_math.wrap_scalar``) as its Python scalar, for promotion."""
    if isinstance(x, Tensor) and x.__dict__.get("_wrapped_number"):
        return x.item()
    return x


def promote(*operands):
    """``result_type`` where wrapped numbers count as the Python scalars they hold."""
    return result_type(*(unwrap_number(x) for x in operands))


def binary_spec(op: str, self, other, out_dtype=None) -> Spec:
    """Broadcast size, promoted dtype and common device of ``self <op> other`` (tensor or Python scalar).

    The result dtype is ``out_dtype`` when given (comparisons give bool); the compute dtype is always the
    promoted one.
    """
    dev = self._storage.device
    d1 = self._dtype
    if isinstance(other, Tensor):
        s1, s2 = self._size, other._size
        size = s1 if s1 == s2 else broadcast_shapes(s1, s2)
        odev = other._storage.device
        if odev is not dev and odev != dev:
            dev = common_device(op, self, other)
        dtype = d1 if other._dtype is d1 else promote(self, other)
    else:
        size = self._size
        cat = _SCALAR_CATEGORY.get(type(other))
        dtype = d1 if cat is not None and cat <= d1.category else result_type(self, other)
    return Spec(size, out_dtype or dtype, dev, dtype)


def _check_tensor(op: str, name: str, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _is_integral(d, include_bool: bool = True) -> bool:
    return d.category == _INTEGRAL or (include_bool and d.category == _BOOL)


def _not_for_bool(op: str, spec: Spec, kernel: str | None = None) -> None:
    if spec.compute is _dt.bool:
        raise NotImplementedError(f"\"{kernel or op}\" not implemented for 'Bool'")


def _not_for_complex_kernel(spec: Spec, kernel: str) -> None:
    if spec.compute.is_complex:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(spec.compute)}'")


def _not_for_complex(op: str, spec: Spec, what: str) -> None:
    if spec.compute.is_complex:
        raise RuntimeError(f"{op}{what}")


# -- unary ----------------------------------------------------------------------------------------------

def _same_dtype_unary(self) -> Spec:
    return Spec(self._size, self._dtype, self._storage.device)


def _float_unary(self) -> Spec:
    d = self._dtype
    if d.category <= _INTEGRAL:
        return Spec(self._size, _dt.get_default_dtype(), self._storage.device)
    return Spec(self._size, d, self._storage.device)


@register("abs", "abs.out", "abs_")
def abs_meta(self) -> Spec:
    d = self._dtype
    if d is _dt.bool:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return Spec(self._size, d.to_real() if d.is_complex else d, self._storage.device)


@register("neg", "neg.out", "neg_")
def neg_meta(self) -> Spec:
    if self._dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return Spec(self._size, self._dtype, self._storage.device)


for _name in _UNARY_FLOAT:
    register(_name, f"{_name}.out", f"{_name}_")(_float_unary)


@register("relu", "relu.out", "relu_")
def relu_meta(self) -> Spec:
    if self._dtype is _dt.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    if self._dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    return _same_dtype_unary(self)


@register("bitwise_not", "bitwise_not.out", "bitwise_not_")
def bitwise_not_meta(self) -> Spec:
    if not _is_integral(self._dtype):
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{scalar_type_name(self._dtype)}'")
    return _same_dtype_unary(self)


@register("logical_not", "logical_not.out", "logical_not_")
def logical_not_meta(self) -> Spec:
    return Spec(self._size, _dt.bool, self._storage.device, self._dtype)


# -- arithmetic -----------------------------------------------------------------------------------------

def _alpha_check(spec: Spec, alpha) -> None:
    d = spec.compute
    if isinstance(alpha, complex) and not d.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    if isinstance(alpha, float) and not (d.is_floating_point or d.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, bool) and d is not _dt.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    check_scalar_fits(alpha, spec.dtype)


def add_meta(self, other, alpha=1) -> Spec:
    spec = binary_spec("add", self, other)
    if alpha.__class__ is not int or alpha != 1:
        _alpha_check(spec, alpha)
    return spec


def _sub_check(self, other) -> None:
    other_bool = other._dtype is _dt.bool if isinstance(other, Tensor) else isinstance(other, bool)
    if self._dtype is _dt.bool and other_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
                           "or `logical_xor()` operator instead.")
    if self._dtype is _dt.bool or other_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def sub_meta(self, other, alpha=1) -> Spec:
    if self._dtype is _dt.bool or other.__class__ is bool or getattr(other, "_dtype", None) is _dt.bool:
        _sub_check(self, other)
    spec = binary_spec("sub", self, other)
    if alpha.__class__ is not int or alpha != 1:
        _alpha_check(spec, alpha)
    return spec


def rsub_meta(self, other, alpha=1) -> Spec:
    return sub_meta(self, other, alpha)


def mul_meta(self, other) -> Spec:
    return binary_spec("mul", self, other)


def div_meta(self, other) -> Spec:
    spec = binary_spec("div", self, other)
    if spec.compute.category <= _INTEGRAL:
        d = _dt.get_default_dtype()
        return Spec(spec.size, d, spec.device, d)
    return spec


def div_mode_meta(self, other, *, rounding_mode=None) -> Spec:
    if rounding_mode is None:
        return div_meta(self, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    spec = binary_spec("div", self, other)
    _not_for_bool("div", spec, f"div_{rounding_mode}_cpu")
    if spec.compute.is_complex:
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for "
                                  f"'{scalar_type_name(spec.compute)}'")
    return spec


def floor_divide_meta(self, other) -> Spec:
    return div_mode_meta(self, other, rounding_mode="floor")


def remainder_meta(self, other) -> Spec:
    spec = binary_spec("remainder", self, other)
    _not_for_complex_kernel(spec, "remainder_cpu")
    _not_for_bool("remainder", spec, "remainder_cpu")
    return spec


def remainder_scalar_tensor_meta(self, other) -> Spec:
    _check_tensor("remainder", "other", other)
    spec = binary_spec("remainder", other, self)
    _not_for_complex_kernel(spec, "remainder_cpu")
    _not_for_bool("remainder", spec, "remainder_cpu")
    return spec


def pow_meta(self, exponent) -> Spec:
    spec = binary_spec("pow", self, exponent)
    if isinstance(exponent, Tensor):
        _not_for_bool("pow", spec, "pow")
    elif (_is_integral(self._dtype) and isinstance(exponent, int) and not isinstance(exponent, bool)
            and exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    elif not spec.dtype.is_complex and spec.dtype not in (_dt.float32, _dt.float64):
        check_scalar_fits(exponent, spec.dtype)  # PyTorch's integral and half kernels convert the exponent
    return spec


def pow_scalar_meta(self, exponent) -> Spec:
    _check_tensor("pow", "exponent", exponent)
    spec = binary_spec("pow", exponent, self)
    _not_for_bool("pow", spec, "pow")
    return spec


def minmax_meta(op: str):
    def meta(self, other) -> Spec:
        _check_tensor(op, "other", other)
        spec = binary_spec(op, self, other)
        _not_for_complex(op, spec, " not implemented for complex tensors.")
        return spec
    return meta


register("add.Tensor", "add.out", "add_.Tensor")(add_meta)
register("add.Scalar", None, "add_.Scalar")(add_meta)
register("sub.Tensor", "sub.out", "sub_.Tensor")(sub_meta)
register("sub.Scalar", None, "sub_.Scalar")(sub_meta)
register("rsub.Tensor", None, None)(rsub_meta)
register("rsub.Scalar", None, None)(rsub_meta)
register("mul.Tensor", "mul.out", "mul_.Tensor")(mul_meta)
register("mul.Scalar", None, "mul_.Scalar")(mul_meta)
register("div.Tensor", "div.out", "div_.Tensor")(div_meta)
register("div.Scalar", None, "div_.Scalar")(div_meta)
register("div.Tensor_mode", "div.out_mode", "div_.Tensor_mode")(div_mode_meta)
register("div.Scalar_mode", None, "div_.Scalar_mode")(div_mode_meta)
register("floor_divide", "floor_divide.out", "floor_divide_.Tensor")(floor_divide_meta)
register("floor_divide.Scalar", None, "floor_divide_.Scalar")(floor_divide_meta)
register("remainder.Tensor", "remainder.Tensor_out", "remainder_.Tensor")(remainder_meta)
register("remainder.Scalar", "remainder.Scalar_out", "remainder_.Scalar")(remainder_meta)
register("remainder.Scalar_Tensor", None, None)(remainder_scalar_tensor_meta)
register("pow.Tensor_Tensor", "pow.Tensor_Tensor_out", "pow_.Tensor")(pow_meta)
register("pow.Tensor_Scalar", "pow.Tensor_Scalar_out", "pow_.Scalar")(pow_meta)
register("pow.Scalar", "pow.Scalar_out", None)(pow_scalar_meta)
register("maximum", "maximum.out", None)(minmax_meta("maximum"))
register("minimum", "minimum.out", None)(minmax_meta("minimum"))


# -- comparisons, bitwise, logical ------------------------------------------------------------------------

def compare_meta(op: str):
    ordered = op not in ("eq", "ne")

    def meta(self, other) -> Spec:
        spec = binary_spec(op, self, other, _dt.bool)
        if ordered and spec.compute.is_complex:
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
        return spec
    return meta


def bitwise_meta(op: str):
    def meta(self, other) -> Spec:
        spec = binary_spec(op, self, other)
        if not _is_integral(spec.compute):
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
        return spec
    return meta


def logical_meta(op: str):
    def meta(self, other) -> Spec:
        _check_tensor(op, "other", other)
        return binary_spec(op, self, other, _dt.bool)
    return meta


for _name in _COMPARE:
    register(f"{_name}.Tensor", f"{_name}.Tensor_out", f"{_name}_.Tensor")(compare_meta(_name))
    register(f"{_name}.Scalar", f"{_name}.Scalar_out", f"{_name}_.Scalar")(compare_meta(_name))
for _name in _BITWISE:
    register(f"{_name}.Tensor", f"{_name}.Tensor_out", f"{_name}_.Tensor")(bitwise_meta(_name))
    register(f"{_name}.Scalar", f"{_name}.Scalar_out", f"{_name}_.Scalar")(bitwise_meta(_name))
for _name in _LOGICAL:
    register(_name, f"{_name}.out", f"{_name}_")(logical_meta(_name))


# -- clamp and where ----------------------------------------------------------------------------------------

def clamp_meta(self, min=None, max=None) -> Spec:
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


def clamp_min_meta(self, min) -> Spec:
    return clamp_meta(self, min, None)


def clamp_max_meta(self, max) -> Spec:
    return clamp_meta(self, None, max)


register("clamp", "clamp.out", "clamp_")(clamp_meta)
register("clamp.Tensor", "clamp.Tensor_out", "clamp_.Tensor")(clamp_meta)
register("clamp_min", "clamp_min.out", "clamp_min_")(clamp_min_meta)
register("clamp_min.Tensor", "clamp_min.Tensor_out", "clamp_min_.Tensor")(clamp_min_meta)
register("clamp_max", "clamp_max.out", "clamp_max_")(clamp_max_meta)
register("clamp_max.Tensor", "clamp_max.Tensor_out", "clamp_max_.Tensor")(clamp_max_meta)


def where_meta(condition, self, other) -> Spec:
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


register("where.self", "where.self_out", None)(where_meta)
register("where.ScalarSelf", None, None)(where_meta)
register("where.ScalarOther", None, None)(where_meta)
register("where.Scalar", None, None)(where_meta)
