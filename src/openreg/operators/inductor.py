"""The ``inductor`` namespace: views over pool memory (``_alloc_from_pool``, ``_reinterpret_tensor``), the fused
``_mm_plus_mm`` (its CPU and device kernels are in the backends; the checks every backend runs first are
``check_mm_plus_mm``) and ``accumulate_grad_`` (AccumulateGrad's update, from the autograd package).

>>> import openreg
>>> pool = openreg.zeros(16, dtype=openreg.uint8)
>>> openreg.ops.inductor._alloc_from_pool(pool, 8, openreg.float32, [2], [1]).storage_offset()
2
>>> a = openreg.ones(2, 3)
>>> openreg.ops.inductor._mm_plus_mm(a, openreg.ones(3, 2), a, openreg.ones(3, 2), openreg.empty(2, 2)).tolist()
[[6.0, 6.0], [6.0, 6.0]]
"""
from __future__ import annotations

from ..aten.meta_rules import common_device
from ..aten.views import check_in_bounds, make_view
from ..autograd.accumulate_grad import inductor_accumulate_grad_, meta_accumulate_grad_
from ._record import Op, register

CEA = "CompositeExplicitAutograd"


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


def check_mm_plus_mm(a, b, c, d, out) -> None:
    op = "_mm_plus_mm"
    common_device(op, a, b, c, d, out)
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d), ("out", out)):
        if t.dim() != 2:
            raise RuntimeError(f"{op}: expected '{name}' to be a 2-D matrix, got a {t.dim()}-D tensor of shape "
                               f"{list(t.shape)}")
    dtypes = {t.dtype for t in (a, b, c, d, out)}
    if len(dtypes) != 1:
        raise RuntimeError(f"{op}: expected all tensors to have the same dtype, got a: {a.dtype}, b: {b.dtype}, "
                           f"c: {c.dtype}, d: {d.dtype}, out: {out.dtype}")
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"{op}: only floating point dtypes are supported, got {a.dtype}")
    (m, k1), (k1b, n), (m2, k2), (k2b, n2) = a.shape, b.shape, c.shape, d.shape
    if k1 != k1b or k2 != k2b:
        raise RuntimeError(f"{op}: inner dimensions differ: a {list(a.shape)} @ b {list(b.shape)}, "
                           f"c {list(c.shape)} @ d {list(d.shape)}")
    if (m, n) != (m2, n2):
        raise RuntimeError(f"{op}: a@b has shape [{m}, {n}] but c@d has shape [{m2}, {n2}]")
    if tuple(out.shape) != (m, n):
        raise RuntimeError(f"{op}: out has shape {list(out.shape)}, expected [{m}, {n}]")
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
        if _overlaps(out, t):
            raise RuntimeError(f"{op}: out must not alias input '{name}' (unsupported operation: some elements "
                               f"of the input tensor and the written-to tensor refer to a single memory location)")


def _overlaps(x, y) -> bool:
    if x.is_meta or y.is_meta:  # meta storages have no memory to share
        return False
    if x._storage is not y._storage and x._storage.data_ptr() != y._storage.data_ptr():
        return False
    if x.numel() == 0 or y.numel() == 0:
        return False

    def extent(t):
        lo = t.storage_offset() * t.element_size()
        hi = lo + (sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1) * t.element_size()
        return lo, hi
    (a0, a1), (b0, b1) = extent(x), extent(y)
    return a0 < b1 and b0 < a1


def _meta_mm_plus_mm(a, b, c, d, out):
    check_mm_plus_mm(a, b, c, d, out)
    return out


# -- the records (no openreg.<fn> or Tensor methods: reached through openreg.ops.inductor) ------------------
def _inductor_op(name: str, schema: str, kernels: dict) -> Op:
    return Op(name, f"inductor::{schema}", kernels={name: kernels}, function=False, method=False)


mm_plus_mm_op = _inductor_op(
    "_mm_plus_mm", "_mm_plus_mm(Tensor a, Tensor b, Tensor c, Tensor d, Tensor(t!) out) -> Tensor(t!)",
    {"Meta": _meta_mm_plus_mm, "CPU": "openreg.backends.cpu.kernels:mm_plus_mm",
     "PrivateUse1": "openreg.backends.privateuseone.device_ops:mm_plus_mm"})
alloc_from_pool_op = _inductor_op(
    "_alloc_from_pool",
    "_alloc_from_pool(Tensor self, int offset_bytes, ScalarType dtype, int[] size, int[] stride) -> Tensor",
    {CEA: alloc_from_pool})
reinterpret_tensor_op = _inductor_op(
    "_reinterpret_tensor", "_reinterpret_tensor(Tensor self, int[] size, int[] stride, int offset_increment=0) -> Tensor",
    {CEA: reinterpret_tensor})
accumulate_grad_op = _inductor_op("accumulate_grad_", "accumulate_grad_(Tensor variable, Tensor new_grad) -> ()",
                                  {CEA: inductor_accumulate_grad_, "Meta": meta_accumulate_grad_})

register(mm_plus_mm_op, alloc_from_pool_op, reinterpret_tensor_op, accumulate_grad_op)

__all__ = ["check_mm_plus_mm"]
