"""Fisher-Snedecor's F distribution ``FisherSnedecor(df1, df2)``: a ratio of scaled chi-squared variables
(reparameterizable through two gammas).

>>> import openreg
>>> from openreg.distributions import FisherSnedecor
>>> d = FisherSnedecor(openreg.tensor([4.0]), openreg.tensor([6.0]))
>>> d.mean.tolist(), round(d.log_prob(openreg.tensor([1.0])).item(), 4)
([1.5], -0.8802)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _batch_shape_of, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """``(X1 / df1) / (X2 / df2)`` with ``Xi ~ Chi2(dfi)``."""

    arg_constraints: ClassVar[dict] = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(_batch_shape_of(self.df1, df1, df2), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(FisherSnedecor, batch_shape, _instance, ("df1", "df2", "_gamma1", "_gamma2"))

    @property
    def mean(self):
        df2 = self.df2.masked_fill(self.df2 <= 2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = ((self.df1 - 2) / self.df1).masked_fill(self.df1 <= 2, math.nan)
        return mode * self.df2 / (self.df2 + 2)

    @property
    def variance(self):
        df2 = self.df2.masked_fill(self.df2 <= 4, math.nan)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = openreg.finfo(self.df1.dtype).tiny
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        x2 = x2 + (x2.clamp(min=tiny) - x2).detach()
        y = x1 / x2
        return y + (y.clamp(min=tiny) - y).detach()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = openreg.lgamma(half1 + half2) - openreg.lgamma(half1) - openreg.lgamma(half2)
        t2 = half1 * ratio.log() + (half1 - 1) * openreg.log(value)
        t3 = (half1 + half2) * openreg.log1p(ratio * value)
        return t1 + t2 - t3
