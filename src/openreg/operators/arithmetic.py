"""Arithmetic operators: ``add``, ``sub``, ``rsub``, ``mul``, ``div``, ``floor_divide``, ``remainder``, ``pow``,
``maximum``, ``minimum``, ``hypot``, and the Python operators ``+ - * / // % **`` (reflected and in-place).

A Python number where PyTorch's function wants a tensor (``openreg.add(x, 2, out=o)``, ``openreg.div(1, x)``)
is wrapped into a zero-dim tensor that promotes like the number (``_scalars.py``). Operators return
``NotImplemented`` for operands that are neither tensors nor numbers, so Python raises its usual TypeError.

>>> import openreg
>>> x = openreg.tensor([7, -7])
>>> (x // 2).tolist(), x.div(2, rounding_mode="trunc").tolist(), (2 ** openreg.tensor([0.5, 2.0])).tolist()
([3, -4], [3, -3], [1.4142135381698608, 4.0])
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, scalar_type_name
from ..scalar_conversion import check_scalar_fits
from ..tensor import TensorBase as Tensor
from ._compute import is_cpu_scalar, opmath_pair, pair, quiet, round_to, rounded_scalar, upcast
from ._formulas import conj as _cj
from ._formulas import holomorphic, mask, scalar, zeros
from ._pointwise import (
    binary_spec,
    check_tensor,
    float_spec,
    is_integral,
    not_for_bool,
    not_for_complex,
    not_for_complex_kernel,
)
from ._record import NONDIFF, Deriv, Op, register, sparse_kernels
from ._scalars import as_tensor_operand, check_input, is_number, python_operators, reflected_operator

# bfloat16 add/sub/mul/div on the device: a raw kernel widening per element (cuda_kernels/bf16.cu)
_DEVICE = "openreg.backends.privateuseone.device_ops"

_BOOL = _dt.bool
def _binary_call(op: str, input, other, tensor_ov, scalar_ov, out_ov, out, **kw):
    """Pick the Tensor or Scalar overload (or ``out=``) for ``input <op> other``."""
    if not isinstance(input, Tensor):
        if isinstance(other, Tensor) and is_number(input):
            input = as_tensor_operand(input, other)
        else:
            check_input(op, input)
    if out is not None:
        return out_ov(input, as_tensor_operand(other, input) if is_number(other) else other, out=out, **kw)
    if isinstance(other, Tensor) or scalar_ov is None:
        return tensor_ov(input, other, **kw)
    return scalar_ov(input, other, **kw)


def _zero_division_check(xp, b, spec) -> None:
    if spec.compute.category <= _dt.INTEGRAL and bool(xp.any(b == 0)):
        raise RuntimeError("ZeroDivisionError")


# -- add, sub, rsub ------------------------------------------------------------------------------------------

def _alpha_check(spec: Spec, alpha) -> None:
    d = spec.compute
    if isinstance(alpha, complex) and not d.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    if isinstance(alpha, float) and not (d.is_floating_point or d.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, bool) and d is not _dt.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    check_scalar_fits(alpha, spec.dtype)


def _add_meta(self, other, alpha=1) -> Spec:
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


def _sub_meta(self, other, alpha=1) -> Spec:
    if self._dtype is _dt.bool or other.__class__ is bool or getattr(other, "_dtype", None) is _dt.bool:
        _sub_check(self, other)
    spec = binary_spec("sub", self, other)
    if alpha.__class__ is not int or alpha != 1:
        _alpha_check(spec, alpha)
    return spec


# PyTorch's CPU binary loops (AVX-512 build) take elements in blocks of 32: a 16-bit result's last numel % 32
# elements go through the scalar loop, whose rounding can differ from the vectorized one
_VEC_BLOCK = 32


def _scaled(spec, xp, a, b, alpha):
    """``a`` and ``alpha * b`` to add, as PyTorch's CPU kernels compute them. For float16 and bfloat16, alpha is
    rounded to the 16-bit type and the sum is rounded once from float32. float16 with a tensor ``b``: the product
    stays in float32 (PyTorch's vectorized loop) except in the last ``numel % 32`` elements of the result (its
    scalar loop: every element of a tensor under 32 elements), where it is rounded to float16 first; with a scalar
    ``b`` it is rounded. bfloat16 keeps it in float32 everywhere, as the device's raw kernel computes it (PyTorch's
    scalar loop rounds it: a bfloat16 tensor's last numel % 32 elements can differ from PyTorch's)."""
    if alpha == 1:
        return a, b
    d = spec.compute
    if d.is_reduced_float:
        with quiet():
            product = upcast(b, xp) * xp.asarray(rounded_scalar(alpha, d), dtype=xp.float32)
        if not product.ndim or d.is_narrow_float:
            return upcast(a, xp), product if d.is_narrow_float else round_to(xp, product, d)
        shape = tuple(spec.size)
        n = math.prod(shape)
        tail = n % _VEC_BLOCK
        if tail:
            product = xp.array(xp.broadcast_to(product, shape)).reshape(-1)
            product[n - tail:] = round_to(xp, product[n - tail:], d)
            product = product.reshape(shape)
        return upcast(a, xp), product
    return a, b * xp.asarray(alpha).astype(b.dtype)


def _add(spec, self, other, alpha=1):
    xp, a, b = pair(spec, self, other)
    if spec.compute_dtype is _BOOL:
        return xp.logical_or(a, xp.logical_and(b, bool(alpha)))
    if alpha != 1:
        a, b = _scaled(spec, xp, a, b, alpha)
    return xp.add(a, b)


def _sub(spec, self, other, alpha=1):
    xp, a, b = pair(spec, self, other)
    return xp.subtract(*_scaled(spec, xp, a, b, alpha))


def _rsub(spec, self, other, alpha=1):
    xp, a, b = pair(spec, self, other)
    b, a = _scaled(spec, xp, b, a, alpha)
    return xp.subtract(b, a)


def add(input: Tensor, other, *, alpha=1, out: Tensor | None = None) -> Tensor:
    """``input + alpha * other`` with broadcasting and type promotion.

    >>> import openreg
    >>> openreg.add(openreg.tensor([1, 2]), 1.5).tolist()
    [2.5, 3.5]
    """
    if out is None and isinstance(other, Tensor) and isinstance(input, Tensor):    # _binary_call's common case
        return A.add__Tensor(input, other, alpha=alpha)
    return _binary_call("add", input, other, A.add__Tensor, A.add__Scalar, A.add__out, out, alpha=alpha)


def sub(input: Tensor, other, *, alpha=1, out: Tensor | None = None) -> Tensor:
    """``input - alpha * other``.

    >>> import openreg
    >>> openreg.sub(openreg.tensor([5, 7]), openreg.tensor([1, 2]), alpha=2).tolist()
    [3, 3]
    """
    if out is None and isinstance(other, Tensor) and isinstance(input, Tensor):    # _binary_call's common case
        return A.sub__Tensor(input, other, alpha=alpha)
    return _binary_call("sub", input, other, A.sub__Tensor, A.sub__Scalar, A.sub__out, out, alpha=alpha)


def rsub(input: Tensor, other, *, alpha=1) -> Tensor:
    """``other - alpha * input``.

    >>> import openreg
    >>> openreg.rsub(openreg.tensor([1.0, 2.0]), 10).tolist()
    [9.0, 8.0]
    """
    check_input("rsub", input)
    if isinstance(other, Tensor):
        return A.rsub__Tensor(input, other, alpha=alpha)
    return A.rsub__Scalar(input, other, alpha)


_ADD_SUB_SCHEMAS = """
    {0}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  [core, pointwise]
    {0}_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)  [pointwise]
    {0}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {0}.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  [core, pointwise]
    {0}_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)  [pointwise]
