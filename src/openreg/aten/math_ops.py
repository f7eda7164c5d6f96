"""The math part of the aten op set: the schema table and kernel registrations of its op modules.

``pointwise_ops``, ``reduction_ops`` and ``linalg_ops`` hold the schemas and the structured meta functions;
``composite_math`` the CompositeImplicitAutograd decompositions. ``aten/__init__.py`` defines ``SCHEMAS`` and
then calls ``register_math_kernels()``; backends supply compute functions (``backends/cpu/compute_math.py``).

>>> from openreg.aten.math_ops import SCHEMAS
>>> any(s.startswith("matmul(") for s, _ in SCHEMAS)
True
"""
from __future__ import annotations

from ..library import Library
from . import composite_math, linalg_ops, nonzero_ops, pointwise_ops, reduction_ops

SCHEMAS = [
    *pointwise_ops.SCHEMAS,
    *reduction_ops.SCHEMAS,
    *linalg_ops.SCHEMAS,
    *nonzero_ops.SCHEMAS,
    ("_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]", ()),
    ("_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()", ()),
]

_libs: list = []


def register_math_kernels() -> None:
    """Register the decompositions (CompositeImplicitAutograd), the Meta ``_foreach_add`` kernels and the
    ``nonzero``/``where(condition)`` kernels."""
    composite = Library("aten", "IMPL")
    for name, fn in composite_math.COMPOSITE_IMPLICIT.items():
        composite.impl(name, fn, "CompositeImplicitAutograd")
    meta = Library("aten", "IMPL")
    for name, fn in composite_math.FOREACH.items():
        meta.impl(name, fn, "Meta")
    for name, fn in nonzero_ops.IMPLICIT.items():
        composite.impl(name, fn, "CompositeImplicitAutograd")
    explicit = Library("aten", "IMPL")
    for name, fn in nonzero_ops.EXPLICIT.items():
        explicit.impl(name, fn, "CompositeExplicitAutograd")
    for name, fn in nonzero_ops.META.items():
        meta.impl(name, fn, "Meta")
    _libs.extend((composite, meta, explicit))
