"""``RelaxedBernoulli`` (binary concrete distribution) and its logit-space base ``LogitRelaxedBernoulli``:
reparameterizable relaxations of Bernoulli draws at a ``temperature``.

>>> import openreg
>>> from openreg.distributions import RelaxedBernoulli
>>> d = RelaxedBernoulli(openreg.tensor(0.5), probs=openreg.tensor([0.2, 0.9]))
>>> x = d.rsample((3,))
>>> x.shape, bool(((x > 0) & (x < 1)).all())
(openreg.Size([3, 2]), True)
"""
from __future__ import annotations

import numbers
from typing import ClassVar

import openreg

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a ``RelaxedBernoulli`` draw: ``(logits + Logistic noise) / temperature``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            number = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            number = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(openreg.Size() if number else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = openreg.Size(batch_shape)
        new.temperature = self.temperature
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

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(openreg.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        log_t = self.temperature.log() if isinstance(self.temperature, openreg.Tensor) else \
            openreg.log(openreg.tensor(float(self.temperature), dtype=diff.dtype, device=diff.device))
        return log_t + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """Values in ``(0, 1)`` concentrating near 0 and 1 as ``temperature`` goes to 0."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args: bool | None = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(RelaxedBernoulli, _instance))

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
