"""The normal distribution ``Normal(loc, scale)`` (reparameterizable).

>>> import openreg
>>> from openreg.distributions import Normal
>>> round(Normal(0.0, 1.0).log_prob(openreg.tensor(0.0)).item(), 4)
-0.9189
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """Gaussian with mean ``loc`` and standard deviation ``scale`` (broadcast together)."""

    _mean_carrier_measure = 0
    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = openreg.Size() if isinstance(loc, (int, float)) and isinstance(scale, (int, float)) \
            else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

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
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = openreg.Size(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new
