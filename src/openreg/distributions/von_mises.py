"""The von Mises distribution ``VonMises(loc, concentration)``: the circular normal on ``[-pi, pi)``, density
``exp(k cos(x - loc)) / (2 pi I0(k))``. Sampled by Best & Fisher's rejection method (1979); ``log I0`` and
``I1 / I0`` from the power series below ``k = 15`` and the asymptotic expansion above (differentiable).

>>> import openreg
>>> from openreg.distributions import VonMises
>>> d = VonMises(openreg.tensor([0.5]), openreg.tensor([2.0]))
>>> round(d.log_prob(openreg.tensor([1.0])).item(), 4), round(d.variance.item(), 4)
(-0.9067, 0.3022)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .centered_at_loc import CenteredAtLoc
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

_SERIES_TERMS = 64
_SWITCH = 15.0


def _log_bessel_i(k, order: int):
    """``log I_order(k)`` for ``k >= 0`` (``order`` 0 or 1), elementwise and differentiable."""
    small = k.clamp(max=_SWITCH)
    j = openreg.arange(_SERIES_TERMS, dtype=k.dtype, device=k.device)
    half = (small / 2).unsqueeze(-1)
    log_half = openreg.log(half.clamp(min=openreg.finfo(k.dtype).tiny))
    terms = (2 * j + order) * log_half - openreg.lgamma(j + 1) - openreg.lgamma(j + order + 1)
    if order:
        terms = terms.masked_fill(half == 0, -math.inf)
    else:
        terms = openreg.where((half == 0) & (j > 0), -math.inf, terms)
    series = openreg.logsumexp(terms, dim=-1)
    big = k.clamp(min=_SWITCH)
    mu = 4.0 * order * order
    inv = 1.0 / (8.0 * big)
    poly = 1.0
    term = 1.0
    for i in range(1, 6):                # I_n(k) ~ e^k / sqrt(2 pi k) * sum_i (-1)^i prod (mu - (2j-1)^2) / (i! (8k)^i)
        term = term * -(mu - (2 * i - 1) ** 2) * inv / i
        poly = poly + term
    asymptotic = big - 0.5 * openreg.log(2 * math.pi * big) + openreg.log(poly)
    return openreg.where(k < _SWITCH, series, asymptotic)


class VonMises(CenteredAtLoc, Distribution):
    """Angles near ``loc`` with concentration ``concentration`` (0: uniform on the circle)."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(VonMises, batch_shape, _instance, ("loc", "concentration"))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * openreg.cos(value - self.loc) - math.log(2 * math.pi) - _log_bessel_i(k, 0)

    @lazy_property
    def _proposal_r(self):
        k = self.concentration.detach().double()
        tau = 1 + (1 + 4 * k ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        return (1 + rho ** 2) / (2 * rho)

    def sample(self, sample_shape=()):
        """Best & Fisher: a wrapped-Cauchy proposal accepted by a squeeze test, all elements per round."""
        shape = tuple(self._extended_shape(sample_shape))
        with openreg.no_grad():
            k = self.concentration.detach().double().expand(shape)
            r = self._proposal_r.expand(shape)
            device = self.loc.device
            done = openreg.zeros(shape, dtype=openreg.bool, device=device)
            out = openreg.zeros(shape, dtype=openreg.float64, device=device)
            while not bool(done.all()):
                u = openreg.rand((3,) + shape, dtype=openreg.float64, device=device)
                z = openreg.cos(math.pi * u[0])
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                accept = ((c * (2 - c) - u[1]) > 0) | ((c / u[1]).log() + 1 - c >= 0)
                take = accept & ~done
                out = openreg.where(take, openreg.sign(u[2] - 0.5) * openreg.acos(f.clamp(-1, 1)), out)
                done = done | accept
            uniform = (self.concentration.detach().double() == 0).expand(shape)
            if bool(uniform.any()):
                out = openreg.where(uniform, math.pi * (2 * openreg.rand(shape, dtype=openreg.float64,
                                                                       device=device) - 1), out)
            angle = (out + self.loc.double() + math.pi).remainder(2 * math.pi) - math.pi
            return angle.to(self.loc.dtype)

    @lazy_property
    def variance(self):
        k = self.concentration
        return 1 - (_log_bessel_i(k, 1) - _log_bessel_i(k, 0)).exp()