"""

add_op = Op(
    "add", _ADD_SUB_SCHEMAS.format("add"), meta=_add_meta, compute=_add, elementwise=True, scalar_types=True,
    ufunc={"add.Tensor": "add", "add.Scalar": "add"},      # bool: add is logical_or, as _add computes it
    overrides={"privateuseone": f"{_DEVICE}:add_compute"},
    kernels={"add.Tensor": sparse_kernels("add_sparse"), "add_.Tensor": sparse_kernels("add_sparse_")},
    derivatives={"add.Tensor": Deriv(pointwise=True, self=lambda g, a: g,
                                     other=lambda g, a: g * a.alpha if scalar(a.alpha) != 1 else g),
                 "add.Scalar": Deriv(pointwise=True, self=lambda g, a: g)},
    function=add,
    extra_methods=python_operators("add", ("add__Tensor", "add__Scalar"), ("add___Tensor", "add___Scalar"),
                                   reflected_operator("add__Scalar")))
sub_op = Op(
    "sub", _ADD_SUB_SCHEMAS.format("sub"), meta=_sub_meta, compute=_sub, elementwise=True, scalar_types=True,
    ufunc={"sub.Tensor": "subtract", "sub.Scalar": "subtract"},
    overrides={"privateuseone": f"{_DEVICE}:sub_compute"},
    derivatives={"sub.Tensor": Deriv(pointwise=True, self=lambda g, a: g,
                                     other=lambda g, a: -(g * a.alpha) if scalar(a.alpha) != 1 else -g),
                 "sub.Scalar": Deriv(pointwise=True, self=lambda g, a: g)},
    function=sub, extra_functions={"subtract": sub},
    extra_methods={"subtract": "sub",
                   **python_operators("sub", ("sub__Tensor", "sub__Scalar"), ("sub___Tensor", "sub___Scalar"),
                                      reflected_operator("rsub__Scalar"))})
rsub_op = Op(
    "rsub",
    """
    rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  [pointwise]
    """,
    meta=_sub_meta, compute=_rsub, elementwise=True, scalar_types=True, overrides={"privateuseone": f"{_DEVICE}:rsub_compute"},
    derivatives={"rsub.Tensor": Deriv(pointwise=True, self=lambda g, a: -(g * a.alpha), other=lambda g, a: g),
                 "rsub.Scalar": Deriv(pointwise=True, name="RsubBackward1", self=lambda g, a: -(g * a.alpha))},
    function=rsub, method=rsub)


# -- mul, div, floor_divide --------------------------------------------------------------------------------

def _mul(spec, self, other):
    # float16/bfloat16 times a scalar: the scalar in float32 (opmath_pair)
    xp, a, b = opmath_pair(spec, self, other) if spec.compute.is_reduced_float else pair(spec, self, other)
    if spec.compute_dtype is _BOOL:
        return xp.logical_and(a, b)
    return xp.multiply(a, b)


def _div_meta(self, other) -> Spec:
    spec = binary_spec("div", self, other)
    if spec.compute.category <= _dt.INTEGRAL:
        d = _dt.get_default_dtype()
        return Spec(spec.size, d, spec.device, d)
    return spec


def _div_mode_meta(self, other, *, rounding_mode=None) -> Spec:
    if rounding_mode is None:
        return _div_meta(self, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    spec = binary_spec("div", self, other)
    not_for_bool("div", spec, f"div_{rounding_mode}_cpu")
    if spec.compute.is_complex:
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for "
                                  f"'{scalar_type_name(spec.compute)}'")
    return spec


def _trunc_int_div(xp, a, b):
    q = xp.floor_divide(a, b)
    fix = (xp.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def _div(spec, self, other, *, rounding_mode=None):
    # float16/bfloat16 by a scalar: the scalar in float32 (opmath_pair)
    xp, a, b = opmath_pair(spec, self, other) if spec.compute.is_reduced_float else pair(spec, self, other)
    if rounding_mode is None:
        with quiet():
            return xp.true_divide(upcast(a, xp), upcast(b, xp))
    _zero_division_check(xp, b, spec)
    with quiet():
        if rounding_mode == "floor":
            return xp.floor_divide(a, b)
        if spec.compute.category <= _dt.INTEGRAL:
            return _trunc_int_div(xp, a, b)
        return xp.trunc(xp.true_divide(upcast(a, xp), upcast(b, xp)))


def mul(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """Elementwise product.

    >>> import openreg
    >>> openreg.mul(openreg.tensor([1, 2]), openreg.tensor([[3], [4]])).tolist()
    [[3, 6], [4, 8]]
    """
    if out is None and isinstance(other, Tensor) and isinstance(input, Tensor):    # _binary_call's common case
        return A.mul__Tensor(input, other)
    return _binary_call("mul", input, other, A.mul__Tensor, A.mul__Scalar, A.mul__out, out)


def div(input: Tensor, other, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor:
    """True division (integers give floats), or ``"trunc"``/``"floor"`` rounded division.

    >>> import openreg
    >>> openreg.div(openreg.tensor([7, -7]), 2).tolist()
    [3.5, -3.5]
    >>> openreg.div(openreg.tensor([7, -7]), 2, rounding_mode="floor").tolist()
    [3, -4]
    """
    if rounding_mode is None:
        if out is None and isinstance(other, Tensor) and isinstance(input, Tensor):    # the common case
            return A.div__Tensor(input, other)
        return _binary_call("div", input, other, A.div__Tensor, A.div__Scalar, A.div__out, out)
    return _binary_call("div", input, other, A.div__Tensor_mode, A.div__Scalar_mode, A.div__out_mode, out,
                        rounding_mode=rounding_mode)


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
    return _binary_call("floor_divide", input, other, A.floor_divide, A.floor_divide__Scalar,
                        A.floor_divide__out, out)


def _div_method(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return A.div__Tensor(self, other) if isinstance(other, Tensor) else A.div__Scalar(self, other)
    if isinstance(other, Tensor):
        return A.div__Tensor_mode(self, other, rounding_mode=rounding_mode)
    return A.div__Scalar_mode(self, other, rounding_mode=rounding_mode)


def _div_method_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return A.div___Tensor(self, other) if isinstance(other, Tensor) else A.div___Scalar(self, other)
    if isinstance(other, Tensor):
        return A.div___Tensor_mode(self, other, rounding_mode=rounding_mode)
    return A.div___Scalar_mode(self, other, rounding_mode=rounding_mode)


def __rtruediv__(self, other):
    """``other / self`` for a number ``other``: ``self.reciprocal() * other``, as PyTorch's Tensor.__rdiv__
    computes it (the same bits, and the graph MulBackward0 over ReciprocalBackward0)."""
    if not is_number(other):
        return NotImplemented
    return A.mul__Tensor(A.reciprocal(self), as_tensor_operand(other, self))


def __rfloordiv__(self, other):
    return A.floor_divide(as_tensor_operand(other, self), self) if is_number(other) else NotImplemented


def _div_mode_self(g, a):
    return g / a.other if a.rounding_mode is None else g * 0


mul_op = Op(
    "mul",
    """
    mul.Tensor(Tensor self, Tensor other) -> Tensor  [core, pointwise]
    mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    mul.Scalar(Tensor self, Scalar other) -> Tensor  [core, pointwise]
    mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  [pointwise]
    """,
    meta=lambda self, other: binary_spec("mul", self, other), compute=_mul, elementwise=True, scalar_types=True,
    ufunc={"mul.Tensor": "multiply", "mul.Scalar": "multiply"},  # bool: multiply is logical_and, as _mul computes it
    overrides={"privateuseone": f"{_DEVICE}:mul_compute"},
    kernels={"mul.Tensor": sparse_kernels("mul_sparse"), "mul.Scalar": sparse_kernels("mul_scalar_sparse"),
             "mul_.Tensor": sparse_kernels("mul_sparse_"), "mul_.Scalar": sparse_kernels("mul_scalar_sparse_")},
    derivatives={"mul.Tensor": Deriv(save="self other", self=lambda g, a: g * _cj(a.other),
                                     other=lambda g, a: g * _cj(a.self),
                                     jvp={"self": lambda t, a: t * a.other, "other": lambda t, a: t * a.self}),
                 "mul.Scalar": Deriv(self=lambda g, a: g * _cj(a.other), jvp={"self": lambda t, a: t * a.other})},
    function=mul, extra_functions={"multiply": mul},
    extra_methods={"multiply": "mul",
                   **python_operators("mul", ("mul__Tensor", "mul__Scalar"), ("mul___Tensor", "mul___Scalar"),
                                      reflected_operator("mul__Scalar"))})
div_op = Op(
    "div",
    """
    div.Tensor(Tensor self, Tensor other) -> Tensor  [core, pointwise]
    div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    div.Scalar(Tensor self, Scalar other) -> Tensor  [core, pointwise]
    div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  [pointwise]
    div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor  [core, pointwise]
    div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)  [pointwise]
    div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor  [core, pointwise]
    div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)  [pointwise]
    """,
    meta={"div.Tensor": _div_meta, "div.Scalar": _div_meta, "div.Tensor_mode": _div_mode_meta,
          "div.Scalar_mode": _div_mode_meta},
    compute=_div, elementwise=True, scalar_types=True, overrides={"privateuseone": f"{_DEVICE}:div_compute"},
    # float16: NumPy's half division rounds the float32 quotient, as _div's upcast does
    ufunc={"div.Tensor": "true_divide", "div.Scalar": "true_divide"},
    derivatives={
        "div.Tensor": Deriv(save="self other", self=lambda g, a: g / _cj(a.other),
                            other=lambda g, a: -(g * _cj(a.self)) / _cj(a.other * a.other),
                            jvp={"self": lambda t, a: t / a.other,
                                 "other": lambda t, a: -(t * a.self) / (a.other * a.other)}),
        "div.Scalar": Deriv(self=lambda g, a: g / _cj(a.other), jvp={"self": lambda t, a: t / a.other}),
        "div.Tensor_mode": Deriv(save="self other", pointwise=True, name="DivBackward2", self=_div_mode_self,
                                 other=lambda g, a: -(g * a.self) / (a.other * a.other) if a.rounding_mode is None
                                 else g * 0),
        "div.Scalar_mode": Deriv(pointwise=True, name="DivBackward3", self=_div_mode_self)},
    function=div, method=_div_method, extra_functions={"divide": div, "true_divide": true_divide},
    extra_methods={"div_": _div_method_, "divide": _div_method, "true_divide": _div_method,
                   **python_operators("truediv", ("div__Tensor", "div__Scalar"),
                                      ("div___Tensor", "div___Scalar"), __rtruediv__)})
floor_divide_op = Op(
    "floor_divide",
    """
    floor_divide(Tensor self, Tensor other) -> Tensor
    floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
    floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
    floor_divide.Scalar(Tensor self, Scalar other) -> Tensor
    floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
    """,
    meta=lambda self, other: _div_mode_meta(self, other, rounding_mode="floor"),
    compute=lambda spec, self, other: _div(spec, self, other, rounding_mode="floor"), elementwise=True,
    derivatives={"floor_divide": NONDIFF, "floor_divide.Scalar": NONDIFF},
    function=floor_divide,
    extra_methods={**python_operators("floordiv", ("floor_divide", "floor_divide__Scalar"),
                                      ("floor_divide___Tensor", "floor_divide___Scalar"), __rfloordiv__)})


# -- remainder, pow -------------------------------------------------------------------------------------------

def _remainder_meta(self, other) -> Spec:
    spec = binary_spec("remainder", self, other)
    not_for_complex_kernel(spec, "remainder_cpu")
    not_for_bool("remainder", spec, "remainder_cpu")
    return spec


def _remainder_scalar_tensor_meta(self, other) -> Spec:
    check_tensor("remainder", "other", other)
    spec = binary_spec("remainder", other, self)
    not_for_complex_kernel(spec, "remainder_cpu")
    not_for_bool("remainder", spec, "remainder_cpu")
    return spec


def _remainder(spec, self, other):
    xp, a, b = pair(spec, self, other)
    _zero_division_check(xp, b, spec)
    with quiet():
        if spec.compute.is_reduced_float:
            # PyTorch's float16/bfloat16 kernel: fmod in float32, plus the divisor when the signs differ, rounded
            # once; a zero keeps the dividend's sign (NumPy's remainder gives it the divisor's)
            a, b = upcast(a, xp), upcast(b, xp)
            m = xp.fmod(a, b)
            return xp.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)
        return xp.remainder(a, b)


def remainder(input, other, *, out: Tensor | None = None) -> Tensor:
    """Python's ``%``: the result has the sign of the divisor.

    >>> import openreg
    >>> openreg.remainder(openreg.tensor([-3, 3]), 2).tolist()
    [1, 1]
    """
    if not isinstance(input, Tensor) and out is None and isinstance(other, Tensor):
        return A.remainder__Scalar_Tensor(input, other)
    if out is not None and not isinstance(other, Tensor) and isinstance(input, Tensor):
        return A.remainder__Scalar_out(input, other, out=out)
    return _binary_call("remainder", input, other, A.remainder__Tensor, A.remainder__Scalar,
                        A.remainder__Tensor_out, out)


def __rmod__(self, other):
    return A.remainder__Scalar_Tensor(other, self) if is_number(other) else NotImplemented


def _remainder_other(g, a):
    return -(g * A.div__Tensor_mode(a.self, a.other, rounding_mode="floor"))


remainder_op = Op(
    "remainder",
    """
    remainder.Tensor(Tensor self, Tensor other) -> Tensor  [core, pointwise]
    remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    remainder.Scalar(Tensor self, Scalar other) -> Tensor  [core, pointwise]
    remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  [pointwise]
    remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor  [pointwise]
    """,
    meta={"remainder.Tensor": _remainder_meta, "remainder.Scalar": _remainder_meta,
          "remainder.Scalar_Tensor": _remainder_scalar_tensor_meta},
    compute=_remainder, elementwise=True,
    derivatives={
        "remainder.Tensor": Deriv(save="self other", name="RemainderBackward1", pointwise=True,
                                  self=lambda g, a: g, other=_remainder_other),
        "remainder.Scalar": Deriv(name="RemainderBackward0", pointwise=True, self=lambda g, a: g),
        "remainder.Scalar_Tensor": Deriv(save="other", pointwise=True, name="RemainderBackward2",
                                         other=lambda g, a: -(g * A.div__Tensor_mode(
                                             a.other * 0 + a.self, a.other, rounding_mode="floor")))},
    function=remainder,
    extra_methods={**python_operators("mod", ("remainder__Tensor", "remainder__Scalar"),
                                      ("remainder___Tensor", "remainder___Scalar"), __rmod__)})


def _pow_meta(self, exponent) -> Spec:
    spec = binary_spec("pow", self, exponent)
    if isinstance(exponent, Tensor):
        not_for_bool("pow", spec, "pow")
    elif (is_integral(self._dtype) and isinstance(exponent, int) and not isinstance(exponent, bool)
            and exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    elif not spec.dtype.is_complex and spec.dtype not in (_dt.float32, _dt.float64):
        check_scalar_fits(exponent, spec.dtype)  # PyTorch's integral and half kernels convert the exponent
    return spec


def _pow_scalar_meta(self, exponent) -> Spec:
    check_tensor("pow", "exponent", exponent)
    spec = binary_spec("pow", exponent, self)
    not_for_bool("pow", spec, "pow")
    return spec


def _int_pow(xp, a, e):
    """Integer power with PyTorch's rule for negative exponents: 1 ** -n = 1, (-1) ** -n = +-1, else 0."""
    neg = e < 0
    if not bool(xp.any(neg)):
        return xp.power(a, e)
    r = xp.power(a, xp.where(neg, 0, e))
    one = xp.ones((), dtype=r.dtype)
    odd = (e % 2) != 0
    special = xp.where(a == 1, one, xp.where(a == -1, xp.where(odd, -one, one), 0 * one))
    return xp.where(neg, special, r)


