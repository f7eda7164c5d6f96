"""The layers every operator passes through unless it registers a kernel there (fallthrough fallbacks), and
the ``aten`` definition library.

The operators themselves are records (``openreg/operators/``): the loader defines them and registers their
kernels.
"""
from __future__ import annotations

from .._dispatch.dispatcher import fallthrough_kernel
from ..library import Library

aten_lib = Library("aten", "DEF")
_fallbacks = Library("_", "IMPL")

for _key in ("BackendSelect", "ADInplaceOrView", "AutogradOther", "PythonTLSSnapshot", "AutogradCPU",
             "AutogradPrivateUse1", "AutogradMeta", "AutocastCPU", "AutocastPrivateUse1"):
    _fallbacks.fallback(fallthrough_kernel, _key)
