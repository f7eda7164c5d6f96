"""The Laplace distribution ``Laplace(loc, scale)`` (reparameterizable).

>>> import openreg
>>> from openreg.distributions import Laplace
>>> d = Laplace(0.0, 1.0)
>>> round(d.log_prob(openreg.tensor(1.0)).item(), 4), d.variance.item(), d.cdf(openreg.tensor(0.0)).item()
(-1.6931, 2.0, 0.5)
"""
from __future__ import annotations

import math

import openreg

from .centered_at_loc import CenteredAtLoc
from .loc_scale import LocScaleFamily
from .utils import _eps

__all__ = ["Laplace"]


class Laplace(CenteredAtLoc, LocScaleFamily):
    """Density ``exp(-|x - loc| / scale) / (2 scale)``."""

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = openreg.empty(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        u = u.uniform_(_eps(self.loc.dtype) - 1, 1)
        return self.loc - self.scale * u.sign() * openreg.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -openreg.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * openreg.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * openreg.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + openreg.log(2 * self.scale)
