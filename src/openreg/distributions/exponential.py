"""The exponential distribution ``Exponential(rate)`` (reparameterizable).

>>> import openreg
>>> from openreg.distributions import Exponential
>>> d = Exponential(openreg.tensor([2.0]))
>>> d.mean.tolist(), round(d.log_prob(openreg.tensor([1.0])).item(), 4), round(d.cdf(openreg.tensor([1.0])).item(), 4)
([0.5], -1.3069, 0.8647)
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Density ``rate * exp(-rate * x)`` on ``x >= 0``."""

    _mean_carrier_measure = 0
    arg_constraints: ClassVar[dict] = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape_of(self.rate, rate), validate_args=validate_args)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -openreg.log(-x)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return openreg.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        draws = openreg.empty(tuple(shape), dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return draws / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - openreg.exp(-self.rate * value)

    def icdf(self, value):
        return -openreg.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - openreg.log(self.rate)
