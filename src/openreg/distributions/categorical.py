"""The categorical distribution over ``{0, ..., K-1}``, from ``probs`` (normalized along the last dim) or
``logits`` (log-probabilities up to a constant).

>>> import openreg
>>> from openreg.distributions import Categorical
>>> d = Categorical(probs=openreg.tensor([1.0, 3.0]))
>>> d.probs.tolist(), round(d.log_prob(openreg.tensor(1)).item(), 4)
([0.25, 0.75], -0.2877)
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

import openreg

from . import constraints
from .distribution import Distribution
from .utils import _support_over_batch, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """``K`` categories along the last dimension of ``probs`` or ``logits`` (exactly one of them)."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else openreg.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> openreg.Size:
        return self._param.size()

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return openreg.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return openreg.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape=()):
        sample_shape = openreg.Size(sample_shape)
        n = sample_shape.numel()
        with openreg.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            drawn = openreg.multinomial(probs_2d, n, True).T
        return drawn.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = openreg.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        lowest = float(np.finfo(np.float64 if self.logits.dtype == openreg.float64 else np.float32).min)
        p_log_p = self.logits.clamp(min=lowest) * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True):
        values = openreg.arange(self._num_events, dtype=openreg.int64, device=self._param.device)
        return _support_over_batch(values, self._batch_shape, expand)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Categorical, batch_shape, _instance, ("probs", "logits"), shared=("_num_events",),
                             param_event_shape=(self._num_events,))
        new._param = new.__dict__["logits"] if "logits" in new.__dict__ else new.__dict__["probs"]
        return new
