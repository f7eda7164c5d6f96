"""The Gumbel distribution ``Gumbel(loc, scale)`` (reparameterizable, through transforms of a uniform).

>>> import openreg
>>> from openreg.distributions import Gumbel
>>> d = Gumbel(0.0, 1.0)
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor(0.0)).item(), 4)
(0.5772, -1.0)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _eps, broadcast_all

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """Density ``exp(-(z + exp(-z))) / scale`` with ``z = (x - loc) / scale``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        tiny = openreg.finfo(self.loc.dtype).tiny
        base = Uniform(openreg.full_like(self.loc, tiny), openreg.full_like(self.loc, 1 - _eps(self.loc.dtype)),
                       validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-openreg.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(Gumbel, batch_shape, _instance, ("loc", "scale"))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)
