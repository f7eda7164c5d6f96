"""Elementary float functions: hyperbolic (``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``), inverse
trigonometric (``asin``, ``acos``, ``atan``), ``log2``, ``log10``, ``exp2``, ``sinc``, ``deg2rad``, ``rad2deg``, and
the binary ``xlogy``, ``logaddexp``, ``logaddexp2`` and ``float_power``.

Integer and bool inputs give the default float dtype; float16 and bfloat16 are computed in float32 and rounded
once. NumPy's ``arc*`` names are PyTorch's aliases (``openreg.arcsin`` is ``asin``).

>>> import openreg
>>> x = openreg.tensor([0.0, 1.0])
>>> openreg.sinh(x).tolist(), openreg.exp2(x).tolist(), openreg.rad2deg(openreg.tensor([3.141592653589793]))
([0.0, 1.175201177597046], [1.0, 2.0], tensor([180.]))
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, scalar_type_name
from ..tensor import TensorBase
from ._compute import f32_via_f64, operand, pair, quiet, round_to, upcast, xp_of
from ._formulas import holomorphic
from ._pointwise import binary_spec, check_tensor, float_spec
from ._record import Deriv, Op, register
from .special_functions import float_unary_spec

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _unary_schemas(name: str) -> str:
    return f"""
    {name}(Tensor self) -> Tensor  [core, pointwise]
    {name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """


def _xp_compute(xp_name: str):
    def compute(spec, self):
        xp = xp_of(self)
        return getattr(xp, xp_name)(upcast(operand(self, spec, xp), xp))
    compute.__name__ = f"_{xp_name}_compute"
    return compute


def _complex_unary_spec(op: str):
    """``float_unary_spec`` that also takes complex inputs (the result keeps their dtype)."""
    real = float_unary_spec(op)

    def meta(self) -> Spec:
        d = self._dtype
        return Spec(self._size, d, self._storage.device, d) if d.is_complex else real(self)
    return meta


def _unary(name: str, xp_name: str, save: str, grad, example: str, alias: str | None = None, compute=None,
           analytic: bool = False) -> Op:
    """A float unary record; ``alias`` is NumPy's name, published as PyTorch's alias function and methods;
    ``compute`` replaces NumPy's function ``xp_name``. ``analytic`` functions also take complex inputs (NumPy's
    principal branches are C99's, as PyTorch's) and pass ``grad * conj(f'(z))`` back, as PyTorch."""
    aliases = {}
    if alias:
        aliases = {"extra_functions": {alias: name}, "extra_methods": {alias: name, f"{alias}_": f"{name}_"}}
    deriv = (Deriv(save=save, self=holomorphic(grad), jvp={"self": grad}) if analytic
             else Deriv(save=save, pointwise=True, self=grad))
    meta = _complex_unary_spec(name) if analytic else float_unary_spec(name)
    return Op(name, _unary_schemas(name), meta=meta, compute=compute or _xp_compute(xp_name),
              elementwise=True, derivatives={name: deriv},
              doc=f"Elementwise ``{name}`` (``aten::{name}``), optionally into ``out``.\n\n>>> import openreg\n"
                  f">>> openreg.{name}(openreg.tensor([{example}])).tolist()\n"
                  f"[{_example_value(xp_name, example)}]\n", **aliases)


def _example_value(xp_name: str, example: str) -> str:
    import numpy as np
    return repr(float(getattr(np, xp_name)(np.float32(float(example)))))


def _sinc_grad(g, a):
    x = a.self
    px = x * math.pi
    d = (px * px.cos() - px.sin()) / (px * x)
    return g * A.masked_fill__Scalar(d, x == 0, 0)


def _acosh_grad(g, a):
    z = a.self
    if z._dtype.is_complex:     # 1 / sqrt(z**2 - 1) on the principal branch of acosh: sqrt(z - 1) sqrt(z + 1)
        return g * (z - 1).rsqrt() * (z + 1).rsqrt()
    return g * (z * z - 1).rsqrt()


sinh = _unary("sinh", "sinh", "self", lambda g, a: g * a.self.cosh(), "0.0", analytic=True)
cosh = _unary("cosh", "cosh", "self", lambda g, a: g * a.self.sinh(), "0.0", analytic=True)
asin = _unary("asin", "arcsin", "self", lambda g, a: g * (1 - a.self * a.self).rsqrt(), "1.0", "arcsin",
              analytic=True)
acos = _unary("acos", "arccos", "self", lambda g, a: -(g * (1 - a.self * a.self).rsqrt()), "1.0", "arccos",
              analytic=True)
atan = _unary("atan", "arctan", "self", lambda g, a: g / (a.self * a.self + 1), "0.0", "arctan", analytic=True)
asinh = _unary("asinh", "arcsinh", "self", lambda g, a: g * (a.self * a.self + 1).rsqrt(), "0.0", "arcsinh",
               analytic=True)
acosh = _unary("acosh", "arccosh", "self", _acosh_grad, "1.0", "arccosh", analytic=True)
atanh = _unary("atanh", "arctanh", "self", lambda g, a: g / (1 - a.self * a.self), "0.0", "arctanh",
               analytic=True)
log2 = _unary("log2", "log2", "self", lambda g, a: g / (a.self * _LN2), "8.0", analytic=True)
log10 = _unary("log10", "log10", "self", lambda g, a: g / (a.self * _LN10), "100.0", analytic=True)
exp2 = _unary("exp2", "exp2", "result", lambda g, a: g * a.result * _LN2, "3.0")
def _sinc_compute(spec, self):
    """NumPy's sinc; float16/bfloat16 as PyTorch's kernel: ``sin(f32(pi) * x) / (f32(pi) * x)`` in float32 (the
    sine float64's, rounded: PyTorch's is within an ulp), 1 at 0."""
    xp = xp_of(self)
    x = upcast(operand(self, spec, xp), xp)
    with quiet():
        if spec.compute.is_reduced_float:
            p = xp.float32(math.pi) * x
            return xp.where(x == 0, xp.float32(1.0), f32_via_f64(xp, xp.sin, p) / p)
        return xp.sinc(x)


sinc = _unary("sinc", "sinc", "self", _sinc_grad, "0.0", compute=_sinc_compute)
deg2rad = _unary("deg2rad", "deg2rad", "", lambda g, a: g * (math.pi / 180.0), "180.0")
rad2deg = _unary("rad2deg", "rad2deg", "", lambda g, a: g * (180.0 / math.pi), "0.0")


# -- xlogy -----------------------------------------------------------------------------------------------

def _xlogy_meta(self, other) -> Spec:
    spec = binary_spec("xlogy", self, other) if isinstance(self, TensorBase) else binary_spec("xlogy", other, self)
    if spec.compute.is_complex:
        raise NotImplementedError(f"\"xlogy_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
    if not spec.compute.is_floating_point:
        d = _dt.get_default_dtype()
        return Spec(spec.size, d, spec.device, d)
    return spec


def _xlogy_scalar_self_meta(self, other) -> Spec:
    check_tensor("xlogy", "other", other)
    return _xlogy_meta(self, other)


def _xlogy(spec, self, other):
    """``x * log(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN)."""
    xp, x, y = pair(spec, self, other)
    x, y = upcast(x, xp), upcast(y, xp)
    with quiet():
        log_y = xp.log(y)
        if spec.compute.is_reduced_float:
            # PyTorch's float16/bfloat16 kernel takes log(y) in the 16-bit type, then x * it in float32
            log_y = round_to(xp, f32_via_f64(xp, xp.log, y), spec.compute)
        res = x * log_y
    return xp.where((x == 0) & ~xp.isnan(y), xp.zeros((), dtype=res.dtype), res)


def _xlogy_self_grad(g, a):
    """``g * log(other)``, except 0 where ``self`` is 0 and ``other`` is not positive (PyTorch's rule)."""
    other = a.other
    grad = A.xlogy__Tensor(g, other) if isinstance(other, TensorBase) else A.xlogy__Scalar_Other(g, other)
    return A.masked_fill__Scalar(grad, (a.self == 0) & (other <= 0), 0)


xlogy = Op(
    "xlogy",
    """
    xlogy.Tensor(Tensor self, Tensor other) -> Tensor  [pointwise]
    xlogy_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    xlogy.OutTensor(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor  [pointwise]
    xlogy_.Scalar_Other(Tensor(a!) self, Scalar other) -> Tensor(a!)  [pointwise]
    xlogy.OutScalar_Other(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor  [pointwise]
    xlogy.OutScalar_Self(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """,
    meta={"xlogy.Tensor": _xlogy_meta, "xlogy.Scalar_Other": _xlogy_meta,
          "xlogy.Scalar_Self": _xlogy_scalar_self_meta},
    compute=_xlogy, elementwise=True,
    derivatives={
        "xlogy.Tensor": Deriv(save="self other", pointwise=True, self=_xlogy_self_grad,
                              other=lambda g, a: g * a.self / a.other),
        "xlogy.Scalar_Other": Deriv(save="self other", pointwise=True, self=_xlogy_self_grad),
        "xlogy.Scalar_Self": Deriv(save="self other", pointwise=True, other=lambda g, a: g * a.self / a.other)},
    doc="""Elementwise ``input * log(other)``, with 0 where ``input`` is 0 (``scipy.special.xlogy``).

    >>> import openreg
    >>> openreg.xlogy(openreg.tensor([0.0, 2.0]), openreg.tensor([0.0, 1.0])).tolist()
    [0.0, 0.0]
    """)


# -- logaddexp, logaddexp2 --------------------------------------------------------------------------------

def _logaddexp_compute(base2: bool):
    def compute(spec, self, other):
        xp, a, b = pair(spec, self, other)
        a, b = upcast(a, xp), upcast(b, xp)
        return xp.logaddexp2(a, b) if base2 else xp.logaddexp(a, b)
    return compute


def _logaddexp_grads(base2: bool):
    """d/da log(e^a + e^b) = 1 / (1 + e^(b - a)); base 2 the same with 2^(b - a)."""
    def weight(x, y):
        d = y - x
        return 1 / ((d * _LN2).exp() + 1) if base2 else 1 / (d.exp() + 1)
    return {"self": lambda g, a: g * weight(a.self, a.other), "other": lambda g, a: g * weight(a.other, a.self)}


def _logaddexp_op(name: str, base2: bool, doc: str) -> Op:
    return Op(name, f"""
    {name}(Tensor self, Tensor other) -> Tensor  [pointwise]
    {name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """, meta=lambda self, other: float_spec(name, self, other), compute=_logaddexp_compute(base2),
              elementwise=True,
              derivatives={name: Deriv(save="self other", pointwise=True, **_logaddexp_grads(base2))}, doc=doc)


logaddexp = _logaddexp_op("logaddexp", False, """Elementwise ``log(exp(input) + exp(other))`` without overflow.

    >>> import openreg
    >>> openreg.logaddexp(openreg.tensor([1000.0]), openreg.tensor([1000.0])).tolist()
    [1000.6931762695312]
    """)
logaddexp2 = _logaddexp_op("logaddexp2", True, """Elementwise ``log2(2**input + 2**other)`` without overflow.

    >>> import openreg
    >>> openreg.logaddexp2(openreg.tensor([3.0]), openreg.tensor([3.0])).tolist()
    [4.0]
    """)


# -- float_power --------------------------------------------------------------------------------------------

def _float_power_meta(self, exponent) -> Spec:
    """Always double precision: complex128 when either operand is complex, float64 otherwise."""
    if isinstance(self, TensorBase):
        spec = binary_spec("float_power", self, exponent)
    else:
        check_tensor("float_power", "exponent", exponent)
        spec = binary_spec("float_power", exponent, self)
    d = _dt.complex128 if spec.compute.is_complex else _dt.float64
    return Spec(spec.size, d, spec.device, d)


def _float_power(spec, self, exponent):
    xp = xp_of(self) if isinstance(self, TensorBase) else xp_of(exponent)
    return xp.power(operand(self, spec, xp), operand(exponent, spec, xp))


def _float_power_inplace(self, exponent):
    """``float_power_`` keeps ``self``'s dtype, so it must already be the double result dtype."""
    want = _dt.complex128 if self._dtype.is_complex or (isinstance(exponent, TensorBase) and
                                                         exponent._dtype.is_complex) else _dt.float64
    if self._dtype is not want:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(self._dtype)} but the "
                           f"operation's result requires dtype {scalar_type_name(want)}")
    if isinstance(exponent, TensorBase):
        return A.float_power___Tensor(self, exponent)
    return A.float_power___Scalar(self, exponent)


