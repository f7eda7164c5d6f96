"""Kernels of the ``inductor`` namespace that are the same on every backend (views over pool memory).

``_mm_plus_mm`` has per-backend kernels (CPU in backends/cpu, the device in backends/privateuseone);
``accumulate_grad_`` is implemented by the autograd package.

>>> import openreg
>>> pool = openreg.zeros(16, dtype=openreg.uint8)
>>> openreg.ops.inductor._alloc_from_pool(pool, 8, openreg.float32, [2], [1]).storage_offset()
2
"""
from __future__ import annotations

from .views import check_in_bounds, make_view


def alloc_from_pool(self, offset_bytes: int, dtype, size, stride):
    if self.storage_offset() != 0:
        raise RuntimeError("_alloc_from_pool: expected the pool tensor to have storage_offset() == 0, got "
                           f"{self.storage_offset()}")
    if offset_bytes % dtype.itemsize != 0:
        raise RuntimeError(f"_alloc_from_pool: offset_bytes {offset_bytes} is not a multiple of the element size "
                           f"{dtype.itemsize} of {dtype}")
    from ..tensor import Size, Tensor
    offset = offset_bytes // dtype.itemsize
    out = Tensor._make(self._storage, Size(size), tuple(stride), offset, dtype)
    check_in_bounds("_alloc_from_pool", out, size, stride, offset)
    return out


def reinterpret_tensor(self, size, stride, offset_increment: int = 0):
    offset = self.storage_offset() + offset_increment
    check_in_bounds("_reinterpret_tensor", self, size, stride, offset)
    return make_view(self, size, stride, offset)


KERNELS = {"_alloc_from_pool": alloc_from_pool, "_reinterpret_tensor": reinterpret_tensor}
