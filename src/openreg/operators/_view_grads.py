"""Gradient formulas shared by the view and shape families (written with tensor ops, so differentiable again).

>>> import openreg
>>> inverse_perm([2, 0, 1], 3)
[1, 2, 0]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ._formulas import zeros


def inverse_perm(dims, ndim: int) -> list:
    dims = [d % ndim for d in dims]
    inv = [0] * ndim
    for i, d in enumerate(dims):
        inv[d] = i
    return inv


def sum_to(g, size):
    from ..autograd._ops import sum_to as reduce_to
    return reduce_to(g, size)


def scatter_into_zeros(view_fn):
    """Backward of a view that selects part of its input: zeros with the slice set to the gradient."""
    def bwd(g, a):
        z = zeros(a.size_of("self"), g)
        view_fn(z, a).copy_(g)
        return z
    return bwd


def _overlaps(size, stride) -> bool:
    dims = sorted((st, sz) for sz, st in zip(size, stride) if sz != 1)
    extent = 0
    for st, sz in dims:
        if sz == 0:
            return False
        if st <= extent:
            return True
        extent += st * (sz - 1)
    return False


def _storage_index(size, stride, offset: int, device):
    """Int64 tensor of ``size`` holding each element's storage index."""
    import numpy as np
    idx = np.full(tuple(size), offset, dtype=np.int64)
    for d, (sz, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = sz
        idx = idx + (np.arange(sz, dtype=np.int64) * st).reshape(shape)
    from ..tensor_from_data import tensor
    return tensor(idx.reshape(-1).tolist(), dtype=None, device=device).view(tuple(size)) if idx.size else \
        tensor([], device=device)


def as_strided_grad(g, a):
    """Gradient of ``as_strided``: scatter-add the output gradient into the storage positions it came from,
    then read them back in the input's geometry (divided by the aliasing count when the input overlaps)."""
    from ..autograd._ops import zeros_with_geometry
    in_size, in_stride, in_off = a.size_of("self"), a.stride_of("self"), a.meta_of("self")[4]
    out_off = a.storage_offset if a.storage_offset is not None else in_off
    out_size, out_stride = tuple(a.size), tuple(a.stride)
    if not _overlaps(out_size, out_stride) and not _overlaps(in_size, in_stride) and out_off >= in_off:
        buf = zeros_with_geometry(g, in_size, in_stride)
        A.as_strided(buf, out_size, out_stride, out_off - in_off).copy_(g)
        return buf
    base = min(in_off, out_off)

    def extent(size, stride, off):
        return off - base + sum((sz - 1) * st for sz, st in zip(size, stride) if sz > 0) + 1
    n = max(extent(in_size, in_stride, in_off), extent(out_size, out_stride, out_off))
    flat = zeros((n,), g)
    out_idx = _storage_index(out_size, out_stride, out_off - base, g.device)
    flat = A.index_put(flat, [out_idx.reshape(-1)], g.reshape(-1), True)
    in_idx = _storage_index(in_size, in_stride, in_off - base, g.device)
    res = A.index__Tensor(flat, [in_idx.reshape(-1)]).reshape(in_size)
    if _overlaps(in_size, in_stride):
        ones = zeros((in_idx.numel(),), g) + 1
        count = A.index_put(zeros((n,), g), [in_idx.reshape(-1)], ones, True)
        res = res / A.index__Tensor(count, [in_idx.reshape(-1)]).reshape(in_size)
    return res


def fill_missing(g: list, a) -> list:
    """The outputs' gradients, with a zero for each missing one: one zero element per dtype/device, expanded to
    the output's size (a view, nothing allocated or filled: ``cat``/``stack`` only read it)."""
    out, zero = [], {}
    for x, m in zip(g, a.out_meta):
        if x is None:
            z = zero.get(m[1])
            if z is None:
                z = zero[m[1]] = zeros((), _proto(g)).to(m[1])
            x = z.expand(tuple(m[0]))
        out.append(x)
    return out


def _proto(g: list):
    return next(x for x in g if x is not None)


def cat_grad(g, a):
    out, off = [], 0
    dim = a.dim
    for m in a.meta_of("tensors"):
        size = m[0]
        if len(size) == 1 and size[0] == 0 and g.dim() != 1:
            out.append(None)
            continue
        d = dim % g.dim()
        out.append(g.narrow(d, off, size[d]))
        off += size[d]
    return out


def list_tangents(ts: list, a, name: str) -> list:
    return [t if t is not None else zeros(m[0], _proto(ts)).to(m[1]) for t, m in zip(ts, a.meta_of(name))]


__all__ = ["as_strided_grad", "cat_grad", "fill_missing", "inverse_perm", "list_tangents", "scatter_into_zeros",
           "sum_to"]
