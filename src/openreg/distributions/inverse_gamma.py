"""The inverse gamma distribution ``InverseGamma(concentration, rate)``: ``1 / X`` with
``X ~ Gamma(concentration, rate)``.

>>> import openreg
>>> from openreg.distributions import InverseGamma
>>> d = InverseGamma(openreg.tensor([3.0]), openreg.tensor([2.0]))
>>> d.mean.tolist(), round(d.log_prob(openreg.tensor([1.0])).item(), 4)
([1.0], -0.6137)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform
from .utils import _forwarded

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Density ``rate^c x^(-c-1) exp(-rate / x) / Gamma(c)`` on ``x > 0`` (reparameterizable)."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(InverseGamma, batch_shape, _instance)

    concentration = _forwarded("base_dist.concentration")
    rate = _forwarded("base_dist.rate")

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return openreg.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return openreg.where(self.concentration > 2, result, math.inf)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + openreg.lgamma(c) - (1 + c) * openreg.digamma(c)
