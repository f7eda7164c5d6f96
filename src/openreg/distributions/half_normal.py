"""The half-normal distribution ``HalfNormal(scale)``: ``|X|`` with ``X ~ Normal(0, scale)``.

>>> import openreg
>>> from openreg.distributions import HalfNormal
>>> d = HalfNormal(1.0)
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor(0.0)).item(), 4), round(d.cdf(openreg.tensor(1.0)).item(), 4)
(0.7979, -0.2258, 0.6827)
"""
from __future__ import annotations

import math

from .half import HalfDistribution
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(HalfDistribution):
    """Density ``2 N(x; 0, scale)`` on ``x >= 0`` (reparameterizable)."""

    _family = Normal

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(HalfNormal, batch_shape, _instance)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
