"""Multi-tensor (``_foreach_*``) in-place updates used by the optimizers, as in PyTorch: ``_foreach_mul_.Scalar``
here, and the fast path of ``_foreach_add_.List`` (``composite_math``).

When every tensor of the lists is float32/float64 on one backend with matching sizes, the update runs
straight on the storage arrays (NumPy, or CuPy on the cuda driver) with the same arithmetic as the single-tensor
kernels (``a + b * alpha``, ``a * s`` in the tensor's dtype): one dispatch for the whole list. Otherwise each
tensor goes through the single-tensor op. The ADInplaceOrView layer bumps every written tensor's version.

>>> import openreg
>>> a = [openreg.ones(2), openreg.ones(3)]
>>> openreg.ops.aten._foreach_mul_.Scalar(a, 2.0)
>>> [t.tolist() for t in a]
[[2.0, 2.0], [2.0, 2.0, 2.0]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..tensor import Tensor

SCHEMAS = [("_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", ())]

_FAST_DTYPES = (_dt.float32, _dt.float64)
_libs: list = []


def _fast(self: list, other: list | None = None) -> bool:
    """Whether the list update can run on the arrays directly (same dtype, backend and sizes)."""
    for i, a in enumerate(self):
        if not isinstance(a, Tensor) or a._dtype not in _FAST_DTYPES or a._storage.device._type == "meta" or \
                not a.is_contiguous():
            return False
        if other is not None:
            b = other[i]
            if not isinstance(b, Tensor) or b._dtype is not a._dtype or b._ks != a._ks or \
                    b._storage.device != a._storage.device or b._size != a._size:
                return False
    return True


def add_list_fast(self: list, other: list, alpha) -> bool:
    """``a += b * alpha`` on the arrays when possible; returns False (nothing written) otherwise."""
    if not _fast(self, other) or isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        return False
    for a, b in zip(self, other):
        xp = a._storage._backend.array_module
        arr = a._array()
        src = b._array()
        if alpha != 1:
            src = src * xp.asarray(alpha, dtype=src.dtype)
        xp.add(arr, src, out=arr)
    return True


def foreach_mul_scalar_(self: list, scalar) -> None:
    """``a.mul_(scalar)`` for each tensor."""
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if _fast(self) and isinstance(scalar, (int, float)) and not isinstance(scalar, bool):
        for a in self:
            xp = a._storage._backend.array_module
            arr = a._array()
            xp.multiply(arr, xp.asarray(scalar, dtype=arr.dtype), out=arr)
        return
    from .._dispatch.ops import ops
    mul_ = ops.aten.mul_.Scalar
    for a in self:
        mul_(a, scalar)


def meta_foreach_mul_scalar_(self: list, scalar) -> None:
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def register(aten_lib) -> None:
    """Define the schemas on ``aten_lib`` and register the kernels (``aten/__init__``)."""
    from ..library import Library
    for schema, tags in SCHEMAS:
        aten_lib.define(schema, tags=tags)
    lib = Library("aten", "IMPL")
    lib.impl("_foreach_mul_.Scalar", foreach_mul_scalar_, "CompositeExplicitAutograd")
    lib.impl("_foreach_mul_.Scalar", meta_foreach_mul_scalar_, "Meta")
    _libs.append(lib)
