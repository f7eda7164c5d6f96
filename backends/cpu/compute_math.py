"""Compute functions of the math ops (pointwise, reductions, matrix products), merged into ``COMPUTE``.

Each takes the op's ``Spec`` and arguments and returns an array of the inputs' array module (``xp_of``:
NumPy on the CPU and the emulated device, CuPy on the cuda driver). Operands are converted to the spec's
compute dtype first, so NumPy's own promotion never decides a result dtype. Half-precision inputs of
transcendental functions and reductions are computed in float32 and rounded once, as PyTorch does.

>>> import openreg
>>> (openreg.tensor([7, -7]) // 2).tolist(), openreg.tensor([7, -7]).div(2, rounding_mode="trunc").tolist()
([3, -4], [3, -3])
"""
from __future__ import annotations

import numpy as np

from openreg import dtypes as _dt
from openreg._array_bridge import to_compute
from openreg.aten.meta_rules import normalize_dims, wrap_dim
from openreg.tensor import Tensor

from .compute import COMPUTE, as_compute, xp_of

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_BF16, _BOOL = _dt.bfloat16, _dt.bool


def _quiet():
    """NumPy warns on x/0, log(0), overflow ...; PyTorch does not, so neither do we."""
    return np.errstate(all="ignore")


def _xp2(a, b):
    return xp_of(a) if isinstance(a, Tensor) else xp_of(b)


def _operand(x, spec, xp):
    """``x`` (tensor or scalar) in the compute dtype; a zero-dim CPU tensor joins a device computation."""
    if xp is not np and isinstance(x, Tensor) and x._storage.device._type == "cpu":
        x = x.item()
    try:
        return as_compute(x, spec, xp)
    except OverflowError:  # an int scalar outside the integer dtype's range wraps around, as a C cast does
        return xp.asarray(np.asarray(x, dtype=np.int64).astype(spec.compute.numpy))


def _pair(spec, a, b):
    """The array module and both operands in the compute dtype (fast when no conversion is needed)."""
    if a.__class__ is Tensor and b.__class__ is Tensor and a._ks == b._ks:
        d = spec.compute_dtype or spec.dtype
        if a._dtype is d and b._dtype is d and d is not _BF16:
            return a._storage._backend.array_module, a._array(), b._array()
    xp = _xp2(a, b)
    return xp, _operand(a, spec, xp), _operand(b, spec, xp)


def _upcast(arr, xp):
    """float16 computed in float32 (PyTorch's opmath type)."""
    return arr.astype(xp.float32) if arr.dtype == _F16 else arr


def _zero_division_check(xp, b, spec) -> None:
    if spec.compute.category <= _dt.INTEGRAL and bool(xp.any(b == 0)):
        raise RuntimeError("ZeroDivisionError")


def _register(names, fn) -> None:
    for name in names:
        COMPUTE[name] = fn


# -- unary ----------------------------------------------------------------------------------------------

def _abs(spec, self):
    arr = to_compute(self) if self._dtype is _BF16 else self._array()
    return self._storage._backend.array_module.abs(arr)


def _neg(spec, self):
    arr = to_compute(self) if self._dtype is _BF16 else self._array()
    return self._storage._backend.array_module.negative(arr)


def _float_unary(fn):
    def compute(spec, self):
        xp = xp_of(self)
        x = _upcast(as_compute(self, spec, xp), xp)
        with _quiet():
            return fn(xp, x)
    return compute


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


def _rsqrt(xp, x):
    return 1 / xp.sqrt(x)


def _reciprocal(xp, x):
    return 1 / x


_UNARY = {
    "exp": lambda xp, x: xp.exp(x), "log": lambda xp, x: xp.log(x), "sqrt": lambda xp, x: xp.sqrt(x),
    "rsqrt": _rsqrt, "sin": lambda xp, x: xp.sin(x), "cos": lambda xp, x: xp.cos(x),
    "tanh": lambda xp, x: xp.tanh(x), "sigmoid": _sigmoid, "reciprocal": _reciprocal,
}
for _name, _fn in _UNARY.items():
    COMPUTE[_name] = _float_unary(_fn)


def _relu(spec, self):
    xp = xp_of(self)
    x = to_compute(self)
    return xp.maximum(x, xp.zeros((), dtype=x.dtype))


def _bitwise_not(spec, self):
    xp = xp_of(self)
    x = to_compute(self)
    return xp.logical_not(x) if x.dtype == np.bool_ else xp.invert(x)


def _logical_not(spec, self):
    xp = xp_of(self)
    return xp.logical_not(to_compute(self))


COMPUTE.update({"abs": _abs, "neg": _neg, "relu": _relu, "bitwise_not": _bitwise_not,
                "logical_not": _logical_not})


# -- arithmetic -----------------------------------------------------------------------------------------

def _scaled(xp, b, alpha):
    return b if alpha == 1 else b * xp.asarray(alpha).astype(b.dtype)


