"""The tensor-model operators (views, splits/joins, indexing, metadata, copies, factories) in one table.

``openreg.aten`` defines ``SCHEMAS`` with the other built-in schemas and then calls ``register`` to install
each module's CompositeExplicitAutograd (``EXPLICIT``), CompositeImplicitAutograd (``IMPLICIT``) and Meta
(``META``) kernels.

>>> import openreg
>>> "aten::reshape" in [f"aten::{s.split('(')[0]}" for s, _ in SCHEMAS]
True
"""
from __future__ import annotations

from . import copy_ops, factory_ops, gather_ops, index_ops, metadata_ops, shape_ops, view_ops

MODULES = (view_ops, shape_ops, index_ops, gather_ops, metadata_ops, copy_ops, factory_ops)
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
