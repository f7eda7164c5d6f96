"""The half-Cauchy distribution ``HalfCauchy(scale)``: ``|X|`` with ``X ~ Cauchy(0, scale)``.

>>> import openreg
>>> from openreg.distributions import HalfCauchy
>>> d = HalfCauchy(1.0)
>>> round(d.log_prob(openreg.tensor(1.0)).item(), 4), d.cdf(openreg.tensor(1.0)).item()
(-1.1447, 0.5)
"""
from __future__ import annotations

import math

import openreg

from .cauchy import Cauchy
from .half import HalfDistribution

__all__ = ["HalfCauchy"]


class HalfCauchy(HalfDistribution):
    """Density ``2 / (pi scale (1 + (x / scale)^2))`` on ``x >= 0`` (reparameterizable)."""

    _family = Cauchy

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(HalfCauchy, batch_shape, _instance)

    @property
    def mean(self):
        return openreg.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance

    def _log_prob_value(self, value):
        """``value`` as a tensor of the scale's dtype and device (as PyTorch's ``HalfCauchy.log_prob``)."""
        return openreg.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
