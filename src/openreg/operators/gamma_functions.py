"""Gamma-family and inverse-error special functions: ``lgamma``, ``digamma``, ``polygamma``, ``erfinv``.

Neither NumPy nor CuPy's core has them, so each is written once against the array module in float64 (and
rounded to the result dtype): ``lgamma`` by Lanczos' approximation (g = 7, 9 terms) with the reflection formula
below 1/2; ``digamma`` and ``polygamma`` by the recurrence up to x >= 10 (+ n) and the asymptotic series with
Bernoulli numbers (reflection for ``digamma`` of negative arguments); ``erfinv`` from Giles' approximation
refined by four Newton steps on ``erf``/``erfc``. Relative errors are about 1e-14 in float64. Poles: ``lgamma``
is +inf at non-positive integers; ``digamma`` is -inf at +0 (+inf at -0) and NaN at negative integers;
``polygamma(n)`` is ``(-1)**(n+1) * inf`` there.

>>> import openreg
>>> x = openreg.tensor([0.5, 1.0, 3.0], dtype=openreg.float64)
>>> [round(v, 10) for v in openreg.lgamma(x).tolist()], [round(v, 10) for v in openreg.digamma(x).tolist()]
([0.5723649429, 0.0, 0.6931471806], [-1.963510026, -0.5772156649, 0.9227843351])
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, scalar_type_name
from ..tensor import TensorBase
from ._compute import operand, pair, quiet, upcast, xp_of
from ._pointwise import binary_spec
from ._record import Deriv, Op, register
from .special_functions import erf_array, erfc_array, float_unary_spec

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# Bernoulli numbers B_2k, k = 1..10
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)


def _lgamma_positive(xp, x):
    """log Gamma(x) for x >= 1/2 (Lanczos)."""
    z = x - 1.0
    acc = xp.full_like(z, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        acc = acc + c / (z + i)
    t = z + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (z + 0.5) * xp.log(t) - t + xp.log(acc)


def lgamma_array(xp, x):
    """Elementwise log|Gamma(x)| of a float64 array."""
    with quiet():
        small = x < 0.5
        pos = _lgamma_positive(xp, xp.where(small, 1.0 - x, x))
        refl = math.log(math.pi) - xp.log(xp.abs(xp.sin(math.pi * x))) - pos
        out = xp.where(small, refl, pos)
        out = xp.where((x == 1.0) | (x == 2.0), 0.0, out)     # exact zeros, as Gamma(1) = Gamma(2) = 1
        pole = (x <= 0) & (xp.floor(x) == x)
        return xp.where(pole, xp.inf, xp.where(xp.isinf(x), xp.inf, out))


def digamma_array(xp, x):
    """Elementwise psi(x) = d/dx log Gamma(x) of a float64 array."""
    with quiet():
        neg = x < 0
        y = xp.where(neg, 1.0 - x, x)             # psi(x) = psi(1 - x) - pi / tan(pi x)
        acc = xp.zeros_like(y)
        for _ in range(10):                          # psi(y) = psi(y + 1) - 1/y up to y >= 10
            low = y < 10.0
            acc = acc - xp.where(low, 1.0 / xp.where(low, y, 1.0), 0.0)
            y = xp.where(low, y + 1.0, y)
        inv2 = 1.0 / (y * y)
        series = xp.zeros_like(y)
        for k in range(len(_B2K[:7]) - 1, -1, -1):
            series = (series + _B2K[k] / (2 * (k + 1))) * inv2 if k else (series + _B2K[0] / 2) * inv2
        out = acc + xp.log(y) - 0.5 / y - series
        frac = x - xp.floor(x)
        out = xp.where(neg, out - math.pi / xp.tan(math.pi * frac), out)
        out = xp.where(x == 0, xp.copysign(xp.inf, -x), out)
        out = xp.where(neg & (frac == 0), xp.nan, out)
        return xp.where(x == xp.inf, xp.inf, out)


_MAX_STEPS = 4096.0


def polygamma_array(xp, n: int, x):
    """Elementwise n-th derivative of psi (n >= 1) of a float64 array: (-1)**(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma_array(xp, x)
    with quiet():
        sign = 1.0 if n % 2 else -1.0
        # n! overflows float64 beyond 170 (the result is then +-inf or NaN); a larger n must not cost more work.
        fact_n = float(math.factorial(n)) if n <= 170 else math.inf
        threshold = 10.0 + min(n, 200)
        pole = (x <= 0) & (xp.floor(x) == x)
        # The recurrence below steps each element up to the threshold one by one; elements further below than
        # _MAX_STEPS (very negative x, where the result is dominated by rounding anyway) give NaN instead.
        far = x < threshold - _MAX_STEPS
        y = xp.where(pole | far | ~xp.isfinite(x), threshold, x)
        acc = xp.zeros_like(y)
        while True:                                  # zeta(s, y) = y**-s + zeta(s, y + 1) up to y >= threshold
            low = y < threshold
            if not bool(low.any()):
                break
            acc = acc + xp.where(low, xp.where(low, y, 1.0) ** -(n + 1.0), 0.0)
            y = xp.where(low, y + 1.0, y)
        # asymptotic: (n-1)!/y**n + n!/(2 y**(n+1)) + sum_k B_2k (2k+n-1)!/((2k)! y**(2k+n)), divided by n!
        tail = y ** (-float(n)) / n + 0.5 * y ** -(n + 1.0)
        for k, b in enumerate(_B2K, start=1):      # (2k+n-1)! / ((2k)! n!) through lgamma: no huge integers
            coef = math.exp(math.lgamma(2 * k + n) - math.lgamma(2 * k + 1) - math.lgamma(n + 1))
            tail = tail + b * coef * y ** -(2.0 * k + n)
        out = sign * fact_n * (acc + tail)
        out = xp.where(far, xp.nan, out)
        out = xp.where(pole, sign * xp.inf, out)
        # PyTorch's values at infinity: trigamma is 0 at +inf and NaN at -inf; higher orders (computed through
        # zeta) are NaN at +inf and (-1)**(n+1) * inf at -inf
        out = xp.where(x == xp.inf, 0.0 if n == 1 else xp.nan, out)
        out = xp.where(x == -xp.inf, xp.nan if n == 1 else sign * xp.inf, out)
        return xp.where(xp.isnan(x), x, out)


def erfinv_array(xp, y):
    """Elementwise inverse error function of a float64 array (Giles' approximation + Newton steps)."""
    with quiet():
        a = xp.abs(y)
        w = -xp.log((1.0 - a) * (1.0 + a))
        w1 = w - 2.5
        p1 = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):
            p1 = c + p1 * w1
        w2 = xp.sqrt(w) - 3.0
        p2 = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                  1.00167406, 2.83297682):
            p2 = c + p2 * w2
        x = xp.where(w < 5.0, p1, p2) * a
        tail = a >= 0.5
        log_t = xp.log(xp.where(tail, 1.0 - a, 1.0))
        for _ in range(4):   # Newton on erf(x) = a; in the tail on log(erfc(x)) = log(1 - a): no cancellation
            d = 2.0 / math.sqrt(math.pi) * xp.exp(-x * x)
            e = erfc_array(xp, x)
            step = xp.where(tail, (log_t - xp.log(e)) * e / d, (erf_array(xp, x) - a) / d)
            x = x - step
        x = xp.where(a == 1.0, xp.inf, xp.where(a > 1.0, xp.nan, x))
        return xp.copysign(x, y)