def _pow(spec, self, exponent):
    xp, a, e = pair(spec, self, exponent)
    if spec.compute_dtype is _BOOL:  # x ** True = x, x ** False = True
        return xp.logical_or(a, xp.logical_not(e))
    if spec.compute.category <= _dt.INTEGRAL:
        return _int_pow(xp, a, e)
    with quiet():
        if spec.compute is _dt.bfloat16 and isinstance(self, Tensor) and is_cpu_scalar(exponent):
            p = float(e)
            if p == 3.0 or p == -2.0:
                # PyTorch's bfloat16 kernel rounds the square to bfloat16 for these exponents: x*x*x, 1/(x*x)
                sq = round_to(xp, a * a, _dt.bfloat16)
                return sq * a if p == 3.0 else 1 / sq
        return xp.power(upcast(a, xp), upcast(e, xp))


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
        return A.pow__Scalar(input, exponent) if out is None else A.pow__Scalar_out(input, exponent, out=out)
    if isinstance(exponent, Tensor):
        if out is None:
            return A.pow__Tensor_Tensor(input, exponent)
        return A.pow__Tensor_Tensor_out(input, exponent, out=out)
    if out is None:
        return A.pow__Tensor_Scalar(input, exponent)
    return A.pow__Tensor_Scalar_out(input, exponent, out=out)


