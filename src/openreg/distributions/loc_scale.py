"""``LocScaleFamily``: the base of the location-scale families with density ``f((x - loc) / scale) / scale``
on the real line (``Normal``, ``Cauchy``, ``Laplace``): their parameters, constraints, support, batch shape,
and mode (``loc``).

>>> from openreg.distributions import Laplace
>>> d = Laplace(1.0, 2.0)
>>> d.batch_shape, d.mode.item(), d.expand((3,)).loc.tolist()
(openreg.Size([]), 1.0, [1.0, 1.0, 1.0])
"""
from __future__ import annotations

from typing import ClassVar

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["LocScaleFamily"]


class LocScaleFamily(Distribution):
    """``loc`` (real) and ``scale`` (positive) broadcast together; reparameterizable."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape_of(self.loc, loc, scale), validate_args=validate_args)

    @property
    def mode(self):
        return self.loc