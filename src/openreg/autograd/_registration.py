"""Plugging autograd into the dispatcher: one generic kernel per op of the derivatives table at the
``Autograd`` alias key, the not-implemented fallback at every Autograd<Backend> key, and the kernels of
``inductor.accumulate_grad_``. ``register_all`` covers every defined op of the table and skips those done, so
the operator loader calls it after it defines operators (``_loader.finish``); entries added to the table later
register their kernel themselves (``derivatives.defderiv``).

>>> import openreg
>>> from openreg._dispatch import dispatcher
>>> from openreg._dispatch.keys import DispatchKey
>>> dispatcher.has_kernel("aten::mm", DispatchKey.Autograd)
True
"""
from __future__ import annotations

from .._dispatch import dispatcher
from ..library import Library
from .kernel import OpInfo, make_kernel, not_implemented_fallback

_libs: dict = {}
_registered: set = set()


def _lib(ns: str) -> Library:
    lib = _libs.get(ns)
    if lib is None:
        lib = _libs[ns] = Library(ns, "IMPL")
    return lib


def register_op(qualname: str) -> bool:
    """Register the autograd kernel of ``qualname`` when it is defined and has a formula."""
    from ..aten.derivatives import DERIVATIVES
    formula = DERIVATIVES.get(qualname)
    entry = dispatcher.find(qualname)
    if formula is None or entry is None or qualname in _registered:
        return False
    from .._dispatch.ops import lookup
    ns, _, name = qualname.partition("::")
    op = lookup(qualname)
    info = OpInfo(qualname, entry.schema, formula)
    _lib(ns).impl(name, make_kernel(info, op.redispatch_fn, entry), "Autograd", with_keyset=True)
    _registered.add(qualname)
    return True


def register_all() -> int:
    """Register every defined op of the table; returns how many were registered now."""
    from ..aten.derivatives import DERIVATIVES
    return sum(register_op(q) for q in list(DERIVATIVES))


_fallback = Library("_", "IMPL")
for _key in ("AutogradCPU", "AutogradPrivateUse1", "AutogradMeta", "AutogradOther"):
    _fallback.fallback(not_implemented_fallback, _key, with_keyset=True)
register_all()   # the operator loader calls it again once every operator is defined (``_loader.finish``)
