"""The logistic-normal distribution ``LogisticNormal(loc, scale)``: a normal vector mapped onto the simplex by
stick breaking.

>>> import openreg
>>> from openreg.distributions import LogisticNormal
>>> d = LogisticNormal(openreg.zeros(2), openreg.ones(2))
>>> d.event_shape, round(d.rsample().sum().item(), 5)
(openreg.Size([3]), 1.0)
"""
from __future__ import annotations

from typing import ClassVar

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform
from .utils import _forwarded

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform()(x)`` for ``x ~ Normal(loc, scale)`` over the last dimension."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(LogisticNormal, batch_shape, _instance)

    loc = _forwarded("base_dist.base_dist.loc")
    scale = _forwarded("base_dist.base_dist.scale")