def _f64_unary(array_fn):
    def compute(spec, self):
        xp = xp_of(self)
        x = upcast(operand(self, spec, xp), xp)
        return array_fn(xp, x.astype(xp.float64)).astype(x.dtype)
    return compute


def _schemas(name: str) -> str:
    return f"""
    {name}(Tensor self) -> Tensor  [pointwise]
    {name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """


lgamma = Op("lgamma", _schemas("lgamma"), meta=float_unary_spec("lgamma"), compute=_f64_unary(lgamma_array),
            elementwise=True,
            derivatives={"lgamma": Deriv(save="self", pointwise=True, self=lambda g, a: g * A.digamma(a.self))},
            doc="""Elementwise ``log(|Gamma(x)|)``.

    >>> import openreg
    >>> openreg.lgamma(openreg.tensor([1.0, 2.0, 4.0])).tolist()
    [0.0, 0.0, 1.7917594909667969]
    """)

digamma = Op("digamma", _schemas("digamma"), meta=float_unary_spec("digamma"), compute=_f64_unary(digamma_array),
             elementwise=True,
             derivatives={"digamma": Deriv(save="self", pointwise=True,
                                           self=lambda g, a: g * A.polygamma(1, a.self))},
             doc="""Elementwise ``psi(x)``, the logarithmic derivative of Gamma (``torch.special.psi``).

    >>> import openreg
    >>> f"{openreg.digamma(openreg.tensor([1.0], dtype=openreg.float64)).item():.12f}"
    '-0.577215664902'
    """)


