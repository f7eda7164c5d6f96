"""The Bernoulli distribution over ``{0, 1}``, from ``probs`` or ``logits``.

>>> import openreg
>>> from openreg.distributions import Bernoulli
>>> d = Bernoulli(probs=openreg.tensor([0.25]))
>>> d.mean.tolist(), round(d.log_prob(openreg.tensor([1.0])).item(), 4)
([0.25], -1.3863)
"""
from __future__ import annotations

from typing import ClassVar

import openreg
from openreg.nn import functional as F

from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    _mean_carrier_measure = 0
    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        number = isinstance(probs if probs is not None else logits, (int, float))
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(openreg.Size() if number else self._param.size(), validate_args=validate_args)

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
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with openreg.no_grad():
            return openreg.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True):
        values = openreg.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return openreg.log1p(openreg.exp(x))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = openreg.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new
