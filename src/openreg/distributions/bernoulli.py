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
from .exp_family import ExponentialFamily
from .probs_or_logits import BinaryProbsOrLogits
from .utils import _batch_shape_of, _support_over_batch, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbsOrLogits, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    _mean_carrier_measure = 0
    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._set_probs_or_logits(probs, logits)
        super().__init__(_batch_shape_of(self._param, probs if probs is not None else logits),
                         validate_args=validate_args)

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
        return _support_over_batch(values, self._batch_shape, expand)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return openreg.log1p(openreg.exp(x))

    def expand(self, batch_shape, _instance=None):
        return self._expanded_probs_or_logits(Bernoulli, batch_shape, _instance)