def _polygamma_meta(n, self) -> Spec:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return float_unary_spec("polygamma")(self)


def _polygamma(spec, n, self):
    xp = xp_of(self)
    x = upcast(operand(self, spec, xp), xp)
    return polygamma_array(xp, n, x.astype(xp.float64)).astype(x.dtype)


def _polygamma_method(self, n):
    return A.polygamma(n, self)


def _polygamma_method_(self, n):
    return A.polygamma_(self, n)


def _polygamma_inplace(self, n):
    spec = _polygamma_meta(n, self)
    if spec.dtype is not self._dtype:
        raise RuntimeError(f"result type {spec.dtype.name.capitalize()} can't be cast to the desired output type "
                           f"{scalar_type_name(self._dtype)}")
    return self.copy_(A.polygamma(n, self))


polygamma = Op(
    "polygamma",
    """
    polygamma(int n, Tensor self) -> Tensor  [pointwise]
    polygamma.out(int n, Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    polygamma_(Tensor(a!) self, int n) -> Tensor(a!)  [pointwise]
    """,
    meta={"polygamma": _polygamma_meta}, compute={"polygamma": _polygamma}, elementwise=True,
    kernels={"polygamma_": {"CompositeImplicitAutograd": _polygamma_inplace}},
    derivatives={"polygamma": Deriv(save="n self", pointwise=True,
                                    self=lambda g, a: g * A.polygamma(a.n + 1, a.self))},
    method=False, extra_methods={"polygamma": _polygamma_method, "polygamma_": _polygamma_method_},
    doc="""Elementwise n-th derivative of ``digamma`` (``n = 0`` is ``digamma``); ``Tensor.polygamma(n)``.

    >>> import openreg
    >>> f"{openreg.polygamma(1, openreg.tensor([1.0], dtype=openreg.float64)).item():.12f}"  # pi**2 / 6
    '1.644934066848'
    >>> x = openreg.tensor([1.0], dtype=openreg.float64)
    >>> f"{x.polygamma_(1).item():.6f}"
    '1.644934'
    """)


def zeta_array(xp, s, q):
    """Elementwise Hurwitz zeta ``sum_k (k + q)**-s`` of float64 arrays: the terms below a threshold summed
    directly, the rest by the Euler-Maclaurin series (as ``polygamma_array``, which is its integer case). PyTorch's
    domain: inf at ``s == 1`` and at the poles ``q = 0, -1, ...``; NaN for ``s < 1`` and for ``q < 0`` with a
    non-integer ``s``."""
    with quiet():
        s, q = xp.broadcast_arrays(s, q)
        threshold = 10.0 + xp.minimum(xp.where(xp.isfinite(s), xp.abs(s), 0.0), 200.0)
        outside = (s <= 1) | ((q <= 0) & (xp.floor(q) == q)) | ((q < 0) & (xp.floor(s) != s))
        far = q < threshold - _MAX_STEPS
        skip = outside | far | ~xp.isfinite(q) | ~xp.isfinite(s)
        ss = xp.where(skip, 2.0, s)
        y = xp.where(skip, threshold, q)
        acc = xp.zeros_like(y)
        while True:                                  # zeta(s, y) = y**-s + zeta(s, y + 1) up to y >= threshold
            low = y < threshold
            if not bool(low.any()):
                break
            acc = acc + xp.where(low, xp.where(low, y, 1.0) ** -ss, 0.0)
            y = xp.where(low, y + 1.0, y)
        # y**(1-s)/(s-1) + y**-s/2 + sum_k B_2k/(2k)! s(s+1)...(s+2k-2) y**(-s-2k+1)
        tail = y ** (1.0 - ss) / (ss - 1.0) + 0.5 * y ** -ss
        rising = ss.copy()                           # s (s+1) ... (s+2k-2)
        for k, b in enumerate(_B2K, start=1):
            if k > 1:
                rising = rising * (ss + 2 * k - 3) * (ss + 2 * k - 2)
            tail = tail + b / math.factorial(2 * k) * rising * y ** (-ss - 2 * k + 1)
        out = acc + tail
        out = xp.where(far | (q == xp.inf), xp.nan, out)
        # PyTorch's values at s = +inf: 1 at q = 1, inf below it, NaN above it
        out = xp.where(s == xp.inf, xp.where(q == 1, 1.0, xp.where(q > 1, xp.nan, xp.inf)), out)
        # the domain, in PyTorch's order of checks: s == 1, s < 1, a pole of q, q < 0 with a non-integer s
        out = xp.where((q < 0) & (xp.floor(s) != s), xp.nan, out)
        out = xp.where((q <= 0) & (xp.floor(q) == q), xp.inf, out)
        out = xp.where(s < 1, xp.nan, out)
        out = xp.where(s == 1, xp.inf, out)
        return xp.where(xp.isnan(s) | xp.isnan(q), xp.nan, out)


