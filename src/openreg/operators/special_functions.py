"""Special functions: ``erf``, ``erfc``, ``log1p``, ``expm1``.

NumPy has no ``erf`` (CuPy's is in ``cupyx``), so both array modules use one implementation here: a power series
near zero and, elsewhere, a Chebyshev fit of ``log(erfc(z) / t) + z**2`` in ``t = 2 / (2 + z)``, fitted at import
against ``math.erfc`` (relative error about 1e-13 in float64). ``erf`` of float32 and narrower inputs is computed in
float32 (series + Abramowitz & Stegun 7.1.26, within a few ulps): it is GELU's hot path.

>>> import openreg
>>> [round(v, 6) for v in openreg.erf(openreg.tensor([0.0, 0.5, -2.0])).tolist()]
[0.0, 0.5205, -0.995322]
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..aten.meta_rules import Spec
from ._compute import f32_via_f64, fma_f32, operand, quiet, select, upcast, xp_of
from ._record import Deriv, Op, register

_TMAX = 0.8          # t at z = 0.5: the fit covers z >= 0.5
_SERIES_TERMS = 18   # |x| < 0.5: 2/sqrt(pi) sum_n (-1)^n x^(2n+1) / (n! (2n+1)); truncation < 1e-19


def _log_erfc_scaled(t: float) -> float:
    z = 2.0 / t - 2.0
    if z < 26.0:
        return math.log(math.erfc(z) / t) + z * z
    s, term = 1.0, 1.0          # asymptotic series of erfc(z) * exp(z**2) where erfc underflows
    for n in range(1, 12):
        term *= -(2 * n - 1) / (2 * z * z)
        s += term
    return math.log(s / (z * math.sqrt(math.pi)) / t)


def _chebyshev_fit(degree: int = 26, nodes: int = 120) -> list:
    x = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    vals = np.array([_log_erfc_scaled(t) for t in (x + 1.0) * (_TMAX / 2.0)])
    return [float(c) for c in np.polynomial.chebyshev.chebfit(x, vals, degree)]


_CHEB = _chebyshev_fit()
_SERIES = [(-1) ** n / (math.factorial(n) * (2 * n + 1)) * 2.0 / math.sqrt(math.pi) for n in range(_SERIES_TERMS)]


def _erfc_tail(xp, z):
    """erfc(z) for z >= 0.5 (smaller z are clamped; the caller masks them)."""
    t = 2.0 / (2.0 + xp.maximum(z, 0.5))
    s = t * (2.0 / _TMAX) - 1.0
    b1, b2 = xp.zeros_like(s), xp.zeros_like(s)
    for c in _CHEB[:0:-1]:                      # Clenshaw recurrence
        b1, b2 = 2.0 * s * b1 - b2 + c, b1
    return t * xp.exp(-z * z + (s * b1 - b2 + _CHEB[0]))


def _erf_series(xp, x):
    x2 = x * x
    acc = xp.full_like(x, _SERIES[-1])
    for c in _SERIES[-2::-1]:
        acc = acc * x2 + c
    return acc * x


# float32 and narrower: the short series near zero and Abramowitz & Stegun 7.1.26 elsewhere
# (|error| <= 1.5e-7, i.e. a few float32 ulps where |erf| >= 0.5), all in float32: GELU's hot path
_AS_P = 0.3275911
_AS = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_SERIES_F32 = _SERIES[:8]


def _erf_f32(xp, x):
    """In-place Horner steps (no temporaries per term): the arrays are large and NumPy does not fuse."""
    a = xp.abs(x)
    x2 = x * x
    acc = xp.full_like(x, _SERIES_F32[-1])
    for c in _SERIES_F32[-2::-1]:
        acc *= x2
        acc += c
    acc *= x                                   # the series, valid where |x| < 0.5
    t = a * _AS_P
    t += 1.0
    xp.reciprocal(t, out=t)
    poly = xp.full_like(x, _AS[-1])
    for c in _AS[-2::-1]:
        poly *= t
        poly += c
    poly *= t
    xp.negative(x2, out=x2)
    xp.exp(x2, out=x2)
    poly *= x2
    xp.subtract(1.0, poly, out=poly)           # erf(|x|) for |x| >= 0.5 (NaN stays NaN)
    xp.copysign(poly, x, out=poly)
    return select(xp, a < 0.5, acc, poly)        # a random mask: NumPy's where would branch per element


def erf_array(xp, x):
    """Elementwise erf of a floating array (float64 inputs at full precision, narrower ones in float32)."""
    if x.dtype != xp.float64:
        with quiet():
            # 1-d work (NumPy's 0-d arithmetic gives scalars, which the in-place steps cannot write into)
            return _erf_f32(xp, x.astype(xp.float32).reshape(-1)).reshape(x.shape).astype(x.dtype)
    work = x
    a = xp.abs(work)
    small = a < 0.5
    with quiet():
        out = select(xp, small, _erf_series(xp, xp.where(small, work, 0.0)), xp.sign(work) * (1.0 - _erfc_tail(xp, a)))
    return xp.where(xp.isnan(work), work, out).astype(x.dtype)


def erf_opmath(xp, x):
    """erf of a float32 array as PyTorch's vectorized float32 ``erf`` (its float16/bfloat16 kernels and GELU's
    float16 one) evaluates it: Abramowitz & Stegun 7.1.26 everywhere, ``t = 1 / fma(p, |x|, 1)``, the polynomial
    by fused multiply-adds, ``1 - r * t * exp(-x * x)`` as ``fma(-exp * t, r, 1)``, the sign of ``x`` copied.

    >>> import numpy as np
    >>> round(float(erf_opmath(np, np.float32([1.0]))[0]), 6)
    0.842701
    """
    f32 = xp.float32
    with quiet():
        a = xp.abs(x)
        t = f32(1.0) / fma_f32(xp, f32(_AS_P), a, f32(1.0))
        r = xp.full_like(t, f32(_AS[-1]))
        for c in _AS[-2::-1]:
            r = fma_f32(xp, r, t, f32(c))
        e = f32_via_f64(xp, xp.exp, -(x * x))
        return xp.copysign(fma_f32(xp, -e * t, r, f32(1.0)), x)


def _erf_compute(spec, self):
    xp = xp_of(self)
    x = upcast(operand(self, spec, xp), xp)
    if spec.compute.is_reduced_float:
        return erf_opmath(xp, x)
    return erf_array(xp, x)


def erfc_array(xp, x):
    """Elementwise erfc of a floating array, accurate in the far tail (no ``1 - erf`` cancellation)."""
    work = x.astype(xp.float64)
    a = xp.abs(work)
    small = a < 0.5
    with quiet():
        tail = _erfc_tail(xp, a)
        out = select(xp, small, 1.0 - _erf_series(xp, xp.where(small, work, 0.0)), select(xp, work < 0, 2.0 - tail, tail))
    return xp.where(xp.isnan(work), work, out).astype(x.dtype)


def float_unary_spec(op: str):
    """Meta rule of a unary op with a floating result: integers and bool give the default float dtype."""
    def meta(self) -> Spec:
        d = self._dtype
        if d.is_complex:
            raise NotImplementedError(f"\"{op}_vml_cpu\" not implemented for '{d}'")
        if not d.is_floating_point:
            d = _dt.get_default_dtype()
        return Spec(self._size, d, self._storage.device, d)
    return meta


def _unary(array_fn):
    def compute(spec, self):
        xp = xp_of(self)
        return array_fn(xp, upcast(operand(self, spec, xp), xp))
    return compute


def _xp_unary(name: str):
    def compute(spec, self):
        xp = xp_of(self)
        with quiet():
            return getattr(xp, name)(upcast(operand(self, spec, xp), xp))
    return compute


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _schemas(name: str) -> str:
    return f"""
    {name}(Tensor self) -> Tensor  [core, pointwise]
    {name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """


erf = Op("erf", _schemas("erf"), meta=float_unary_spec("erf"), compute=_erf_compute, elementwise=True,
         derivatives={"erf": Deriv(save="self", pointwise=True,
                                   self=lambda g, a: g * (a.self * a.self).neg().exp() * _TWO_OVER_SQRT_PI)},
         doc="""Elementwise error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``.

    >>> import openreg
    >>> openreg.erf(openreg.tensor([0.0])).tolist()
    [0.0]
    """)

erfc = Op("erfc", _schemas("erfc"), meta=float_unary_spec("erfc"), compute=_unary(erfc_array), elementwise=True,
          derivatives={"erfc": Deriv(save="self", pointwise=True,
                                     self=lambda g, a: g * (a.self * a.self).neg().exp() * -_TWO_OVER_SQRT_PI)},
          doc="""Elementwise complementary error function ``1 - erf(x)``, accurate where it is tiny.

    >>> import openreg
    >>> openreg.erfc(openreg.tensor([10.0], dtype=openreg.float64)).item() > 0
    True
    """)

log1p = Op("log1p", _schemas("log1p"), meta=float_unary_spec("log1p"), compute=_xp_unary("log1p"),
           elementwise=True,
           derivatives={"log1p": Deriv(save="self", pointwise=True, self=lambda g, a: g / (a.self + 1))},
           doc="""Elementwise ``log(1 + x)``, accurate for small ``x``.

    >>> import openreg
    >>> openreg.log1p(openreg.tensor([1e-10], dtype=openreg.float64)).item()
    9.999999999500001e-11
    """)

expm1 = Op("expm1", _schemas("expm1"), meta=float_unary_spec("expm1"), compute=_xp_unary("expm1"),
           elementwise=True,
           derivatives={"expm1": Deriv(save="result", pointwise=True, self=lambda g, a: g * (a.result + 1))},
           doc="""Elementwise ``exp(x) - 1``, accurate for small ``x``.

    >>> import openreg
    >>> openreg.expm1(openreg.tensor([1e-10], dtype=openreg.float64)).item()
    1.00000000005e-10
    """)

register(erf, erfc, log1p, expm1)
