"""The built-in operators: their definitions and the kernels that are the same for every backend.

Importing this module defines every schema in ``schemas.py`` under the ``aten`` and ``inductor``
namespaces through ``openreg.library`` and registers Meta kernels, CompositeExplicitAutograd kernels
(views, factories), BackendSelect and ADInplaceOrView kernels, and the default fallthrough fallbacks.
Backends (``openreg.backends.*``) then add their own kernels.
"""
# ruff: noqa: I001, RUF100  (import order is registration order)
from __future__ import annotations

from .._dispatch.dispatcher import fallthrough_kernel
from ..library import Library
from . import factories, inductor, views
from . import tensor_model
from .schemas import ATEN, INDUCTOR

aten_lib = Library("aten", "DEF")
inductor_lib = Library("inductor", "DEF")
_fallbacks = Library("_", "IMPL")
_qualnames: list[str] = []

for _lib, _table in ((aten_lib, ATEN + tensor_model.SCHEMAS), (inductor_lib, INDUCTOR)):
    for _schema, _tags in _table:
        _name = _lib.define(_schema, tags=_tags)
        _qualnames.append(f"{_lib.ns}::{_name}")

# Layers every operator passes through unless it registers a kernel there.
for _key in ("BackendSelect", "ADInplaceOrView", "AutogradOther", "PythonTLSSnapshot", "AutogradCPU",
             "AutogradPrivateUse1", "AutogradMeta", "AutocastCPU", "AutocastPrivateUse1"):
    _fallbacks.fallback(fallthrough_kernel, _key)


# Library.define registers each op's ADInplaceOrView (mutable schemas) and BackendSelect (factories) kernels.


def _meta_mm_plus_mm(a, b, c, d, out):
    from .inductor_checks import check_mm_plus_mm
    check_mm_plus_mm(a, b, c, d, out)
    return out


_composite = Library("aten", "IMPL")
_composite_inductor = Library("inductor", "IMPL")
for _q, _fn in {**views.KERNELS, **factories.KERNELS}.items():
    _composite.impl(_q, _fn, "CompositeExplicitAutograd")
for _q, _fn in inductor.KERNELS.items():
    _composite_inductor.impl(_q, _fn, "CompositeExplicitAutograd")

_meta = Library("aten", "IMPL")
_meta.impl("fill_.Scalar", lambda self, value: self, "Meta")
_meta.impl("zero_", lambda self: self, "Meta")
_meta_inductor = Library("inductor", "IMPL")
_meta_inductor.impl("_mm_plus_mm", _meta_mm_plus_mm, "Meta")
_tensor_model = Library("aten", "IMPL")
tensor_model.register(_tensor_model)

from . import random_ops as _random_ops  # noqa: E402
_random_ops.register(aten_lib)  # rand/randn/randint/bernoulli/...: schemas, Meta and composite kernels

from . import amp_ops as _amp_ops  # noqa: E402
_amp_ops.register(aten_lib)  # _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_ (GradScaler's ops)
