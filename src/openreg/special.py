"""``openreg.special``: PyTorch's ``torch.special`` names for openreg's functions (``expit`` is ``sigmoid``,
``xlogy``, ``erf``, ``log1p`` ...). A name whose function openreg lacks raises AttributeError naming it.

>>> import openreg
>>> openreg.special.expit(openreg.tensor([0.0])).tolist(), openreg.special.exp2(openreg.tensor([3.0])).tolist()
([0.5], [8.0])
"""
from __future__ import annotations

import openreg

# torch.special name -> openreg function
_ALIASES = {
    "expit": "sigmoid", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "logit": "logit", "xlogy": "xlogy",
    "log1p": "log1p", "expm1": "expm1", "exp2": "exp2", "sinc": "sinc", "round": "round", "softmax": "softmax",
    "log_softmax": "log_softmax", "logsumexp": "logsumexp", "gammaln": "lgamma", "digamma": "digamma",
    "psi": "digamma", "i0": "i0", "ndtr": "ndtr", "entr": "entr", "gammainc": "igamma",
    "gammaincc": "igammac",
}


def __getattr__(name: str):
    target = _ALIASES.get(name)
    if target is None:
        raise AttributeError(f"module 'openreg.special' has no attribute '{name}'")
    fn = getattr(openreg, target, None)
    if fn is None:
        raise AttributeError(f"openreg.special.{name} needs openreg.{target}, which openreg does not implement yet")
    return fn


def __dir__():
    return sorted({n for n, t in _ALIASES.items() if hasattr(openreg, t)} | set(_FUNCTIONS))


import math

_SQRT1_2 = 0.7071067811865476
_SQRT_PI = 1.7724538509055159
_ERFCX_SWITCH = 26.0   # above it the asymptotic series of erfcx is exact to float64; below, exp(x*x)*erfc(x) is


def _erfcx_wide(x):
    z = x.to(openreg.float64) if x.dtype != openreg.float64 else x
    big = z > _ERFCX_SWITCH
    zs = openreg.where(big, openreg.zeros_like(z), z)               # the direct branch sees only small values
    zb = openreg.where(big, z, openreg.full_like(z, _ERFCX_SWITCH))  # the series only large ones (no NaN gradients)
    direct = openreg.exp(zs * zs) * openreg.erfc(zs)
    inv2 = 1.0 / (2.0 * zb * zb)
    term, total = openreg.ones_like(zb), openreg.ones_like(zb)
    for k in range(1, 9):
        term = term * (-(2 * k - 1)) * inv2
        total = total + term
    series = total / (zb * _SQRT_PI)
    return openreg.where(big, series, direct)


def erfcx(input, *, out=None):
    """The scaled complementary error function ``exp(x**2) * erfc(x)``, without overflow for large ``x``
    (computed in float64 and rounded to the input's floating dtype).

    >>> import openreg
    >>> [round(v, 6) for v in erfcx(openreg.tensor([0.0, 1.0, 1e10], dtype=openreg.float64)).tolist()]
    [1.0, 0.427584, 0.0]
    """
    x = _floating(input)
    result = _erfcx_wide(x).to(x.dtype)
    return result if out is None else out.copy_(result)


def _floating(x):
    if not (x.dtype.is_floating_point):
        if x.dtype.is_complex:
            raise RuntimeError(f"special function not implemented for '{x.dtype.scalar_name}'")
        return x.to(openreg.get_default_dtype())
    return x


def ndtr(input, *, out=None):
    """The standard normal CDF ``erfc(-x / sqrt(2)) / 2``, accurate in both tails (computed in float64).

    >>> import openreg
    >>> ndtr(openreg.tensor([0.0])).tolist()
    [0.5]
    """
    x = _floating(input)
    result = (0.5 * openreg.erfc(-x.to(openreg.float64) * _SQRT1_2)).to(x.dtype)
    return result if out is None else out.copy_(result)


