"""Installing tensor methods and Python operators, each a thin call of an ``openreg.ops`` overload.

The methods of operator records are part of the Tensor class itself (``openreg/operators/``); the methods of
operators that are not records yet live in per-concept modules that call ``install({...})`` at import:
``_tensor_methods_views.py`` (views, copies, conversions) and a few others.

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
