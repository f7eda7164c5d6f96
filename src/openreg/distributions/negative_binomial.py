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
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """Mass ``C(k + r - 1, k) (1 - p)^r p^k`` at ``k = 0, 1, ...`` (``r = total_count``, ``p = probs``)."""

    arg_constraints: ClassVar[dict] = {"total_count": constraints.greater_than_eq(0),
                                       "probs": constraints.half_open_interval(0.0, 1.0),
                                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = openreg.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

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
