"""The binomial distribution ``Binomial(total_count=1, probs=None, logits=None)`` (sampled by
``openreg.binomial``).

>>> import openreg
>>> from openreg.distributions import Binomial
>>> d = Binomial(4, probs=openreg.tensor([0.5]))
>>> round(d.log_prob(openreg.tensor([2.0])).item(), 4), d.mean.tolist(), d.variance.tolist()
(-0.9808, [2.0], [1.0])
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """Successes among ``total_count`` independent trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints: ClassVar[dict] = {"total_count": constraints.nonnegative_integer,
                                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args: bool | None = None) -> None:
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
        new = self._get_checked_instance(Binomial, _instance)
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

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

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
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with openreg.no_grad():
            return openreg.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_norm = n * _clamp_by_zero(logits) + n * openreg.log1p(openreg.exp(-openreg.abs(logits))) \
            - openreg.lgamma(n + 1)
        return value * logits - openreg.lgamma(value + 1) - openreg.lgamma(n - value + 1) - log_norm

    def _homogeneous_count(self, what: str) -> int:
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(openreg.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        count = self._homogeneous_count("enumerate_support")
        values = openreg.arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
