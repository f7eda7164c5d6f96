"""``Relaxation``: the base of ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical``, a fixed transform of a
relaxed distribution in logit/log space at a ``temperature``, exposing its ``temperature``, ``probs`` and
``logits``.

>>> import openreg
>>> from openreg.distributions import RelaxedBernoulli
>>> d = RelaxedBernoulli(0.5, logits=openreg.tensor([0.0]))
>>> d.temperature, d.probs.tolist(), type(d.base_dist).__name__
(0.5, [0.5], 'LogitRelaxedBernoulli')
"""
from __future__ import annotations

from typing import ClassVar

from .transformed_distribution import TransformedDistribution
from .utils import _forwarded

__all__ = ["Relaxation"]


class Relaxation(TransformedDistribution):
    """``_transform()`` of ``_relaxed(temperature, probs, logits)`` (reparameterizable); subclasses set both."""

    _relaxed: ClassVar[type]
    _transform: ClassVar[type]
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args: bool | None = None) -> None:
        base = self._relaxed(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, self._transform(), validate_args=validate_args)

    temperature = _forwarded("base_dist.temperature")
    logits = _forwarded("base_dist.logits")
    probs = _forwarded("base_dist.probs")
