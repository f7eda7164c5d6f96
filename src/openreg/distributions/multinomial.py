"""The multinomial distribution ``Multinomial(total_count=1, probs=None, logits=None)``: category counts of
``total_count`` categorical draws.

>>> import openreg
>>> from openreg.distributions import Multinomial
>>> d = Multinomial(4, probs=openreg.tensor([0.25, 0.75]))
>>> d.sample().sum().item(), round(d.log_prob(openreg.tensor([1.0, 3.0])).item(), 4)
(4.0, -0.863)
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .categorical_backed import CategoricalBacked
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(CategoricalBacked, Distribution):
    """Counts per category (last dim) of ``total_count`` draws from ``Categorical(probs, logits)``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Multinomial, batch_shape, _instance, ("_categorical",), shared=("total_count",),
                             param_event_shape=())
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = openreg.Size(sample_shape)
        with openreg.no_grad():
            draws = self._categorical.sample(openreg.Size((self.total_count,)) + sample_shape)
            draws = draws.permute(*range(1, draws.dim()), 0)     # the draws last
            counts = openreg.zeros(tuple(self._extended_shape(sample_shape)), dtype=draws.dtype,
                                   device=draws.device)
            counts.scatter_add_(-1, draws, openreg.ones_like(draws))
            return counts.type_as(self.probs)

    def entropy(self):
        n = openreg.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        term1 = n * self._categorical.entropy() - openreg.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = openreg.lgamma(support + 1)
        return term1 + (binomial_probs * weights).sum([0, -1])

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = openreg.lgamma(value.sum(-1) + 1)
        log_factorial_xs = openreg.lgamma(value + 1).sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == -float("inf")), 0.0)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
