"""Samplers of the gamma, Dirichlet, Poisson and binomial distributions (PyTorch's ``_standard_gamma``,
``_standard_gamma_grad``, ``_sample_dirichlet``, ``poisson``, ``binomial``), drawing through the generator
(``resolve_generator(generator, device).draw``) so one kernel serves the CPU and the device.

* ``_standard_gamma``: Marsaglia & Tsang's squeeze/rejection method for ``Gamma(alpha, 1)`` (alpha < 1 is
  boosted: ``Gamma(alpha + 1) * U ** (1 / alpha)``); rejected elements draw again, all elements in one
  vectorized pass per round.
* ``_standard_gamma_grad(alpha, x)``: the implicit reparameterization gradient ``dx/dalpha = -(dP/dalpha) /
  p(x)`` at fixed CDF value (``incomplete_gamma.standard_gamma_grad_array``); it is ``_standard_gamma``'s
  derivative, as in PyTorch.
* ``_sample_dirichlet``: gamma draws normalized along the last dimension.
* ``poisson``: products of uniforms below rate 10, Hormann's transformed rejection (PTRS) above.
* ``binomial``: inversion of the CDF when ``count * min(p, 1 - p) < 10``, Hormann's BTRS above.

>>> import openreg
>>> g = openreg.Generator().manual_seed(0)
>>> x = openreg._standard_gamma(openreg.full((20000,), 3.0), generator=g)
>>> abs(x.mean().item() - 3.0) < 0.05, bool((x > 0).all())
(True, True)
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import from_compute, to_compute, wrap_array
from .._dispatch.ops import A
from ..random import resolve_generator
from ._compute import quiet
from ._record import NONDIFF, Deriv, Op, register
from .gamma_functions import lgamma_array
from .incomplete_gamma import standard_gamma_grad_array
from .random import check_floating

_S = "  [nondeterministic_seeded]"


def _xp(t):
    return t._storage._backend.array_module


def _index(t) -> int:
    return t._storage.device.index or 0


def _result(values, like, dtype=None):
    """A new tensor of ``like``'s device holding ``values`` (float64 compute) as ``dtype`` (``like``'s)."""
    xp = _xp(like)
    dtype = dtype or like._dtype
    work = xp.float32 if dtype.is_narrow_float else dtype.numpy
    return wrap_array(xp.ascontiguousarray(from_compute(values.astype(work), dtype)), dtype, like._storage.device)


def _as_f64(t):
    return to_compute(t).astype(_xp(t).float64).reshape(-1)


class _Draws:
    """The generator's uniform and normal streams for one tensor's device."""

    def __init__(self, generator, like) -> None:
        self.impl, self.index = resolve_generator(generator, like.device), _index(like)

    def uniform(self, n: int):
        return self.impl.draw("f64", n, self.index)

    def normal(self, n: int):
        return self.impl.draw("normal_f64", n, self.index)


def _gamma_f64(xp, alpha, draws: _Draws):
    """``Gamma(alpha, 1)`` draws for a float64 array ``alpha`` (Marsaglia & Tsang)."""
    n = alpha.shape[0]
    out = xp.zeros(n, dtype=xp.float64)
    valid = alpha > 0
    with quiet():
        boosted = xp.where(alpha < 1, alpha + 1, alpha)
        d = xp.where(valid, boosted, 1.0) - 1.0 / 3.0
        c = 1.0 / xp.sqrt(9.0 * d)
        todo = xp.nonzero(valid)[0]
        while todo.shape[0]:
            k = todo.shape[0]
            z, u = draws.normal(k), draws.uniform(k)
            y = 1.0 + c[todo] * z
            v = y * y * y
            z2 = z * z
            ok = (y > 0) & ((u < 1.0 - 0.0331 * z2 * z2) |
                            (xp.log(xp.where(u > 0, u, 1e-300)) < 0.5 * z2 + d[todo] * (1.0 - v + xp.log(
                                xp.where(v > 0, v, 1.0)))))
            done = todo[ok]
            out[done] = d[done] * v[ok]
            todo = todo[~ok]
        small = xp.nonzero(valid & (alpha < 1))[0]
        if small.shape[0]:
            u = draws.uniform(small.shape[0])
            out[small] = out[small] * xp.exp(xp.log1p(-u) / alpha[small])
        out = xp.where(xp.isnan(alpha), xp.nan, xp.where(alpha == xp.inf, xp.inf, out))
    return out


def _check_float(op: str, t) -> None:
    check_floating(op, t)


def _standard_gamma_kernel(self, generator=None):
    _check_float("_standard_gamma", self)
    if self.numel() == 0:
        return A.empty_like(self)
    xp = _xp(self)
    values = _gamma_f64(xp, _as_f64(self), _Draws(generator, self))
    return _result(values.reshape(tuple(self._size)), self)


def _sample_dirichlet_kernel(self, generator=None):
    _check_float("_sample_dirichlet", self)
    if self.numel() == 0:
        return A.empty_like(self)
    xp = _xp(self)
    g = _gamma_f64(xp, _as_f64(self), _Draws(generator, self)).reshape(tuple(self._size))
    with quiet():
        total = g.sum(axis=-1, keepdims=True)
        values = g / total
    tiny = float(xp.finfo(xp.float32 if self._dtype is not _dt.float64 else xp.float64).tiny)
    return _result(xp.clip(values, tiny, 1.0), self)


def _same_device(op: str, a, b) -> None:
    if a.device != b.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{a.device} and {b.device}! (when checking argument for {op})")


def _standard_gamma_grad_kernel(self, output):
    _check_float("_standard_gamma_grad", self)
    _same_device("_standard_gamma_grad", self, output)
    self_b, output_b = A.broadcast_tensors([self, output])     # PyTorch's broadcast error for other shapes
    if self_b.numel() == 0:
        return A.empty_like(self_b)
    xp = _xp(self)
    values = standard_gamma_grad_array(xp, to_compute(self_b), to_compute(output_b))
    return _result(values.reshape(tuple(self_b._size)), self_b)


# -- Poisson and binomial -----------------------------------------------------------------------------------
def _poisson_f64(xp, rate, draws: _Draws):
    n = rate.shape[0]
    out = xp.zeros(n, dtype=xp.float64)
    with quiet():
        small = xp.nonzero((rate > 0) & (rate < 10))[0]
        if small.shape[0]:     # count uniforms until their product drops below exp(-rate)
            limit = xp.exp(-rate[small])
            prod = xp.ones(small.shape[0])
            count = xp.zeros(small.shape[0])
            todo = xp.arange(small.shape[0])
            while todo.shape[0]:
                prod[todo] = prod[todo] * draws.uniform(todo.shape[0])
                going = prod[todo] > limit[todo]
                count[todo[going]] += 1
                todo = todo[going]
            out[small] = count
        big = xp.nonzero(rate >= 10)[0]
        if big.shape[0]:       # PTRS (Hormann 1993)
            lam = rate[big]
            slam, loglam = xp.sqrt(lam), xp.log(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            todo = xp.arange(big.shape[0])
            while todo.shape[0]:
                k_ = todo.shape[0]
                u = draws.uniform(k_) - 0.5
                v = draws.uniform(k_)
                us = 0.5 - xp.abs(u)
                k = xp.floor((2 * a[todo] / us + b[todo]) * u + lam[todo] + 0.43)
                quick = (us >= 0.07) & (v <= vr[todo])
                possible = (k >= 0) & ~((us < 0.013) & (v > us))
                lhs = xp.log(xp.where(v > 0, v, 1e-300)) + xp.log(inv_alpha[todo]) - xp.log(
                    a[todo] / (us * us) + b[todo])
                rhs = -lam[todo] + k * loglam[todo] - lgamma_array(xp, xp.maximum(k, 0) + 1.0)
                ok = quick | (possible & (lhs <= rhs))
                out[big[todo[ok]]] = k[ok]
                todo = todo[~ok]
        out = xp.where(xp.isnan(rate), xp.nan, out)
    return out


def _poisson_kernel(self, generator=None):
    _check_float("poisson", self)
    if self.numel() == 0:
        return A.empty_like(self)
    xp = _xp(self)
    rate = _as_f64(self)
    if bool((rate < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _result(_poisson_f64(xp, rate, _Draws(generator, self)).reshape(tuple(self._size)), self)


def _binomial_f64(xp, count, prob, draws: _Draws):
    n_el = count.shape[0]
    out = xp.zeros(n_el, dtype=xp.float64)
    with quiet():
        flip = prob > 0.5
        p = xp.where(flip, 1.0 - prob, prob)
        n = xp.floor(count)
        q = 1.0 - p
        inversion = xp.nonzero((n * p < 10) & (n > 0) & (p > 0))[0]
        if inversion.shape[0]:   # walk the CDF: the first k whose cumulative mass exceeds u
            ni, pi, qi = n[inversion], p[inversion], q[inversion]
            u = draws.uniform(inversion.shape[0])
            pmf = xp.exp(ni * xp.log(qi))
            cdf = pmf.copy()
            k = xp.zeros(inversion.shape[0])
            todo = xp.arange(inversion.shape[0])
            ratio = pi / qi
            while todo.shape[0]:
                going = (u[todo] > cdf[todo]) & (k[todo] < ni[todo])
                todo = todo[going]
                if not todo.shape[0]:
                    break
                pmf[todo] = pmf[todo] * ratio[todo] * (ni[todo] - k[todo]) / (k[todo] + 1)
                k[todo] += 1
                cdf[todo] += pmf[todo]
            out[inversion] = k
        big = xp.nonzero(n * p >= 10)[0]
        if big.shape[0]:        # BTRS (Hormann 1993)
            nb, pb, qb = n[big], p[big], q[big]
            spq = xp.sqrt(nb * pb * qb)
            b = 1.15 + 2.53 * spq
            a = -0.0873 + 0.0248 * b + 0.01 * pb
            c = nb * pb + 0.5
            vr = 0.92 - 4.2 / b
            alpha = (2.83 + 5.1 / b) * spq
            lpq = xp.log(pb / qb)
            m = xp.floor((nb + 1) * pb)
            h = lgamma_array(xp, m + 1) + lgamma_array(xp, nb - m + 1)
            todo = xp.arange(big.shape[0])
            while todo.shape[0]:
                k_ = todo.shape[0]
                u = draws.uniform(k_) - 0.5
                v = draws.uniform(k_)
                us = 0.5 - xp.abs(u)
                k = xp.floor((2 * a[todo] / us + b[todo]) * u + c[todo])
                inside = (k >= 0) & (k <= nb[todo])
                quick = inside & (us >= 0.07) & (v <= vr[todo])
                kk = xp.clip(k, 0, nb[todo])
                lv = xp.log(xp.where(v > 0, v, 1e-300) * alpha[todo] / (a[todo] / (us * us) + b[todo]))
                bound = h[todo] - lgamma_array(xp, kk + 1) - lgamma_array(xp, nb[todo] - kk + 1) + \
                    (kk - m[todo]) * lpq[todo]
                ok = quick | (inside & (lv <= bound))
                out[big[todo[ok]]] = k[ok]
                todo = todo[~ok]
        out = xp.where(flip, n - out, out)
        out = xp.where(xp.isnan(prob) | xp.isnan(count), xp.nan, out)
    return out


def _binomial_kernel(count, prob, generator=None):
    _check_float("binomial", count)
    _same_device("binomial", count, prob)
    if count._dtype != prob._dtype:
        raise RuntimeError(f"binomial: expected count and prob to have the same dtype, got "
                           f"{count._dtype.scalar_name} and {prob._dtype.scalar_name}")
    count_b, prob_b = A.broadcast_tensors([count, prob])
    if count_b.numel() == 0:
        return A.empty_like(count_b)
    xp = _xp(count)
    c, p = _as_f64(count_b), _as_f64(prob_b)
    values = _binomial_f64(xp, c, p, _Draws(generator, count))
    return _result(values.reshape(tuple(count_b._size)), count_b)


# -- Meta kernels ---------------------------------------------------------------------------------------
def _meta_like(self, generator=None):
    return A.empty_like(self)


def _meta_grad(self, output):
    _check_float("_standard_gamma_grad", self)
    return A.empty_like(A.broadcast_tensors([self, output])[0])


def _meta_binomial(count, prob, generator=None):
    return A.empty_like(A.broadcast_tensors([count, prob])[0])


def _sampled(kernel, meta) -> dict:
    return {"Backend": kernel, "Meta": meta}


def _gamma_grad_formula(g, a):
    return g * A._standard_gamma_grad(a.self, a.result)


standard_gamma = Op("_standard_gamma", f"""
    _standard_gamma(Tensor self, Generator? generator=None) -> Tensor{_S}
    """, kernels={"_standard_gamma": _sampled(_standard_gamma_kernel, _meta_like)}, device=True,
    derivatives={"_standard_gamma": Deriv(save="self result", self=_gamma_grad_formula)},
    function=True, method=False,
    doc="""Draws of ``Gamma(self, 1)`` (shape ``self``); differentiable through the implicit gradient.

    >>> import openreg
    >>> openreg._standard_gamma(openreg.ones(2, 3)).shape
    openreg.Size([2, 3])
    """)

standard_gamma_grad = Op("_standard_gamma_grad", """
    _standard_gamma_grad(Tensor self, Tensor output) -> Tensor
    """, kernels={"_standard_gamma_grad": _sampled(_standard_gamma_grad_kernel, _meta_grad)}, device=True,
    function=True, method=False,
    doc="""``d output / d self`` for ``output ~ Gamma(self, 1)`` held at its CDF value.

    >>> import openreg
    >>> f"{openreg._standard_gamma_grad(openreg.tensor([1.0]), openreg.tensor([1.0])).item():.4f}"
    '1.1736'
    """)

sample_dirichlet = Op("_sample_dirichlet", f"""
    _sample_dirichlet(Tensor self, Generator? generator=None) -> Tensor{_S}
    """, kernels={"_sample_dirichlet": _sampled(_sample_dirichlet_kernel, _meta_like)}, device=True,
    derivatives={"_sample_dirichlet": NONDIFF}, function=True, method=False,
    doc="""Draws of ``Dirichlet(self)`` along the last dimension.

    >>> import openreg
    >>> f"{openreg._sample_dirichlet(openreg.ones(4, 3)).sum(-1)[0].item():.5f}"
    '1.00000'
    """)

poisson = Op("poisson", f"""
    poisson(Tensor self, Generator? generator=None) -> Tensor{_S}
    """, kernels={"poisson": _sampled(_poisson_kernel, _meta_like)}, device=True,
    derivatives={"poisson": NONDIFF}, function=True, method=False,
    doc="""Counts drawn from ``Poisson(self)`` (same shape and dtype).

    >>> import openreg
    >>> openreg.poisson(openreg.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """)

binomial = Op("binomial", f"""
    binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor{_S}
    """, kernels={"binomial": _sampled(_binomial_kernel, _meta_binomial)}, device=True,
    derivatives={"binomial": NONDIFF}, function=True, method=False,
    doc="""Counts drawn from ``Binomial(count, prob)`` (broadcast).

    >>> import openreg
    >>> openreg.binomial(openreg.tensor([5.0, 5.0]), openreg.tensor([0.0, 1.0])).tolist()
    [0.0, 5.0]
    """)

register(standard_gamma, standard_gamma_grad, sample_dirichlet, poisson, binomial)

