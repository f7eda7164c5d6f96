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

from typing import ClassVar

import openreg

from . import constraints
from .distribution import Distribution
from .probs_or_logits import BinaryProbsOrLogits
from .relaxation import Relaxation
from .transforms import SigmoidTransform
from .utils import _batch_shape_of, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryProbsOrLogits, Distribution):
    """The logit of a ``RelaxedBernoulli`` draw: ``(logits + Logistic noise) / temperature``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self.temperature = temperature
        self._set_probs_or_logits(probs, logits)
        super().__init__(_batch_shape_of(self._param, probs if probs is not None else logits),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_probs_or_logits(LogitRelaxedBernoulli, batch_shape, _instance,
                                              shared=("temperature",))

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


class RelaxedBernoulli(Relaxation):
    """Values in ``(0, 1)`` concentrating near 0 and 1 as ``temperature`` goes to 0."""

    _relaxed = LogitRelaxedBernoulli
    _transform = SigmoidTransform
    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(RelaxedBernoulli, batch_shape, _instance)
