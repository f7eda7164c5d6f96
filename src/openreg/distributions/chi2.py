"""The chi-squared distribution ``Chi2(df)``: ``Gamma(df / 2, 1 / 2)``.

>>> import openreg
>>> from openreg.distributions import Chi2
>>> d = Chi2(openreg.tensor([4.0]))
>>> d.mean.tolist(), d.variance.tolist()
([4.0], [8.0])
"""
from __future__ import annotations

from typing import ClassVar

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Sum of ``df`` squared standard normals (``df`` may be fractional)."""

    arg_constraints: ClassVar[dict] = {"df": constraints.positive}

    def __init__(self, df, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(Chi2, _instance))

    @property
    def df(self):
        return self.concentration * 2
