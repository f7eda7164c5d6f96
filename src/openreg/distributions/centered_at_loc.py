"""``CenteredAtLoc``: the mixin of the distributions symmetric and unimodal about their ``loc`` (``Normal``,
``Laplace``, ``MultivariateNormal``, ``LowRankMultivariateNormal``, ``VonMises``): mean and mode are ``loc``.

>>> import openreg
>>> from openreg.distributions import VonMises
>>> d = VonMises(openreg.tensor([0.5]), openreg.tensor([2.0]))
>>> d.mean.tolist(), d.mode.tolist()
([0.5], [0.5])
"""
from __future__ import annotations

__all__ = ["CenteredAtLoc"]


class CenteredAtLoc:
    """Mixin: ``mean`` and ``mode`` are ``loc``."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