def _pow_method(self, exponent):
    if isinstance(exponent, Tensor):
        return A.pow__Tensor_Tensor(self, exponent)
    return A.pow__Tensor_Scalar(self, exponent)


def _pow_method_(self, exponent):
    return A.pow___Tensor(self, exponent) if isinstance(exponent, Tensor) else A.pow___Scalar(self, exponent)


def __rpow__(self, other):
    return A.pow__Scalar(other, self) if is_number(other) else NotImplemented


def _pow_scalar_grad(g, a):
    e = scalar(a.exponent)
    if e == 0:
        return g * 0
    return g * e * a.self.pow(e - 1)


def _pow_tt_exp(g, a):
    base, res = a.self, a.result
    return g * res * A.where__self(base > 0, base, zeros((), base) + 1).log()


def _log_scalar(x) -> float:
    import math
    return math.log(scalar(x))


pow_op = Op(
    "pow",
    """
    pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor  [core, pointwise]
    pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)  [pointwise]
    pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor  [core, pointwise]
    pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)  [pointwise]
    pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    pow.Scalar(Scalar self, Tensor exponent) -> Tensor  [core, pointwise]
    pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """,
    meta={"pow.Tensor_Tensor": _pow_meta, "pow.Tensor_Scalar": _pow_meta, "pow.Scalar": _pow_scalar_meta},
    compute=_pow, elementwise=True, overrides={"privateuseone": f"{_DEVICE}:pow_compute"},
    derivatives={
        "pow.Tensor_Tensor": Deriv(save="self exponent result", pointwise=True, name="PowBackward1",
                                   self=lambda g, a: g * a.exponent * a.self.pow(a.exponent - 1),
                                   exponent=_pow_tt_exp),
        "pow.Tensor_Scalar": Deriv(save="self", name="PowBackward0", self=holomorphic(_pow_scalar_grad),
                                   jvp={"self": _pow_scalar_grad}),
        "pow.Scalar": Deriv(save="result", pointwise=True, name="PowBackward2",
                            exponent=lambda g, a: g * a.result * _log_scalar(a.self))},
    function=pow, method=_pow_method,
    extra_methods={"pow_": _pow_method_, **python_operators("pow", ("pow__Tensor_Tensor", "pow__Tensor_Scalar"),
                                                            ("pow___Tensor", "pow___Scalar"), __rpow__)})


