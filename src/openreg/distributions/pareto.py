"""The Pareto distribution ``Pareto(scale, alpha)``: ``scale * exp(E)`` with ``E ~ Exponential(alpha)``.

>>> import openreg
>>> from openreg.distributions import Pareto
>>> d = Pareto(1.0, 3.0)
>>> d.mean.item(), round(d.log_prob(openreg.tensor(2.0)).item(), 4)
(1.5, -1.674)
"""
from __future__ import annotations

from typing import ClassVar

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Density ``alpha scale^alpha / x^(alpha + 1)`` on ``x >= scale`` (reparameterizable)."""

    arg_constraints: ClassVar[dict] = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(Pareto, batch_shape, _instance, ("scale", "alpha"))

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
