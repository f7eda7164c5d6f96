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
from .categorical_backed import CategoricalBacked
from .distribution import Distribution
from .relaxation import Relaxation
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(CategoricalBacked, Distribution):
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
        return self._expanded(ExpRelaxedCategorical, batch_shape, _instance, ("_categorical",),
                              shared=("temperature",), param_event_shape=())

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


class RelaxedOneHotCategorical(Relaxation):
    """Points of the simplex concentrating near one-hot vectors as ``temperature`` goes to 0."""

    _relaxed = ExpRelaxedCategorical
    _transform = ExpTransform
    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex

    def expand(self, batch_shape, _instance=None):
        return self._expanded_subclass(RelaxedOneHotCategorical, batch_shape, _instance)