def _add(spec, self, other, alpha=1):
    xp, a, b = _pair(spec, self, other)
    if spec.compute_dtype is _BOOL:
        return xp.logical_or(a, xp.logical_and(b, bool(alpha)))
    if alpha != 1:
        b = b * xp.asarray(alpha).astype(b.dtype)
    return xp.add(a, b)


def _sub(spec, self, other, alpha=1):
    xp, a, b = _pair(spec, self, other)
    return xp.subtract(a, _scaled(xp, b, alpha))


def _rsub(spec, self, other, alpha=1):
    xp, a, b = _pair(spec, self, other)
    return xp.subtract(b, _scaled(xp, a, alpha))


def _mul(spec, self, other):
    xp, a, b = _pair(spec, self, other)
    if spec.compute_dtype is _BOOL:
        return xp.logical_and(a, b)
    return xp.multiply(a, b)


def _trunc_int_div(xp, a, b):
    q = xp.floor_divide(a, b)
    fix = (xp.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def _div(spec, self, other, *, rounding_mode=None):
    xp, a, b = _pair(spec, self, other)
    if rounding_mode is None:
        with _quiet():
            return xp.true_divide(_upcast(a, xp), _upcast(b, xp))
    _zero_division_check(xp, b, spec)
    integral = spec.compute.category <= _dt.INTEGRAL
    with _quiet():
        if rounding_mode == "floor":
            return xp.floor_divide(a, b)
        if integral:
            return _trunc_int_div(xp, a, b)
        return xp.trunc(xp.true_divide(_upcast(a, xp), _upcast(b, xp)))


def _floor_divide(spec, self, other):
    return _div(spec, self, other, rounding_mode="floor")


def _remainder(spec, self, other):
    xp, a, b = _pair(spec, self, other)
    _zero_division_check(xp, b, spec)
    with _quiet():
        return xp.remainder(a, b)


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
    xp, a, e = _pair(spec, self, exponent)
    if spec.compute_dtype is _BOOL:  # x ** True = x, x ** False = True
        return xp.logical_or(a, xp.logical_not(e))
    if spec.compute.category <= _dt.INTEGRAL:
        return _int_pow(xp, a, e)
    with _quiet():
        return xp.power(_upcast(a, xp), _upcast(e, xp))


def _maximum(spec, self, other):
    xp, a, b = _pair(spec, self, other)
    return xp.maximum(a, b)


def _minimum(spec, self, other):
    xp, a, b = _pair(spec, self, other)
    return xp.minimum(a, b)


_register(("add.Tensor", "add.Scalar"), _add)
_register(("sub.Tensor", "sub.Scalar"), _sub)
_register(("rsub.Tensor", "rsub.Scalar"), _rsub)
_register(("mul.Tensor", "mul.Scalar"), _mul)
_register(("div.Tensor", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode"), _div)
_register(("floor_divide", "floor_divide.Scalar"), _floor_divide)
_register(("remainder.Tensor", "remainder.Scalar", "remainder.Scalar_Tensor"), _remainder)
_register(("pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar"), _pow)
_register(("maximum",), _maximum)
_register(("minimum",), _minimum)


# -- comparisons, bitwise, logical ------------------------------------------------------------------------

def _binary_ufunc(ufunc_name: str):
    def compute(spec, self, other):
        xp, a, b = _pair(spec, self, other)
        return getattr(xp, ufunc_name)(a, b)
    compute.__name__ = ufunc_name
    return compute


for _op, _uf in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                 ("gt", "greater"), ("ge", "greater_equal"), ("bitwise_and", "bitwise_and"),
                 ("bitwise_or", "bitwise_or"), ("bitwise_xor", "bitwise_xor")):
    _register((f"{_op}.Tensor", f"{_op}.Scalar"), _binary_ufunc(_uf))
for _op in ("logical_and", "logical_or", "logical_xor"):
    COMPUTE[_op] = _binary_ufunc(_op)


# -- clamp and where ----------------------------------------------------------------------------------------

def _clamp(spec, self, min=None, max=None):
    xp = xp_of(self)
    x = _operand(self, spec, xp)
    if min is not None:
        x = xp.maximum(x, _operand(min, spec, xp))
    if max is not None:
        x = xp.minimum(x, _operand(max, spec, xp))
    return x


def _clamp_min(spec, self, min):
    return _clamp(spec, self, min, None)


def _clamp_max(spec, self, max):
    return _clamp(spec, self, None, max)


def _where(spec, condition, self, other):
    xp = xp_of(condition)
    cond = to_compute(condition)
    if cond.dtype != np.bool_:
        cond = cond.astype(xp.bool_)
    return xp.where(cond, _operand(self, spec, xp), _operand(other, spec, xp))


_register(("clamp", "clamp.Tensor"), _clamp)
_register(("clamp_min", "clamp_min.Tensor"), _clamp_min)
_register(("clamp_max", "clamp_max.Tensor"), _clamp_max)
_register(("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar"), _where)


# -- reductions ---------------------------------------------------------------------------------------------

def _reduce_input(spec, self, dtype, xp):
    """The input in the dtype to reduce in (``dtype=`` converts first) and the accumulation dtype."""
    arr = as_compute(self, spec, xp) if dtype is not None else to_compute(self)
    acc = _F32 if spec.compute is _dt.bfloat16 or spec.compute is _dt.float16 else spec.compute.numpy
    return arr, acc


def _sum(spec, self, dim=None, keepdim=False, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    return xp.asarray(arr.sum(axis=normalize_dims(dim, self.dim()), dtype=acc, keepdims=keepdim))


def _sum_all(spec, self, *, dtype=None):
    return _sum(spec, self, None, False, dtype=dtype)


def _mean(spec, self, dim=None, keepdim=False, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    axes = normalize_dims(dim, self.dim())
    count = 1
    for d in axes:
        count *= arr.shape[d]
    with _quiet():  # an empty reduction is 0 / 0 = nan, without NumPy's "Mean of empty slice" warning
        return xp.asarray(xp.sum(arr, axis=axes, keepdims=keepdim, dtype=acc) / xp.asarray(count, dtype=acc))


def _mean_all(spec, self, *, dtype=None):
    return _mean(spec, self, None, False, dtype=dtype)


def _prod(spec, self, dim, keepdim=False, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    axis = normalize_dims((dim,), self.dim())
    with _quiet():
        return xp.asarray(arr.prod(axis=axis, dtype=acc, keepdims=keepdim))


def _prod_all(spec, self, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    with _quiet():
        return xp.asarray(arr.prod(dtype=acc))


def _minmax_reduction(fn_name: str):
    def compute(spec, self, dim=(), keepdim=False):
        xp = xp_of(self)
        return xp.asarray(getattr(xp, fn_name)(to_compute(self), axis=normalize_dims(dim, self.dim()),
                                               keepdims=keepdim))
    return compute


def _arg_reduction(fn_name: str):
    def compute(spec, self, dim=None, keepdim=False):
        xp = xp_of(self)
        arr = to_compute(self)
        fn = getattr(xp, fn_name)
        if dim is None or arr.ndim == 0:
            return xp.asarray(fn(arr.reshape(-1))).reshape(spec.size)
        return xp.asarray(fn(arr, axis=wrap_dim(dim, arr.ndim), keepdims=keepdim))
    return compute


def _softmax_parts(spec, self, dim, xp):
    x = _upcast(as_compute(self, spec, xp), xp)
    axis = wrap_dim(dim, x.ndim) if x.ndim else None
    if x.size == 0:
        return x, axis
    shifted = x - xp.max(x, axis=axis, keepdims=True)
    return shifted, axis


def _softmax(spec, self, dim, half_to_float):
    xp = xp_of(self)
    with _quiet():
        shifted, axis = _softmax_parts(spec, self, dim, xp)
        e = xp.exp(shifted)
        return e / xp.sum(e, axis=axis, keepdims=True)


def _log_softmax(spec, self, dim, half_to_float):
    xp = xp_of(self)
    with _quiet():
        shifted, axis = _softmax_parts(spec, self, dim, xp)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))


COMPUTE.update({
    "sum.dim_IntList": _sum, "sum": _sum_all, "mean.dim": _mean, "mean": _mean_all,
    "prod.dim_int": _prod, "prod": _prod_all,
    "amax": _minmax_reduction("amax"), "amin": _minmax_reduction("amin"),
    "argmax": _arg_reduction("argmax"), "argmin": _arg_reduction("argmin"),
    "_softmax": _softmax, "_log_softmax": _log_softmax,
})


# -- matrix products ----------------------------------------------------------------------------------------

def _mm(spec, self, mat2):
    xp = xp_of(self)
    return xp.matmul(to_compute(self), to_compute(mat2))


def _addmm(spec, self, mat1, mat2, *, beta=1, alpha=1):
    xp = xp_of(mat1)
    prod = xp.matmul(to_compute(mat1), to_compute(mat2))
    if alpha != 1:
        prod = prod * xp.asarray(alpha, dtype=prod.dtype)
    if beta == 0:
        return prod
    base = _operand(self, spec, xp)
    if beta != 1:
        base = base * xp.asarray(beta, dtype=prod.dtype)
    return prod + base


def _dot(spec, self, tensor):
    xp = xp_of(self)
    return xp.asarray(xp.dot(to_compute(self), to_compute(tensor)))


COMPUTE.update({"mm": _mm, "bmm": _mm, "addmm": _addmm, "dot": _dot})


# -- unstructured CPU kernels -------------------------------------------------------------------------------

def cpu_kernels() -> dict:
    """Kernels the CPU backend registers directly (device-agnostic loops over other ops)."""
    from openreg.aten.composite_math import FOREACH
    return dict(FOREACH)
