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


def _argsort(xp, x, axis: int, descending: bool):
    kind = {"kind": "stable"} if xp is np else {}     # CuPy's sort is always stable (and takes no kind=)
    if not descending:
        return xp.argsort(x, axis=axis, **kind)
    n = x.shape[axis]
    rev = xp.flip(x, axis=axis)
    return (n - 1) - xp.flip(xp.argsort(rev, axis=axis, **kind), axis=axis)


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
    idx = _argsort(xp, values(self), d, largest)
    idx = xp.take(idx, xp.arange(k), axis=d)
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
