"""The tensor-model operators that are not records yet (factories) in one table.

``openreg.aten`` defines ``SCHEMAS`` with the other built-in schemas and then calls ``register`` to install
each module's CompositeExplicitAutograd (``EXPLICIT``), CompositeImplicitAutograd (``IMPLICIT``) and Meta
(``META``) kernels.

>>> import openreg
>>> "aten::zeros" in [f"aten::{s.split('(')[0]}" for s, _ in SCHEMAS]
True
"""
from __future__ import annotations

from . import factory_ops

MODULES = (factory_ops,)
SCHEMAS = [entry for module in MODULES for entry in module.SCHEMAS]


def register(lib) -> None:
    """Register every module's kernels on ``lib`` (an ``aten`` IMPL library kept alive by the caller)."""
    for module in MODULES:
        for name, fn in module.EXPLICIT.items():
            lib.impl(name, fn, "CompositeExplicitAutograd")
        for name, fn in module.IMPLICIT.items():
            lib.impl(name, fn, "CompositeImplicitAutograd")
        for name, fn in module.META.items():
            lib.impl(name, fn, "Meta")
