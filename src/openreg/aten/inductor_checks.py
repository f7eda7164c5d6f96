"""Argument checks of ``inductor::_mm_plus_mm`` shared by every backend (run before any computation).

>>> import openreg
>>> a = openreg.ones(2, 3)
>>> openreg.ops.inductor._mm_plus_mm(a, openreg.ones(3, 2), a, openreg.ones(3, 2), openreg.empty(2, 2)).tolist()
[[6.0, 6.0], [6.0, 6.0]]
"""
from __future__ import annotations

from .meta_rules import common_device


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
    item = x.element_size()

    def extent(t):
        lo = t.storage_offset() * t.element_size()
        hi = lo + (sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1) * t.element_size()
        return lo, hi
    (a0, a1), (b0, b1) = extent(x), extent(y)
    del item
    return a0 < b1 and b0 < a1
