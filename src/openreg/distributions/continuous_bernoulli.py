"""The continuous Bernoulli distribution ``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``
on ``[0, 1]`` (Loaiza-Ganem & Cunningham 2019; the right likelihood for [0, 1]-valued pixels in a VAE):
density ``C(p) p^x (1 - p)^(1 - x)``. Near ``p = 1/2`` (inside ``lims``) the normalizer, mean and variance use
their Taylor series, where the closed forms cancel catastrophically. Reparameterizable by its inverse CDF.

>>> import openreg
>>> from openreg.distributions import ContinuousBernoulli
>>> d = ContinuousBernoulli(openreg.tensor([0.2, 0.5]))
>>> [round(v, 4) for v in d.log_prob(openreg.tensor([0.3, 0.3])).tolist()], [round(v, 4) for v in d.mean.tolist()]
([0.1984, 0.0], [0.388, 0.5])
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg
from openreg.nn import functional as F

from . import constraints
from .exp_family import ExponentialFamily
from .probs_or_logits import BinaryProbsOrLogits
from .utils import _batch_shape_of, broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryProbsOrLogits, ExponentialFamily):
    """``probs`` in (0, 1) (or ``logits`` with ``sigmoid(logits) = probs``); not a probability of 1."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args: bool | None = None) -> None:
        self._set_probs_or_logits(probs, logits)
        if probs is not None:
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(_batch_shape_of(self._param, probs if probs is not None else logits),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_probs_or_logits(ContinuousBernoulli, batch_shape, _instance, shared=("_lims",))

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> openreg.Size:
        return self._param.size()

    def _stable(self):
        """Where the closed forms are used: ``probs`` outside ``lims``."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """``probs`` where stable, else ``lims[0]`` (so the unused closed-form branch stays finite)."""
        return openreg.where(self._stable(), self.probs, openreg.full_like(self.probs, self._lims[0]))

    def _log_norm(self):
        """``log C(p)`` with ``C(p) = log((1 - p) / p) / (1 - 2p)`` (``2`` at ``p = 1/2``)."""
        p = self._cut_probs()
        closed = (openreg.log((openreg.log1p(-p) - openreg.log(p)).abs())
                  - openreg.log((1.0 - 2.0 * p).abs()))
        d2 = (self.probs - 0.5).pow(2)
        series = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * d2) * d2
        return openreg.where(self._stable(), closed, series)

    @property
    def mean(self):
        p = self._cut_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / (openreg.log1p(-p) - openreg.log(p))
        d = self.probs - 0.5
        series = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * d.pow(2)) * d
        return openreg.where(self._stable(), closed, series)

    @property
    def variance(self):
        p = self._cut_probs()
        closed = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / (openreg.log1p(-p) - openreg.log(p)).pow(2)
        d2 = (self.probs - 0.5).pow(2)
        series = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * d2) * d2
        return openreg.where(self._stable(), closed, series)

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        u = openreg.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype, device=self.probs.device)
        with openreg.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        u = openreg.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = openreg.where(self._stable(), closed, value)
        return openreg.where(value <= 0.0, openreg.zeros_like(value),
                             openreg.where(value >= 1.0, openreg.ones_like(value), inside))

    def icdf(self, value):
        p = self._cut_probs()
        closed = ((openreg.log1p(-p + value * (2.0 * p - 1.0)) - openreg.log1p(-p))
                  / (openreg.log(p) - openreg.log1p(-p)))
        return openreg.where(self._stable(), closed, value)

    def entropy(self):
        log_q, log_p = openreg.log1p(-self.probs), openreg.log(self.probs)
        return self.mean * (log_q - log_p) - self._log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """``log((e^x - 1) / x)`` in the natural parameter, its series near 0."""
        stable = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = openreg.where(stable, x, openreg.full_like(x, self._lims[0] - 0.5))
        closed = openreg.log(openreg.expm1(cut).abs()) - openreg.log(cut.abs())
        series = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return openreg.where(stable, closed, series)
