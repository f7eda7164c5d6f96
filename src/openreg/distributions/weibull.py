"""The Weibull distribution ``Weibull(scale, concentration)``: ``scale * E ** (1 / concentration)`` with
``E ~ Exponential(1)``.

>>> import openreg
>>> from openreg.distributions import Weibull
>>> d = Weibull(1.0, 1.0)
>>> d.mean.item(), round(d.log_prob(openreg.tensor(2.0)).item(), 4)
(1.0, -2.0)
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["Weibull"]

_EULER_GAMMA = 0.57721566490153286060


class Weibull(TransformedDistribution):
    """Density ``(k / s) (x / s)^(k-1) exp(-(x / s)^k)`` on ``x >= 0`` (reparameterizable)."""

    arg_constraints: ClassVar[dict] = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(openreg.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, [PowerTransform(exponent=self.concentration_reciprocal),
                                AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * openreg.exp(openreg.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (openreg.exp(openreg.lgamma(1 + 2 * self.concentration_reciprocal))
                                    - openreg.exp(2 * openreg.lgamma(1 + self.concentration_reciprocal)))

    def entropy(self):
        return (_EULER_GAMMA * (1 - self.concentration_reciprocal) + openreg.log(self.scale * self.concentration_reciprocal)
                + 1)
