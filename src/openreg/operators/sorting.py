"""Sorting: ``sort`` (stable on request; NaN sorts as the largest value), ``argsort`` and ``topk``.

Descending order is the ascending stable sort of the reversed dimension, read backwards, so equal elements keep
their original order in both directions (as PyTorch's stable sort). The gradient of the values scatters the output
gradient back to the positions the indices name.

>>> import openreg
>>> values, indices = openreg.ops.aten.sort(openreg.tensor([3.0, 1.0, 2.0]))
>>> values.tolist(), indices.tolist()
([1.0, 2.0, 3.0], [1, 2, 0])
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.float8_support import is_float8, refuse_float8
from ..aten.meta_rules import wrap_dim
from ._nn_arrays import like, values, xp_of
from ._record import Deriv, Op, register


def _order_key(x):
    """int64 keys whose order is NumPy's sort order of ``x`` (NaN last, ``-0.0 == 0.0``), in 32 bits, for
    float32/float16 and integers narrower than 64 bits that fit int32; None for other dtypes. A float's bits,
    read as a signed integer, order the non-negative values; the negative ones get their magnitude bits
    reversed (``b ^ 0x7fff...`` where the sign is set); every NaN gets one key above +inf."""
    if x.dtype == np.float32 or x.dtype == np.float16:
        ib, nan_bits = (np.int32, 0x7FC00000) if x.dtype == np.float32 else (np.int16, 0x7E00)
        v = x + x.dtype.type(0)                                   # -0.0 becomes +0.0
        b = v.view(ib)
        b = b ^ ((b >> (8 * b.itemsize - 1)) & ib(np.iinfo(ib).max))
        nan = np.isnan(v)
        if nan.any():
            b[nan] = nan_bits
        return b.astype(np.int64)
    if x.dtype.kind in "iub" and (x.dtype.itemsize < 4 or x.dtype == np.int32):
        return x.astype(np.int64)
    return None


def _packed_keys(x, axis: int, descending: bool):
    """For NumPy arrays of the dtypes ``_order_key`` takes: uint64 keys along the last axis holding the order key
    (reversed when ``descending``) in the high 32 bits and the position along ``axis`` in the low 32 bits, so
    keys are unique and a plain (unstable, SIMD) sort of them is the stable sort of ``x``: several times faster
    than NumPy's stable argsort of floats. None where that does not apply."""
    n = x.shape[axis]
    if n < 2 or n >= 1 << 31 or x.size < 256:
        return None
    key = _order_key(x)
    if key is None:
        return None
    if descending:
        key = ~key
    key = np.moveaxis(key, axis, -1)
    return (((key + (1 << 31)) << 32) | np.arange(n)).view(np.uint64)


def _argsort(xp, x, axis: int, descending: bool, k: int | None = None):
    """Positions of the stable sort of ``x`` along ``axis`` (equal elements in their original order, descending
    too), or of its first ``k``."""
    packed = _packed_keys(x, axis, descending) if xp is np and x.ndim else None
    if packed is not None:
        if k is not None and k < packed.shape[-1]:
            if k == 0:
                return np.moveaxis(np.empty(packed.shape[:-1] + (0,), dtype=np.int64), -1, axis)
            packed = np.partition(packed, k - 1, axis=-1)[..., :k]   # the k smallest keys, then in order
        return np.moveaxis(np.sort(packed, axis=-1).view(np.int64) & 0xFFFFFFFF, -1, axis)
    kind = {"kind": "stable"} if xp is np else {}     # CuPy's sort is always stable (and takes no kind=)
    if not descending:
        idx = xp.argsort(x, axis=axis, **kind)
    else:
        n = x.shape[axis]
        rev = xp.flip(x, axis=axis)
        idx = (n - 1) - xp.flip(xp.argsort(rev, axis=axis, **kind), axis=axis)
    return idx if k is None else xp.take(idx, xp.arange(k), axis=axis)


def _sorted(self, dim, descending):
    from .._array_bridge import wrap_array
    xp = xp_of(self)
    x = values(self)
    if x.ndim == 0:
        return self.clone(), wrap_array(xp.zeros((), dtype=xp.int64), _dt.int64, self.device)
    d = wrap_dim(dim, self.dim())
    idx = _argsort(xp, x, d, descending)
    raw = xp.take_along_axis(self._array(), idx, axis=d)          # storage representation, bf16 bits included
    return wrap_array(raw, self._dtype, self.device), wrap_array(idx.astype(xp.int64), _dt.int64, self.device)


def _check_sortable(op: str, self):
    if is_float8(self._dtype):
        refuse_float8(op, self._dtype)
    if self._dtype.is_complex:
        raise RuntimeError(f"{op}(): input tensor must be real, got {self._dtype}")


def _sort(self, dim=-1, descending=False):
    _check_sortable("sort", self)
    return _sorted(self, dim, descending)


