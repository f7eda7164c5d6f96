"""The log-normal distribution ``LogNormal(loc, scale)``: ``exp`` of ``Normal(loc, scale)``.

>>> import openreg
>>> from openreg.distributions import LogNormal
>>> d = LogNormal(0.0, 1.0)
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor(1.0)).item(), 4)
(1.6487, -0.9189)
"""
from __future__ import annotations

from typing import ClassVar

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import _forwarded

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``Y = exp(X)`` with ``X ~ Normal(loc, scale)`` (reparameterizable)."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(LogNormal, batch_shape, _instance)

    loc = _forwarded("base_dist.loc")
    scale = _forwarded("base_dist.scale")

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
