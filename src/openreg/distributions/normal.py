"""The normal distribution ``Normal(loc, scale)`` (reparameterizable).

>>> import openreg
>>> from openreg.distributions import Normal
>>> round(Normal(0.0, 1.0).log_prob(openreg.tensor(0.0)).item(), 4)
-0.9189
"""
from __future__ import annotations

import math

import openreg

from .centered_at_loc import CenteredAtLoc
from .exp_family import ExponentialFamily
from .loc_scale import LocScaleFamily

__all__ = ["Normal"]


class Normal(CenteredAtLoc, LocScaleFamily, ExponentialFamily):
    """Gaussian with mean ``loc`` and standard deviation ``scale`` (broadcast together)."""

    _mean_carrier_measure = 0
    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = openreg.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + openreg.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * openreg.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * openreg.log(-math.pi / y)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Normal, batch_shape, _instance, ("loc", "scale"))
