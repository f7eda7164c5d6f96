"""More elementwise math: ``tan``, ``square``, ``atan2`` (``arctan2``), ``fmod``, ``copysign``, ``logit``, ``sgn``,
``heaviside``, ``fmax``/``fmin``, ``isin``, ``isneginf``/``isposinf`` (``addcmul``, ``addcdiv``, ``lerp`` are in
``addc_lerp.py``).

Result dtypes follow PyTorch: ``tan``, ``atan2``, ``copysign`` and ``logit`` of integers give the default float
dtype; ``square``, ``fmod``, ``fmax``/``fmin``, ``addcmul`` keep the promoted type; ``lerp`` wants every operand of
one floating dtype. float16 and bfloat16 are computed in float32 and rounded once.

>>> import openreg
>>> x = openreg.tensor([1.0, -2.0])
>>> openreg.fmod(x, 1.5).tolist(), openreg.atan2(x, openreg.ones(2)).tolist()
([1.0, -0.5], [0.7853981256484985, -1.1071487665176392])
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, common_device
from ..tensor import TensorBase
from ._compute import f32_via_f64, operand, pair, quiet, round_to, rounded_scalar, upcast, xp_of
from ._formulas import mask
from ._pointwise import binary_spec, check_tensor, not_for_bool, not_for_complex_kernel, promote
from ._record import Deriv, Op, register
from .rounding import _sign
from .special_functions import float_unary_spec


def _zeros_grad(g, a):
    return A.zeros_like(g)


def _floating(spec: Spec) -> Spec:
    """Integer and bool results become the default float dtype (computed in it)."""
    if spec.compute.is_floating_point or spec.compute.is_complex:
        return spec
    d = _dt.get_default_dtype()
    return Spec(spec.size, d, spec.device, d)


# -- tan, square, sgn --------------------------------------------------------------------------------------

def _tan(spec, self):
    xp = xp_of(self)
    with quiet():
        return xp.tan(upcast(operand(self, spec, xp), xp))


tan = Op("tan", """
    tan(Tensor self) -> Tensor  [core, pointwise]
    tan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    tan_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """, meta=float_unary_spec("tan"), compute=_tan, elementwise=True,
    derivatives={"tan": Deriv(save="result", pointwise=True, self=lambda g, a: g * (a.result * a.result + 1))},
    doc="""Elementwise tangent.

    >>> import openreg
    >>> openreg.tan(openreg.tensor([0.0])).tolist()
    [0.0]
    """)


square = Op("square", """
    square(Tensor self) -> Tensor  [pointwise]
    square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    square_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """, kernels={"square": {"CompositeImplicitAutograd": lambda self: A.pow__Tensor_Scalar(self, 2)},
                  "square.out": {"CompositeImplicitAutograd":
                                 lambda self, *, out: A.pow__Tensor_Scalar_out(self, 2, out=out)},
                  "square_": {"CompositeImplicitAutograd": lambda self: A.pow___Scalar(self, 2)}},
    doc="""Elementwise ``input ** 2`` (integers and bool give int64 as ``pow`` does).

    >>> import openreg
    >>> openreg.square(openreg.tensor([3, -2])).tolist()
    [9, 4]
    """)


def _sgn_meta(self) -> Spec:
    return Spec(self._size, self._dtype, self._storage.device)


def _sgn(spec, self):
    xp = xp_of(self)
    x = operand(self, spec, xp)
    if x.dtype.kind == "c":
        mag = xp.abs(x)
        with quiet():
            return xp.where(mag == 0, xp.zeros((), dtype=x.dtype), x / mag)
    return _sign(xp, upcast(x, xp))


def _sgn_grad(g, a):
    """Real inputs: 0 (a step). Complex: ``sgn(z) = z / |z|`` is not analytic; with ``u = sgn(z)`` its Wirtinger
    derivatives are ``1 / (2|z|)`` and ``-u**2 / (2|z|)``, so PyTorch's ``g * conj(d/dz) + conj(g) * d/dconj(z)``
    is ``(g - u**2 conj(g)) / (2|z|)``, 0 at ``z = 0``."""
    z = a.self
    if not z._dtype.is_complex:
        return _zeros_grad(g, a)
    u = a.result
    mag = z.abs()
    grad = (g - u * u * g.conj()) / (2 * mag)
    return A.masked_fill__Scalar(grad, mag == 0, 0)


def _sgn_jvp(t, a):
    """The tangent: ``(t - u**2 conj(t)) / (2|z|)`` (the same Wirtinger derivatives; 0 for real inputs)."""
    return _sgn_grad(t, a)


sgn = Op("sgn", """
    sgn(Tensor self) -> Tensor  [pointwise]
    sgn.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    sgn_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """, meta=_sgn_meta, compute=_sgn, elementwise=True,
    derivatives={"sgn": Deriv(save="self result", self=_sgn_grad, jvp={"self": _sgn_jvp})},
    doc="""``sign`` extended to complex numbers (``x / |x|``, 0 at 0).

    >>> import openreg
    >>> openreg.sgn(openreg.tensor([-2.0, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    """)


# -- atan2, copysign, fmod, logit --------------------------------------------------------------------------

def _atan2_meta(self, other) -> Spec:
    check_tensor("atan2", "other", other)
    spec = binary_spec("atan2", self, other)
    not_for_complex_kernel(spec, "atan2_cpu")
    return _floating(spec)


def _atan2(spec, self, other):
    xp, a, b = pair(spec, self, other)
    with quiet():
        return xp.arctan2(upcast(a, xp), upcast(b, xp))


def _atan2_grads():
    def denom(a):
        return a.self * a.self + a.other * a.other
    return {"self": lambda g, a: g * a.other / denom(a), "other": lambda g, a: -(g * a.self) / denom(a)}


atan2 = Op("atan2", """
    atan2(Tensor self, Tensor other) -> Tensor  [core, pointwise]
    atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [core, pointwise]
    atan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    """, meta=_atan2_meta, compute=_atan2, elementwise=True,
    derivatives={"atan2": Deriv(save="self other", pointwise=True, **_atan2_grads())},
    extra_functions={"arctan2": "atan2"}, extra_methods={"arctan2": "atan2", "arctan2_": "atan2_"},
    doc="""Elementwise angle of the point ``(other, input)``: ``atan(input / other)`` in the right quadrant.

    >>> import openreg
    >>> openreg.atan2(openreg.tensor([1.0]), openreg.tensor([-1.0])).tolist()
    [2.356194496154785]
    """)


def _copysign_meta(self, other) -> Spec:
    spec = binary_spec("copysign", self, other)
    not_for_complex_kernel(spec, "copysign_cpu")
    return _floating(spec)


def _copysign(spec, self, other):
    xp, a, b = pair(spec, self, other)
    return xp.copysign(upcast(a, xp), upcast(b, xp))


def _copysign_self(g, a):
    ratio = a.result / a.self
    return g * A.masked_fill__Scalar(ratio, a.self == 0, 0)


copysign = Op("copysign", """
    copysign.Tensor(Tensor self, Tensor other) -> Tensor  [pointwise]
    copysign.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    copysign_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
    copysign.Scalar(Tensor self, Scalar other) -> Tensor  [pointwise]
    copysign.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    copysign_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
    """, meta=_copysign_meta, compute=_copysign, elementwise=True,
    derivatives={"copysign.Tensor": Deriv(save="self result", pointwise=True, self=_copysign_self,
                                          other=lambda g, a: g * 0),
                 "copysign.Scalar": Deriv(save="self result", pointwise=True, self=_copysign_self)},
    doc="""The magnitude of ``input`` with the sign of ``other`` (signed zeros included).

    >>> import openreg
    >>> openreg.copysign(openreg.tensor([1.0, -2.0]), -0.0).tolist()
    [-1.0, -2.0]
    """)


def _fmod_meta(self, other) -> Spec:
    spec = binary_spec("fmod", self, other)
    not_for_bool("fmod", spec, "fmod_cpu")
    not_for_complex_kernel(spec, "fmod_cpu")
    return spec


def _fmod(spec, self, other):
    xp, a, b = pair(spec, self, other)
    if spec.compute.category <= _dt.INTEGRAL and bool(xp.any(b == 0)):
        raise RuntimeError("ZeroDivisionError")
    with quiet():
        return xp.fmod(upcast(a, xp), upcast(b, xp))


fmod = Op("fmod", """
    fmod.Tensor(Tensor self, Tensor other) -> Tensor  [core, pointwise]
    fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    fmod_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    fmod.Scalar(Tensor self, Scalar other) -> Tensor  [core, pointwise]
    fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  [pointwise]
    """, meta=_fmod_meta, compute=_fmod, elementwise=True,
    derivatives={"fmod.Tensor": Deriv(save="self other", pointwise=True, self=lambda g, a: g,
                                      other=lambda g, a: -(g * (a.self / a.other).trunc())),
                 "fmod.Scalar": Deriv(pointwise=True, self=lambda g, a: g)},
    doc="""C's ``fmod``: the remainder of ``input / other`` with the sign of the dividend.

    >>> import openreg
    >>> openreg.fmod(openreg.tensor([-3.0, 3.0]), 2).tolist()
    [-1.0, 1.0]
    """)


def _logit(spec, self, eps=None):
    xp = xp_of(self)
    x = upcast(operand(self, spec, xp), xp)
    d = spec.compute
    if d.is_reduced_float:
        # PyTorch's float16/bfloat16 kernel works in the 16-bit type: the bounds eps and 1 - eps, 1 - x, the
        # quotient and its log are each rounded to it
        with quiet():
            if eps is not None and eps >= 0:
                lo = rounded_scalar(eps, d)
                x = xp.clip(x, xp.float32(lo), xp.float32(rounded_scalar(1.0 - lo, d)))
            q = round_to(xp, x / round_to(xp, xp.float32(1.0) - x, d), d)
            return f32_via_f64(xp, xp.log, q)
    if eps is not None:
        x = xp.clip(x, eps, 1.0 - eps)
    with quiet():
        return xp.log(x / (1.0 - x))


def _logit_grad(g, a):
    x, eps = a.self, a.eps
    d = g / (x * (1 - x))
    if eps is None:
        return A.masked_fill__Scalar(d, (x < 0) | (x > 1), math.nan)
    return A.masked_fill__Scalar(d, (x < eps) | (x > 1 - eps), 0)


logit = Op("logit", """
    logit(Tensor self, float? eps=None) -> Tensor  [pointwise]
    logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    logit_(Tensor(a!) self, float? eps=None) -> Tensor(a!)  [pointwise]
    """, meta=lambda self, eps=None: float_unary_spec("logit")(self), compute=_logit, elementwise=True,
    derivatives={"logit": Deriv(save="self eps", pointwise=True, self=_logit_grad)},
    doc="""Elementwise ``log(p / (1 - p))``; with ``eps``, ``p`` is clamped to ``[eps, 1 - eps]`` first.

    >>> import openreg
    >>> openreg.logit(openreg.tensor([0.5, 0.0]), eps=0.25).tolist()
    [0.0, -1.0986123085021973]
    """)


# -- heaviside, fmax, fmin ------------------------------------------------------------------------------------

def _heaviside_meta(self, values) -> Spec:
    check_tensor("heaviside", "values", values)
    if self._dtype.is_complex or values._dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return binary_spec("heaviside", self, values)


def _heaviside(spec, self, values):
    xp, x, v = pair(spec, self, values)
    return xp.where(x == 0, v, (x > 0).astype(x.dtype))


heaviside = Op("heaviside", """
    heaviside(Tensor self, Tensor values) -> Tensor  [pointwise]
    heaviside.out(Tensor self, Tensor values, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    heaviside_(Tensor(a!) self, Tensor values) -> Tensor(a!)
    """, meta=_heaviside_meta, compute=_heaviside, elementwise=True,
    doc="""The Heaviside step: 0 below zero, 1 above, ``values`` at zero.

    >>> import openreg
    >>> openreg.heaviside(openreg.tensor([-1.0, 0.0, 2.0]), openreg.tensor([0.5])).tolist()
    [0.0, 0.5, 1.0]
    """)


def _fminmax_meta(name: str):
    def meta(self, other) -> Spec:
        check_tensor(name, "other", other)
        spec = binary_spec(name, self, other)
        if spec.compute.is_complex:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return spec
    return meta


def _fminmax(name: str, greater: bool, example: str) -> Op:
    def compute(spec, self, other):
        xp, a, b = pair(spec, self, other)
        return getattr(xp, name)(a, b)

    def self_wins(a):
        x, y = a.self, a.other
        return ((x >= y) if greater else (x <= y)) | y.isnan()

    return Op(name, f"""
    {name}(Tensor self, Tensor other) -> Tensor  [pointwise]
    {name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """, meta=_fminmax_meta(name), compute=compute, elementwise=True,
        derivatives={name: Deriv(save="self other", pointwise=True,
                                 self=lambda g, a: g * mask(self_wins(a), g),
                                 other=lambda g, a: g * mask(~self_wins(a), g))},
        doc=f"""Elementwise {name[1:]}imum that ignores NaN (NaN only where both are NaN).

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([1.0, openreg.nan]), openreg.tensor([2.0, 3.0])).tolist()
    {example}
    """)


fmax = _fminmax("fmax", True, "[2.0, 3.0]")
fmin = _fminmax("fmin", False, "[1.0, 3.0]")


# -- isin, isneginf, isposinf ----------------------------------------------------------------------------

def _isin_meta(elements, test_elements, *, assume_unique=False, invert=False) -> Spec:
    tensors = [t for t in (elements, test_elements) if isinstance(t, TensorBase)]
    dtype = promote(elements, test_elements)
    size = elements._size if isinstance(elements, TensorBase) else ()
    return Spec(size, _dt.bool, tensors[0]._storage.device if len(tensors) == 1 else
                common_device("isin", *tensors), dtype)


def _isin(spec, elements, test_elements, *, assume_unique=False, invert=False):
    xp = xp_of(elements) if isinstance(elements, TensorBase) else xp_of(test_elements)
    e, t = operand(elements, spec, xp), operand(test_elements, spec, xp)
    return xp.isin(e, t.ravel(), assume_unique=assume_unique, invert=invert).reshape(e.shape)


def _isin_function(elements, test_elements, *, assume_unique: bool = False, invert: bool = False,
                   out: TensorBase | None = None) -> TensorBase:
    """``openreg.isin``: the overload by which arguments are tensors (PyTorch's Python signature)."""
    kw = {"assume_unique": assume_unique, "invert": invert}
    if isinstance(elements, TensorBase) and isinstance(test_elements, TensorBase):
        return A.isin__Tensor_Tensor(elements, test_elements, **kw) if out is None else \
            A.isin__Tensor_Tensor_out(elements, test_elements, **kw, out=out)
    if isinstance(elements, TensorBase):
        return A.isin__Tensor_Scalar(elements, test_elements, **kw) if out is None else \
            A.isin__Tensor_Scalar_out(elements, test_elements, **kw, out=out)
    if isinstance(test_elements, TensorBase):
        return A.isin__Scalar_Tensor(elements, test_elements, **kw) if out is None else \
            A.isin__Scalar_Tensor_out(elements, test_elements, **kw, out=out)
    raise TypeError("isin() received an invalid combination of arguments: at least one of elements and "
                    "test_elements must be a Tensor")


isin = Op("isin", """
    isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor
    isin.Tensor_Tensor_out(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False, Tensor(a!) out) -> Tensor(a!)
    isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False) -> Tensor
    isin.Tensor_Scalar_out(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False, Tensor(a!) out) -> Tensor(a!)
    isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor
    isin.Scalar_Tensor_out(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False, Tensor(a!) out) -> Tensor(a!)
    """, meta=_isin_meta, compute=_isin, function=_isin_function, method=False,
    doc="""Whether each element of ``elements`` occurs in ``test_elements`` (``invert=True``: does not).

    >>> import openreg
    >>> openreg.isin(openreg.tensor([1, 2, 3]), openreg.tensor([2, 5])).tolist()
    [False, True, False]
    """)


def _isinf_sign(name: str, negative: bool) -> Op:
    def meta(self) -> Spec:
        if self._dtype.is_complex:
            raise RuntimeError(f"{name} does not support complex inputs.")
        return Spec(self._size, _dt.bool, self._storage.device, self._dtype)

    def compute(spec, self):
        xp = xp_of(self)
        x = operand(self, spec, xp)
        if x.dtype.kind != "f" and not self._dtype.is_narrow_float:
            return xp.zeros(x.shape, dtype=bool)
        return x == (-xp.inf if negative else xp.inf)

    return Op(name, f"""
    {name}(Tensor self) -> Tensor  [pointwise]
    {name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """, meta=meta, compute=compute, elementwise=True,
        doc=f"""Whether each element is {'negative' if negative else 'positive'} infinity.

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([-openreg.inf, 0.0, openreg.inf])).tolist()
    {[True, False, False] if negative else [False, False, True]}
    """)


isneginf = _isinf_sign("isneginf", True)
isposinf = _isinf_sign("isposinf", False)


register(tan, square, sgn, atan2, copysign, fmod, logit, heaviside, fmax, fmin, isin, isneginf, isposinf)
