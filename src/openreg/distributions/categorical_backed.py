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

from .utils import _forwarded

__all__ = ["CategoricalBacked"]


class CategoricalBacked:
    """``probs``, ``logits``, ``param_shape`` (and ``_param``) of ``self._categorical``."""

    _param = _forwarded("_categorical._param")
    probs = _forwarded("_categorical.probs")
    logits = _forwarded("_categorical.logits")
    param_shape = _forwarded("_categorical.param_shape")
