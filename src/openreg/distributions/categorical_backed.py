"""``CategoricalBacked``: the mixin of the distributions built on an inner ``Categorical`` named
``_categorical`` (``OneHotCategorical``, ``Multinomial``, ``ExpRelaxedCategorical``), whose parameters are
that categorical's.

>>> import openreg
>>> from openreg.distributions import OneHotCategorical
>>> d = OneHotCategorical(probs=openreg.tensor([1.0, 3.0]))
>>> d.probs.tolist(), d.param_shape
([0.25, 0.75], openreg.Size([2]))
"""
from __future__ import annotations

import openreg

__all__ = ["CategoricalBacked"]


class CategoricalBacked:
    """``probs``, ``logits``, ``param_shape`` (and ``_param``) of ``self._categorical``."""

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self) -> openreg.Size:
        return self._categorical.param_shape
