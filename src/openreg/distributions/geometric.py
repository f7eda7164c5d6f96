"""The geometric distribution ``Geometric(probs=None, logits=None)``: failures before the first success.

>>> import openreg
>>> from openreg.distributions import Geometric
>>> d = Geometric(openreg.tensor([0.25]))
>>> d.mean.tolist(), round(d.log_prob(openreg.tensor([2.0])).item(), 4)
([3.0], -1.9617)
"""
from __future__ import annotations

from typing import ClassVar

import openreg
from openreg.nn import functional as F

from . import constraints
from .distribution import Distribution
from .probs_or_logits import BinaryProbsOrLogits
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryProbsOrLogits, Distribution):
    """Mass ``(1 - p)^k p`` at ``k = 0, 1, ...`` with ``p = probs`` (or ``sigmoid(logits)``)."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._set_probs_or_logits(probs, logits)
        super().__init__(_batch_shape_of(self._param, probs if probs is not None else logits),
                         validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                             f"invalid values:\n{self.probs}")

    def expand(self, batch_shape, _instance=None):
        return self._expanded_probs_or_logits(Geometric, batch_shape, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return openreg.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = openreg.finfo(self.probs.dtype).tiny
        with openreg.no_grad():
            u = openreg.empty(shape, dtype=self.probs.dtype, device=self.probs.device).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.masked_fill((probs == 1) & (value == 0), 0.0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
