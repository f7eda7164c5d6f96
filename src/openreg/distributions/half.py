"""``HalfDistribution``: the base of ``HalfCauchy`` and ``HalfNormal``, the law of ``|X|`` for ``X`` of a
location-scale family centered at 0 (``X ~ family(0, scale)``): density ``2 f(x)`` on ``x >= 0``, CDF
``2 F(x) - 1``, entropy ``H(X) - log 2``.

>>> import openreg
>>> from openreg.distributions import HalfNormal
>>> d = HalfNormal(2.0)
>>> d.scale.item(), d.mode.item(), round(d.icdf(d.cdf(openreg.tensor(1.5))).item(), 4)
(2.0, 0.0, 1.5)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform
from .utils import _forwarded

__all__ = ["HalfDistribution"]


class HalfDistribution(TransformedDistribution):
    """``|X|`` with ``X ~ _family(0, scale)`` (reparameterizable); subclasses set ``_family``."""

    _family: ClassVar[type]
    arg_constraints: ClassVar[dict] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args: bool | None = None) -> None:
        super().__init__(self._family(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    scale = _forwarded("base_dist.scale")

    @property
    def mode(self):
        return openreg.zeros_like(self.scale)

    def _log_prob_value(self, value):
        """The validated ``value`` as ``log_prob`` evaluates it (unchanged here)."""
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = self._log_prob_value(value)
        result = self.base_dist.log_prob(value) + math.log(2)
        return openreg.where(value >= 0, result, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
