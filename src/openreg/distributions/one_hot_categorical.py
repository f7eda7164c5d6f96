"""``OneHotCategorical``: a categorical draw as a one-hot vector over the last dimension, and
``OneHotCategoricalStraightThrough`` (the straight-through gradient estimator).

>>> import openreg
>>> from openreg.distributions import OneHotCategorical
>>> d = OneHotCategorical(probs=openreg.tensor([0.25, 0.75]))
>>> d.event_shape, d.sample((3,)).shape, round(d.log_prob(openreg.tensor([0.0, 1.0])).item(), 4)
(openreg.Size([2]), openreg.Size([3, 2]), -0.2877)
"""
from __future__ import annotations

from typing import ClassVar

import openreg
from openreg.nn import functional as F

from . import constraints
from .categorical import Categorical
from .categorical_backed import CategoricalBacked
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(CategoricalBacked, Distribution):
    """One-hot vectors with category probabilities ``probs`` (or ``softmax(logits)``) along the last dim."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(OneHotCategorical, batch_shape, _instance, ("_categorical",), param_event_shape=())

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=()):
        probs = self._categorical.probs
        indices = self._categorical.sample(openreg.Size(sample_shape))
        return F.one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True):
        n = self.event_shape[0]
        values = openreg.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` whose ``rsample`` passes the gradient of ``probs`` straight through the draw."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
