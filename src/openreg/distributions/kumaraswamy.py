"""The Kumaraswamy distribution ``Kumaraswamy(concentration1, concentration0)`` on ``(0, 1)``
(reparameterizable through transforms of a uniform).

>>> import openreg
>>> from openreg.distributions import Kumaraswamy
>>> d = Kumaraswamy(openreg.tensor([2.0]), openreg.tensor([3.0]))
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor([0.5])).item(), 4)
(0.4571, 0.5232)
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]

_EULER_GAMMA = 0.57721566490153286060


def _moments(a, b, n):
    """``E[X^n]`` of ``Kumaraswamy(a, b)``: ``b B(1 + n/a, b)``."""
    arg1 = 1 + n / a
    log_value = openreg.lgamma(arg1) + openreg.lgamma(b) - openreg.lgamma(arg1 + b)
    return b * openreg.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Density ``a b x^(a-1) (1 - x^a)^(b-1)`` with ``a = concentration1``, ``b = concentration0``."""

    arg_constraints: ClassVar[dict] = {"concentration1": constraints.positive,
                                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(openreg.full_like(self.concentration0, 0), openreg.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(Kumaraswamy, batch_shape, _instance, ("concentration1", "concentration0"))

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a b - 1)) ** (1 / a); PyTorch 2.13's formula gives NaN wherever b > 1
        a, b = self.concentration1, self.concentration0
        log_mode = ((a - 1).log() - (a * b - 1).log()) / a
        log_mode = log_mode.masked_fill((self.concentration0 < 1) | (self.concentration1 < 1), float("nan"))
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = openreg.digamma(self.concentration0 + 1) + _EULER_GAMMA
        return t0 + t1 * h0 - openreg.log(self.concentration1) - openreg.log(self.concentration0)