def log_ndtr(input, *, out=None):
    """The log of the standard normal CDF, accurate in both tails (``erfcx`` below -1, ``log1p`` above).

    >>> import openreg
    >>> [round(v, 4) for v in log_ndtr(openreg.tensor([-10.0, 0.0], dtype=openreg.float64)).tolist()]
    [-53.2313, -0.6931]
    """
    x = _floating(input)
    z = x.to(openreg.float64)
    low = z < -1.0
    zl = openreg.where(low, z, openreg.full_like(z, -1.0))
    zh = openreg.where(low, openreg.full_like(z, -1.0), z)
    left = openreg.log(_erfcx_wide(-zl * _SQRT1_2) / 2.0) - zl * zl / 2.0
    right = openreg.log1p(-0.5 * openreg.erfc(zh * _SQRT1_2))
    result = openreg.where(low, left, right).to(x.dtype)
    return result if out is None else out.copy_(result)


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN).

    >>> import openreg
    >>> xlog1py(openreg.tensor([0.0, 2.0]), openreg.tensor([-1.0, 0.0])).tolist()
    [0.0, 0.0]
    """
    if not isinstance(input, openreg.Tensor):
        input = openreg.tensor(input, dtype=openreg.result_type(input, other), device=other.device)
    if not isinstance(other, openreg.Tensor):
        other = openreg.tensor(other, dtype=openreg.result_type(input, other), device=input.device)
    dtype = openreg.result_type(input, other)
    if not dtype.is_floating_point:
        dtype = openreg.get_default_dtype()
    x, y = input.to(dtype), other.to(dtype)
    # x == 0 gives 0 unless y is NaN; log1p(y) stays the derivative in x there unless it is infinite (y <= -1 or inf)
    clear = (x == 0) & ((y <= -1) | openreg.isinf(y))
    safe_y = openreg.where(clear, openreg.zeros_like(y), y)
    result = x * openreg.log1p(safe_y)
    return result if out is None else out.copy_(result)


def entr(input, *, out=None):
    """The elementwise entropy ``-x * log(x)``: 0 at 0, ``-inf`` for negative ``x``.

    >>> import openreg
    >>> entr(openreg.tensor([0.0, 1.0, -1.0])).tolist()
    [0.0, -0.0, -inf]
    """
    x = _floating(input)
    pos = x > 0
    safe = openreg.where(pos, x, openreg.ones_like(x))
    value = openreg.where(pos, -safe * openreg.log(safe), openreg.zeros_like(x))
    result = openreg.where(x < 0, openreg.full_like(x, float("-inf")), value)
    return result if out is None else out.copy_(result)


def multigammaln(input, p: int, *, out=None):
    """The multivariate log-gamma function of dimension ``p``: ``p (p - 1) / 4 log(pi) + sum_i lgamma(x - i/2)``.

    >>> import openreg
    >>> round(multigammaln(openreg.tensor([2.5]), 3).item(), 4)
    1.881
    """
    import math
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _floating(input)
    result = openreg.lgamma(x)
    for i in range(1, p):
        result = result + openreg.lgamma(x - i / 2.0)
    result = result + p * (p - 1) / 4.0 * math.log(math.pi)
    return result if out is None else out.copy_(result)


_BESSEL_SWITCH = 30.0   # below it the power series (positive terms), above it the asymptotic series, both to 1e-16


def _bessel_scaled(x, order: int):
    """``exp(-|x|) I_order(x)`` for order 0 or 1 in float64: the power series (on the signed ``x``, so order 1 is
    odd with its derivative at 0) below the switch, the asymptotic series above it."""
    z = x.abs()
    big = z > _BESSEL_SWITCH
    xs = openreg.where(big, openreg.zeros_like(x), x)
    zb = openreg.where(big, z, openreg.full_like(z, _BESSEL_SWITCH))
    q = xs * xs / 4.0
    term = openreg.ones_like(xs) if order == 0 else xs / 2.0
    total = term
    for k in range(1, 90):
        term = term * q / (k * (k + order))
        total = total + term
    small = total * openreg.exp(-xs.abs())
    term, asym = openreg.ones_like(zb), openreg.ones_like(zb)
    for k in range(1, 40):
        term = term * ((2 * k - 1) ** 2 - 4 * order * order) / (8.0 * k) / zb
        asym = asym + term
    large = asym / openreg.sqrt(2 * math.pi * zb)
    if order == 1:
        large = large * openreg.sign(x)
    return openreg.where(big, large, small)


def _bessel(name: str, input, order: int, scaled: bool, out):
    x = _floating(input)
    z = x.to(openreg.float64)
    r = _bessel_scaled(z, order)
    if not scaled:
        r = r * openreg.exp(z.abs())
    result = r.to(x.dtype)
    return result if out is None else out.copy_(result)


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0.

    >>> import openreg
    >>> [round(v, 6) for v in i0(openreg.tensor([0.0, 1.0])).tolist()]
    [1.0, 1.266066]
    """
    return _bessel("i0", input, 0, False, out)


