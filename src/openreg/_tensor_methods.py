"""Installing tensor methods and Python operators, each a thin call of an ``openreg.ops`` overload.

The methods live in per-concept modules that call ``install({...})`` at import, after the operators are
defined: ``_tensor_methods_math.py`` (arithmetic, comparisons, reductions, matrix products, operators)
and ``_tensor_methods_views.py`` (views, copies, conversions). Overloads are looked up once in those
modules so that a method call costs one Python call plus the dispatch.

>>> import openreg
>>> (openreg.tensor([1.0, -2.0]) + 1).abs().tolist()
[2.0, 1.0]
"""
from __future__ import annotations

from .tensor import Tensor


def install(methods: dict | None = None) -> None:
    """Attach methods to Tensor (each concept module installs its own)."""
    for name, fn in (methods or {}).items():
        setattr(Tensor, name, fn)
