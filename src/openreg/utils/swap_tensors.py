"""``openreg.utils.swap_tensors``: exchange the contents of two tensor objects, each keeping its identity (what
``Module._apply`` uses to convert parameters in place of ``.data`` assignment).

>>> import openreg
>>> a, b = openreg.zeros(2), openreg.ones(3, dtype=openreg.int64)
>>> ida = id(a)
>>> openreg.utils.swap_tensors(a, b)
>>> id(a) == ida, a.tolist(), b.tolist()
(True, [1, 1, 1], [0.0, 0.0])
"""
from __future__ import annotations

import copyreg
import weakref

__all__ = ["swap_tensors"]


def _slots(cls) -> set:
    return {s for s in copyreg._slotnames(cls) if s not in ("__dict__", "__weakref__")}


def swap_tensors(t1, t2) -> None:
    """Swap everything ``t1`` and ``t2`` hold -- class, attributes, storage, shape, dtype, autograd state -- so
    that ``t1`` becomes what ``t2`` was and the other way round."""
    from ..tensor import Tensor
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError("swap_tensors(): expected two Tensors")
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    slots1, slots2 = _slots(t1.__class__), _slots(t2.__class__)
    if slots1 != slots2:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    missing = object()
    for name in slots1:
        v1, v2 = getattr(t1, name, missing), getattr(t2, name, missing)
        for obj, value in ((t1, v2), (t2, v1)):
            if value is missing:
                if hasattr(obj, name):
                    delattr(obj, name)
            else:
                setattr(obj, name, value)