def i0e(input, *, out=None):
    """The exponentially scaled ``i0``: ``exp(-|x|) * i0(x)``.

    >>> import openreg
    >>> round(i0e(openreg.tensor([1.0])).item(), 6)
    0.46576
    """
    return _bessel("i0e", input, 0, True, out)


def i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1.

    >>> import openreg
    >>> round(i1(openreg.tensor([1.0])).item(), 6)
    0.565159
    """
    return _bessel("i1", input, 1, False, out)


def i1e(input, *, out=None):
    """The exponentially scaled ``i1``: ``exp(-|x|) * i1(x)``.

    >>> import openreg
    >>> round(i1e(openreg.tensor([-1.0])).item(), 6)
    -0.20791
    """
    return _bessel("i1e", input, 1, True, out)


_FUNCTIONS = ("entr", "erfcx", "i0", "i0e", "i1", "i1e", "log_ndtr", "multigammaln", "ndtr", "xlog1py")


def ndtri(input, *, out=None):
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p`` (``-inf`` at 0, ``inf`` at 1, NaN outside [0, 1]);
    Newton steps on ``log_ndtr`` in float64 from ``sqrt(2) erfinv(2p - 1)``, exact to ~1e-15 in both tails.

    >>> import openreg
    >>> [round(v, 6) for v in ndtri(openreg.tensor([0.5, 0.975], dtype=openreg.float64)).tolist()]
    [0.0, 1.959964]
    """
    x = _floating(input)
    p = x.to(openreg.float64)
    with openreg.no_grad():
        upper = p > 0.5
        q = openreg.where(upper, 1.0 - p, p)                         # the lower-tail probability, exact
        inside = (q > 0) & (q <= 0.5)
        qs = openreg.where(inside, q, openreg.full_like(q, 0.25))
        start = openreg.where(qs < 1e-3, -openreg.sqrt(-2.0 * openreg.log(qs)), openreg.erfinv(2.0 * qs - 1.0)
                              / _SQRT1_2)
        z = start
        target = openreg.log(qs)
        for _ in range(12):
            # d log_ndtr / dz = pdf / ndtr = sqrt(2 / pi) / erfcx(-z / sqrt(2))
            slope = math.sqrt(2.0 / math.pi) / _erfcx_wide(-z * _SQRT1_2)
            z = z - (log_ndtr(z) - target) / slope
        z = openreg.where(inside, z, openreg.where(q == 0, openreg.full_like(q, -math.inf),
                                                   openreg.full_like(q, math.nan)))
        z = openreg.where(upper, -z, z)
    if p.requires_grad:   # d ndtri / dp = sqrt(2 pi) exp(z**2 / 2)
        z = z + (p - p.detach()) * (math.sqrt(2 * math.pi) * openreg.exp(z * z / 2.0))
    result = z.to(x.dtype)
    return result if out is None else out.copy_(result)


_FUNCTIONS = (*_FUNCTIONS, "ndtri")


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function ``sum_k (k + other)**-input`` (either argument may be a number).

    >>> import openreg
    >>> round(zeta(openreg.tensor([2.0, 4.0], dtype=openreg.float64), 1.0)[1].item(), 9)  # pi**4 / 90
    1.082323234
    """
    from ._dispatch.ops import A
    if not isinstance(input, openreg.Tensor):
        if not isinstance(other, openreg.Tensor):
            raise TypeError("zeta() received an invalid combination of arguments: expected (Tensor input, Tensor "
                            "other) with at least one tensor")
        return A.special_zeta__self_scalar(input, other) if out is None else \
            A.special_zeta__self_scalar_out(input, other, out=out)
    if not isinstance(other, openreg.Tensor):
        return A.special_zeta__other_scalar(input, other) if out is None else \
            A.special_zeta__other_scalar_out(input, other, out=out)
    return A.special_zeta(input, other) if out is None else A.special_zeta__out(input, other, out=out)


def polygamma(n, input, *, out=None):
    """``torch.special.polygamma(n, input)``: the n-th derivative of ``digamma`` (``openreg.polygamma``).

    >>> import openreg
    >>> round(polygamma(1, openreg.tensor([1.0], dtype=openreg.float64)).item(), 9)  # pi**2 / 6
    1.644934067
    """
    return openreg.polygamma(n, input, out=out)


_FUNCTIONS = (*_FUNCTIONS, "zeta", "polygamma")
