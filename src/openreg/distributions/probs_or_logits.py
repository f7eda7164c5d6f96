"""``BinaryProbsOrLogits``: the parameterization shared by the Bernoulli-like distributions (``Bernoulli``,
``Binomial``, ``NegativeBinomial``, ``Geometric``, ``ContinuousBernoulli``, ``LogitRelaxedBernoulli``): exactly
one of ``probs`` and ``logits`` is given (``_param`` is the one given), the other is computed from it when first
read.

>>> import openreg
>>> from openreg.distributions import Bernoulli
>>> d = Bernoulli(logits=openreg.tensor([0.0]))
>>> "probs" in d.__dict__, d.probs.tolist(), "probs" in d.__dict__
(False, [0.5], True)
"""
from __future__ import annotations

from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["BinaryProbsOrLogits"]


class BinaryProbsOrLogits:
    """Mixin of a distribution parameterized by ``probs`` or ``logits = log(probs / (1 - probs))``."""

    def _set_probs_or_logits(self, probs, logits, *leading) -> list:
        """Stores the one given of ``probs`` and ``logits`` (``_param`` names it) broadcast with the ``leading``
        parameters, which are returned broadcast."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        *leading, param = broadcast_all(*leading, given)
        setattr(self, name, param)
        self._param = param
        return leading

    def _expanded_probs_or_logits(self, cls, batch_shape, instance, params=(), *, shared=()):
        """``expand``: ``Distribution._expanded`` of ``probs``/``logits`` (those computed) and ``params``."""
        new = self._expanded(cls, batch_shape, instance, ("probs", "logits", *params), shared=shared)
        new._param = new.__dict__["logits"] if "logits" in new.__dict__ else new.__dict__["probs"]
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)
