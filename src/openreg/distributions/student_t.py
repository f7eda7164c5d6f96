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
import numbers
from typing import ClassVar

import openreg

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

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
        number = all(isinstance(v, numbers.Number) for v in (df, loc, scale))
        super().__init__(openreg.Size() if number else self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = openreg.Size(batch_shape)
        new.df, new.loc, new.scale = (v.expand(batch_shape) for v in (self.df, self.loc, self.scale))
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

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