def _zeta_meta(self, other) -> Spec:
    spec = (binary_spec("special_zeta", self, other) if isinstance(self, TensorBase)
            else binary_spec("special_zeta", other, self))
    if not (spec.compute.is_floating_point and not spec.compute.is_complex):
        if spec.compute.is_complex:
            raise NotImplementedError(f"\"zeta_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
        d = _dt.get_default_dtype()
        return Spec(spec.size, d, spec.device, d)
    return spec


def _zeta(spec, self, other):
    xp, s, q = pair(spec, self, other)
    return zeta_array(xp, upcast(s, xp).astype(xp.float64), upcast(q, xp).astype(xp.float64)).astype(s.dtype)


def _zeta_self_grad(g, a):
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


special_zeta = Op(
    "special_zeta",
    """
    special_zeta(Tensor self, Tensor other) -> Tensor  [pointwise]
    special_zeta.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor  [pointwise]
    special_zeta.self_scalar_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor  [pointwise]
    special_zeta.other_scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """,
    meta={"special_zeta": _zeta_meta, "special_zeta.self_scalar": _zeta_meta, "special_zeta.other_scalar": _zeta_meta},
    compute=_zeta, elementwise=True,
    derivatives={
        "special_zeta": Deriv(save="self other", pointwise=True, self=_zeta_self_grad,
                              other=lambda g, a: g * -a.self * A.special_zeta(a.self + 1.0, a.other)),
        "special_zeta.self_scalar": Deriv(save="self other", pointwise=True,
                                          other=lambda g, a: g * -a.self * A.special_zeta__self_scalar(
                                              a.self + 1.0, a.other))},
    function=False, method=False,
    doc="""The Hurwitz zeta function ``sum_k (k + other)**-input`` (``torch.special.zeta``; the Riemann zeta at
    ``other = 1``); differentiable in ``other`` (``-input * zeta(input + 1, other)``), as PyTorch.

    >>> import openreg
    >>> f"{openreg.special.zeta(openreg.tensor([2.0], dtype=openreg.float64), 1.0).item():.12f}"  # pi**2 / 6
    '1.644934066848'
    """)


def _erfinv_grad(g, a):
    return g * (math.sqrt(math.pi) / 2) * (a.result * a.result).exp()


erfinv = Op("erfinv", _schemas("erfinv"), meta=float_unary_spec("erfinv"), compute=_f64_unary(erfinv_array),
            elementwise=True, derivatives={"erfinv": Deriv(save="result", pointwise=True, self=_erfinv_grad)},
            doc="""Elementwise inverse of ``erf`` on (-1, 1) (+-inf at +-1, NaN outside).

    >>> import openreg
    >>> openreg.erfinv(openreg.tensor([0.0, 0.5, 1.0])).tolist()
    [0.0, 0.4769362807273865, inf]
    """)

register(lgamma, digamma, polygamma, special_zeta, erfinv)
