"""``RelaxedOneHotCategorical`` (Gumbel-softmax / concrete distribution) and its log-space base
``ExpRelaxedCategorical``: reparameterizable relaxations of one-hot categorical draws at a ``temperature``.

>>> import openreg
>>> from openreg.distributions import RelaxedOneHotCategorical
>>> d = RelaxedOneHotCategorical(openreg.tensor(0.5), probs=openreg.tensor([0.2, 0.3, 0.5]))
>>> x = d.rsample((2,))
>>> x.shape, [round(v, 5) for v in x.sum(-1).tolist()]
(openreg.Size([2, 3]), [1.0, 1.0])
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a ``RelaxedOneHotCategorical`` draw: ``log_softmax((logits + Gumbel noise) / temperature)``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = openreg.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self) -> openreg.Size:
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        uniforms = clamp_probs(openreg.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        temperature = self.temperature if isinstance(self.temperature, openreg.Tensor) else \
            openreg.tensor(float(self.temperature), dtype=logits.dtype, device=logits.device)
        log_scale = openreg.full_like(temperature, float(k)).lgamma() - temperature.log().mul(-(k - 1))
        score = logits - value.mul(temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """Points of the simplex concentrating near one-hot vectors as ``temperature`` goes to 0."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args: bool | None = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(RelaxedOneHotCategorical,
                                                                                _instance))

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
