"""The built-in operators: their definitions and the kernels that are the same for every backend.

Importing this module defines every schema in ``schemas.py`` and ``tensor_model.py`` under the ``aten``
namespace through ``openreg.library`` and registers CompositeExplicitAutograd kernels (factories), BackendSelect and ADInplaceOrView kernels, and the default fallthrough fallbacks.
Backends (``openreg.backends.*``) then add their own kernels.
"""
# ruff: noqa: I001, RUF100  (import order is registration order)
from __future__ import annotations

from .._dispatch.dispatcher import fallthrough_kernel
from ..library import Library
from . import factories
from . import tensor_model
from .schemas import ATEN

aten_lib = Library("aten", "DEF")
_fallbacks = Library("_", "IMPL")
_qualnames: list[str] = []

for _schema, _tags in ATEN + tensor_model.SCHEMAS:
    _qualnames.append(f"aten::{aten_lib.define(_schema, tags=_tags)}")

# Layers every operator passes through unless it registers a kernel there.
for _key in ("BackendSelect", "ADInplaceOrView", "AutogradOther", "PythonTLSSnapshot", "AutogradCPU",
             "AutogradPrivateUse1", "AutogradMeta", "AutocastCPU", "AutocastPrivateUse1"):
    _fallbacks.fallback(fallthrough_kernel, _key)


# Library.define registers each op's ADInplaceOrView (mutable schemas) and BackendSelect (factories) kernels.


_composite = Library("aten", "IMPL")
for _q, _fn in factories.KERNELS.items():
    _composite.impl(_q, _fn, "CompositeExplicitAutograd")
_tensor_model = Library("aten", "IMPL")
tensor_model.register(_tensor_model)
