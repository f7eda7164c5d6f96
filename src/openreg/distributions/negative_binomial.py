"""The negative binomial distribution ``NegativeBinomial(total_count, probs=None, logits=None)``: failures
before ``total_count`` successes (sampled as a gamma-Poisson mixture).

>>> import openreg
>>> from openreg.distributions import NegativeBinomial
>>> d = NegativeBinomial(3.0, probs=openreg.tensor([0.5]))
>>> d.mean.tolist(), round(d.log_prob(openreg.tensor([2.0])).item(), 4)
([3.0], -1.674)
"""
from __future__ import annotations

from typing import ClassVar

import openreg
from openreg.nn import functional as F

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .probs_or_logits import BinaryProbsOrLogits
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsOrLogits, Distribution):
    """Mass ``C(k + r - 1, k) (1 - p)^r p^k`` at ``k = 0, 1, ...`` (``r = total_count``, ``p = probs``)."""

    arg_constraints: ClassVar[dict] = {"total_count": constraints.greater_than_eq(0),
                                       "probs": constraints.half_open_interval(0.0, 1.0),
                                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args: bool | None = None) -> None:
        (total_count,) = self._set_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_probs_or_logits(NegativeBinomial, batch_shape, _instance, ("total_count",))

    @property
    def param_shape(self) -> openreg.Size:
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * openreg.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / openreg.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=openreg.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=()):
        with openreg.no_grad():
            return openreg.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalization = (-openreg.lgamma(self.total_count + value) + openreg.lgamma(1.0 + value)
                         + openreg.lgamma(self.total_count))
        normalization = normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalized - normalization
