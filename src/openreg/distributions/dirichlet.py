"""The Dirichlet distribution ``Dirichlet(concentration)`` over the probability simplex (reparameterizable:
normalized ``openreg._standard_gamma`` draws, whose implicit gradients flow to ``concentration``).

>>> import openreg
>>> from openreg.distributions import Dirichlet
>>> d = Dirichlet(openreg.tensor([1.0, 2.0, 3.0]))
>>> [round(v, 4) for v in d.mean.tolist()], round(d.log_prob(openreg.tensor([0.2, 0.3, 0.5])).item(), 4)
([0.1667, 0.3333, 0.5], 1.5041)
"""
from __future__ import annotations

from typing import ClassVar

import openreg
from openreg.nn import functional as F

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _clamp_tiny(value):
    tiny = openreg.finfo(value.dtype).tiny
    return value + (value.clamp(min=tiny) - value).detach()


class Dirichlet(ExponentialFamily):
    """Density ``prod_i x_i^(c_i - 1) / B(c)`` on the simplex; the last dim of ``concentration`` is the event."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return openreg.lgamma(x).sum(-1) - openreg.lgamma(x.sum(-1))

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",))

    def sample(self, sample_shape=()):
        with openreg.no_grad():
            return openreg._sample_dirichlet(self.concentration.expand(tuple(self._extended_shape(sample_shape))))

    def rsample(self, sample_shape=()):
        gammas = _clamp_tiny(openreg._standard_gamma(self.concentration.expand(
            tuple(self._extended_shape(sample_shape)))))
        return _clamp_tiny(gammas / gammas.sum(-1, keepdim=True))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (openreg.xlogy(c - 1.0, value).sum(-1) + openreg.lgamma(c.sum(-1)) - openreg.lgamma(c).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        above = (self.concentration - 1).clamp(min=0.0)
        mode = above / above.sum(-1, keepdim=True)
        corner = F.one_hot(mode.argmax(dim=-1), above.shape[-1]).to(mode)
        return openreg.where((self.concentration < 1).all(dim=-1, keepdim=True), corner, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (openreg.lgamma(c).sum(-1) - openreg.lgamma(total) - (k - total) * openreg.digamma(total)
                - ((c - 1.0) * openreg.digamma(c)).sum(-1))