def _float_power_exponent_grad(g, a):
    base = a.self if isinstance(a.self, TensorBase) else None
    if base is None:
        return g * a.result * math.log(a.self) if a.self > 0 else g * a.result * 0
    return g * a.result * A.where__self(base > 0, base, base * 0 + 1).log()


float_power = Op(
    "float_power",
    """
    float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor  [pointwise]
    float_power_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)  [pointwise]
    float_power.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor  [pointwise]
    float_power_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)  [pointwise]
    float_power.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    float_power.Scalar(Scalar self, Tensor exponent) -> Tensor  [pointwise]
    float_power.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """,
    meta=_float_power_meta, compute=_float_power, elementwise=True,
    derivatives={
        "float_power.Tensor_Tensor": Deriv(save="self exponent result", pointwise=True,
                                           self=lambda g, a: g * a.exponent * a.self.pow(a.exponent - 1),
                                           exponent=_float_power_exponent_grad),
        "float_power.Tensor_Scalar": Deriv(save="self exponent", pointwise=True,
                                           self=lambda g, a: g * 0 if a.exponent == 0 else
                                           g * a.exponent * a.self.double().pow(a.exponent - 1)),
        "float_power.Scalar": Deriv(save="self result", pointwise=True, exponent=_float_power_exponent_grad)},
    extra_methods={"float_power_": _float_power_inplace},
    doc="""Elementwise ``input ** exponent`` in double precision (float64, or complex128 for complex operands).

    >>> import openreg
    >>> openreg.float_power(openreg.tensor([2]), 0.5).dtype
    openreg.float64
    """)

register(sinh, cosh, asin, acos, atan, asinh, acosh, atanh, log2, log10, exp2, sinc, deg2rad, rad2deg, xlogy,
         logaddexp, logaddexp2, float_power)