def _sort_stable(self, *, stable=None, dim=-1, descending=False):
    return A.sort(self, dim, descending)     # every sort here is stable


def _meta_sort(self, *args, **kwargs):
    dim = kwargs.get("dim", args[0] if args else -1)
    wrap_dim(dim, max(self.dim(), 1))
    return like(self, self._size), like(self, self._size, _dt.int64)


_SortResult = namedtuple("sort", ["values", "indices"])
_TopkResult = namedtuple("topk", ["values", "indices"])


def _sort_fn(input, dim=-1, descending=False, stable=False, *, out=None):
    if out is not None:
        raise NotImplementedError("openreg: sort(..., out=) is not implemented")
    return _SortResult(*A.sort(input, dim, descending))


def _argsort_fn(input, dim=-1, descending=False, stable=False):
    return A.argsort(input, dim, descending)


def _topk_fn(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    if out is not None:
        raise NotImplementedError("openreg: topk(..., out=) is not implemented")
    return _TopkResult(*A.topk(input, k, dim, largest, sorted))


def _scatter_grad(g, a):
    """Gradient of values picked by ``a.result1`` along the op's dim: scatter ``g`` back."""
    if g[0] is None:
        return None
    idx = a.result1
    if a.self.dim() == 0:
        return g[0]
    dim = wrap_dim(a.dim, a.self.dim())
    zeros = A.zeros(list(a.self.shape), dtype=g[0].dtype, device=g[0].device)
    return A.scatter_add(zeros, dim, idx, g[0])


def _gather_jvp(t, a):
    if a.self.dim() == 0:
        return [t, None]
    return [A.gather(t, wrap_dim(a.dim, a.self.dim()), a.result1), None]


_SORT_DERIV = Deriv(save="self dim result1", self=_scatter_grad, jvp={"self": _gather_jvp})

sort = Op(
    "sort",
    """
    sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)  [core]
    sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)  [core]
    """,
    kernels={"sort": {"CompositeExplicitAutograd": _sort, "Meta": _meta_sort},
             "sort.stable": {"CompositeImplicitAutograd": _sort_stable}},
    derivatives={"sort": _SORT_DERIV},
    function=_sort_fn, method=_sort_fn,
    doc="""The elements sorted along ``dim`` and their original positions.

    >>> import openreg
    >>> import math
    >>> openreg.tensor([2.0, math.nan, 1.0]).sort().values.tolist()
    [1.0, 2.0, nan]
    """,
)


def _argsort_impl(self, dim=-1, descending=False):
    return _sort(self, dim, descending)[1]


def _argsort_stable(self, *, stable, dim=-1, descending=False):
    return _sort(self, dim, descending)[1]


argsort = Op(
    "argsort",
    """
    argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
    argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor
    """,
    kernels={"argsort": {"CompositeImplicitAutograd": _argsort_impl},
             "argsort.stable": {"CompositeImplicitAutograd": _argsort_stable}},
    function=_argsort_fn, method=_argsort_fn,
    doc="""The positions that sort ``self`` along ``dim``.

    >>> import openreg
    >>> openreg.tensor([3.0, 1.0, 3.0]).argsort(descending=True).tolist()
    [0, 2, 1]
    """,
)


def _check_topk(self, k, dim):
    d = wrap_dim(dim, max(self.dim(), 1))
    n = self._size[d] if self.dim() else 1
    if k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    return d


def _topk(self, k, dim=-1, largest=True, sorted=True):
    from .._array_bridge import wrap_array
    _check_sortable("topk", self)
    d = _check_topk(self, k, dim)
    if self.dim() == 0:
        return self.clone(), wrap_array(xp_of(self).zeros((), dtype="int64"), _dt.int64, self.device)
    xp = xp_of(self)
    idx = _argsort(xp, values(self), d, largest, k)
    raw = xp.take_along_axis(self._array(), idx, axis=d)
    return wrap_array(raw, self._dtype, self.device), wrap_array(idx.astype(xp.int64), _dt.int64, self.device)


def _meta_topk(self, k, dim=-1, largest=True, sorted=True):
    d = _check_topk(self, k, dim)
    size = list(self._size)
    if size:
        size[d] = k
    return like(self, size), like(self, size, _dt.int64)


topk = Op(
    "topk",
    """
    topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)  [core]
    """,
    kernels={"topk": {"CompositeExplicitAutograd": _topk, "Meta": _meta_topk}},
    derivatives={"topk": Deriv(save="self dim result1", self=_scatter_grad, jvp={"self": _gather_jvp})},
    function=_topk_fn, method=_topk_fn,
    doc="""The ``k`` largest (or smallest) elements along ``dim`` and their positions, in sorted order.

    >>> import openreg
    >>> openreg.tensor([1.0, 5.0, 3.0]).topk(2).indices.tolist()
    [1, 2]
    """,
)

register(sort, argsort, topk)
