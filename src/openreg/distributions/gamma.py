"""The gamma distribution ``Gamma(concentration, rate)`` (reparameterizable through the implicit gradient of
``openreg._standard_gamma``).

>>> import openreg
>>> from openreg.distributions import Gamma
>>> d = Gamma(openreg.tensor([2.0]), openreg.tensor([3.0]))
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor([1.0])).item(), 4)
(0.6667, -0.8028)
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Gamma"]


def _clamp_tiny(value):
    """``value`` raised to the dtype's smallest normal number, gradients passing as through the identity
    (gamma draws of tiny concentrations underflow to 0, where log_prob would be -inf)."""
    tiny = openreg.finfo(value.dtype).tiny
    return value + (value.clamp(min=tiny) - value).detach()


class Gamma(ExponentialFamily):
    """Density ``rate^c x^(c-1) exp(-rate x) / Gamma(c)`` on ``x >= 0`` with ``c = concentration``."""

    _mean_carrier_measure = 0
    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch_shape_of(self.concentration, concentration, rate), validate_args=validate_args)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return openreg.lgamma(x + 1) + (x + 1) * openreg.log(-y.reciprocal())

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        value = openreg._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return _clamp_tiny(value)

    def log_prob(self, value):
        value = openreg.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (openreg.xlogy(self.concentration, self.rate) + openreg.xlogy(self.concentration - 1, value)
                - self.rate * value - openreg.lgamma(self.concentration))

    def entropy(self):
        c = self.concentration
        return c - openreg.log(self.rate) + openreg.lgamma(c) + (1.0 - c) * openreg.digamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return openreg.special.gammainc(self.concentration, self.rate * value)
