"""The Cauchy distribution ``Cauchy(loc, scale)`` (reparameterizable; no mean or variance).

>>> import openreg
>>> from openreg.distributions import Cauchy
>>> d = Cauchy(0.0, 1.0)
>>> round(d.log_prob(openreg.tensor(1.0)).item(), 4), d.cdf(openreg.tensor(1.0)).item(), d.mean.item()
(-1.8379, 0.75, nan)
"""
from __future__ import annotations

import math

import openreg

from .loc_scale import LocScaleFamily

__all__ = ["Cauchy"]


class Cauchy(LocScaleFamily):
    """Density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``."""

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return openreg.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self):
        return openreg.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = openreg.empty(tuple(shape), dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return openreg.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return openreg.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
