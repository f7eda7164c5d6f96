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
from .probs_or_logits import BinaryProbsOrLogits
from .utils import _support_over_batch

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryProbsOrLogits, Distribution):
    """Successes among ``total_count`` independent trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints: ClassVar[dict] = {"total_count": constraints.nonnegative_integer,
                                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        (total_count,) = self._set_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_probs_or_logits(Binomial, batch_shape, _instance, ("total_count",))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

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
        return _support_over_batch(values, self._batch_shape, expand)
