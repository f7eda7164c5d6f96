"""The beta distribution ``Beta(concentration1, concentration0)`` on ``[0, 1]`` (reparameterizable through
the two-category ``Dirichlet``).

>>> import openreg
>>> from openreg.distributions import Beta
>>> d = Beta(openreg.tensor([2.0]), openreg.tensor([3.0]))
>>> round(d.mean.item(), 4), round(d.log_prob(openreg.tensor([0.5])).item(), 4)
(0.4, 0.4055)
"""
from __future__ import annotations

import numbers
from typing import ClassVar

import openreg

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` with ``a = concentration1``, ``b = concentration0``."""

    arg_constraints: ClassVar[dict] = {"concentration1": constraints.positive,
                                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args: bool | None = None) -> None:
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            both = openreg.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            both = openreg.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return openreg.lgamma(x) + openreg.lgamma(y) - openreg.lgamma(x + y)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Beta, batch_shape, _instance, ("_dirichlet",))

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def sample(self, sample_shape=()):
        return self._dirichlet.sample(sample_shape).select(-1, 0)

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(openreg.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()
