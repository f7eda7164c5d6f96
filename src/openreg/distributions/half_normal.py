"""The half-normal distribution ``HalfNormal(scale)``: ``|X|`` with ``X ~ Normal(0, scale)``.

>>> import openreg
>>> from openreg.distributions import HalfNormal
>>> d = HalfNormal(1.0)
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor(0.0)).item(), 4), round(d.cdf(openreg.tensor(1.0)).item(), 4)
(0.7979, -0.2258, 0.6827)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """Density ``2 N(x; 0, scale)`` on ``x >= 0`` (reparameterizable)."""

    arg_constraints: ClassVar[dict] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(HalfNormal, _instance))

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return openreg.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
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
