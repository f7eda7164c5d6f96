"""Student's t distribution ``StudentT(df, loc=0., scale=1.)`` (reparameterizable: a normal over the square
root of a ``Chi2(df) / df`` draw).

>>> import openreg
>>> from openreg.distributions import StudentT
>>> d = StudentT(openreg.tensor([3.0]))
>>> round(d.log_prob(openreg.tensor([0.0])).item(), 4), d.variance.tolist()
(-1.0009, [3.0])
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _batch_shape_of, _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """``loc + scale * T`` with ``T`` a t variable of ``df`` degrees of freedom."""

    arg_constraints: ClassVar[dict] = {"df": constraints.positive, "loc": constraints.real,
                                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(_batch_shape_of(self.df, df, loc, scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale", "_chi2"))

    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2).masked_fill(df <= 2, 1.0)
        result = openreg.where(df > 2, finite, math.inf)
        return result.masked_fill(df <= 1, math.nan)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * openreg.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + openreg.lgamma(0.5 * self.df)
                - openreg.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * openreg.log1p(y ** 2.0 / self.df) - norm

    def entropy(self):
        df = self.df
        lbeta = openreg.lgamma(0.5 * df) + math.lgamma(0.5) - openreg.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (openreg.digamma(0.5 * (df + 1)) - openreg.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)