# -- maximum, minimum, hypot -------------------------------------------------------------------------------

def _minmax_meta(op: str):
    def meta(self, other) -> Spec:
        check_tensor(op, "other", other)
        spec = binary_spec(op, self, other)
        not_for_complex(op, spec, " not implemented for complex tensors.")
        return spec
    return meta


def _minmax_compute(name: str):
    def compute(spec, self, other):
        xp, a, b = pair(spec, self, other)
        return getattr(xp, name)(a, b)
    return compute


def _minmax_grads(greater: bool):
    def self_grad(g, a):
        x, y = a.self, a.other
        win = (x > y) if greater else (x < y)
        return g * (mask(win, g) + mask(x == y, g) * 0.5)

    def other_grad(g, a):
        x, y = a.self, a.other
        win = (y > x) if greater else (y < x)
        return g * (mask(win, g) + mask(x == y, g) * 0.5)
    return {"self": self_grad, "other": other_grad}


def _minmax(name: str, greater: bool, example: str) -> Op:
    return Op(
        name,
        f"""
        {name}(Tensor self, Tensor other) -> Tensor  [core, pointwise]
        {name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
        """,
        meta=_minmax_meta(name), compute=_minmax_compute(name), elementwise=True,
        derivatives={name: Deriv(save="self other", pointwise=True, **_minmax_grads(greater))},
        doc=f"""Elementwise {name} of two tensors (NaN propagates).

        >>> import openreg
        >>> openreg.{name}(openreg.tensor([1, 5]), openreg.tensor([3, 2])).tolist()
        {example}
        """)


maximum = _minmax("maximum", True, "[3, 5]")
minimum = _minmax("minimum", False, "[1, 2]")


def _hypot_compute(spec, self, other):
    xp, a, b = pair(spec, self, other)
    with quiet():
        return xp.hypot(upcast(a, xp), upcast(b, xp))


hypot = Op(
    "hypot",
    """
    hypot(Tensor self, Tensor other) -> Tensor  [pointwise]
    hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    hypot_(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    """,
    meta=lambda self, other: float_spec("hypot", self, other),
    compute=_hypot_compute,
    elementwise=True,
    derivatives={"hypot": Deriv(save="self other result", pointwise=True,
                                self=lambda g, a: g * a.self / a.result,
                                other=lambda g, a: g * a.other / a.result)},
    doc="""Elementwise ``sqrt(input**2 + other**2)``, without overflow for large inputs.

    >>> import openreg
    >>> openreg.hypot(openreg.tensor([3.0, 5.0]), openreg.tensor([4.0, 12.0])).tolist()
    [5.0, 13.0]
    """,
)

register(add_op, sub_op, rsub_op, mul_op, div_op, floor_divide_op, remainder_op, pow_op, maximum, minimum, hypot)
