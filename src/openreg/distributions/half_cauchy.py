"""The half-Cauchy distribution ``HalfCauchy(scale)``: ``|X|`` with ``X ~ Cauchy(0, scale)``.

>>> import openreg
>>> from openreg.distributions import HalfCauchy
>>> d = HalfCauchy(1.0)
>>> round(d.log_prob(openreg.tensor(1.0)).item(), 4), d.cdf(openreg.tensor(1.0)).item()
(-1.1447, 0.5)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """Density ``2 / (pi scale (1 + (x / scale)^2))`` on ``x >= 0`` (reparameterizable)."""

    arg_constraints: ClassVar[dict] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(HalfCauchy, _instance))

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return openreg.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self):
        return openreg.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = openreg.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        result = self.base_dist.log_prob(value) + math.log(2)
        return openreg.where(value >= 0, result, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
