"""The Poisson distribution ``Poisson(rate)`` over counts (sampled by ``openreg.poisson``).

>>> import openreg
>>> from openreg.distributions import Poisson
>>> d = Poisson(openreg.tensor([2.0]))
>>> round(d.log_prob(openreg.tensor([3.0])).item(), 4), d.variance.tolist()
(-1.7123, [2.0])
"""
from __future__ import annotations

from typing import ClassVar

import openreg

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Mass ``rate^k exp(-rate) / k!`` at ``k = 0, 1, ...``."""

    arg_constraints: ClassVar[dict] = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape_of(self.rate, rate), validate_args=validate_args)

    @property
    def _natural_params(self):
        return (openreg.log(self.rate),)

    def _log_normalizer(self, x):
        return openreg.exp(x)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        with openreg.no_grad():
            return openreg.poisson(self.rate.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return openreg.xlogy(value, rate) - rate - openreg.lgamma(value + 1)
