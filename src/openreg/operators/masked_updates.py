"""Updates that place a source's elements: ``masked_scatter`` (consecutive source elements into the True
positions of a mask) and ``index_reduce`` (``prod``/``mean``/``amax``/``amin`` of source slices into the index
rows). Compositions of ``cumsum``/``gather``/``where`` and ``scatter_reduce``, so gradients and the device come
from those.

>>> import openreg
>>> openreg.zeros(2, 2).masked_scatter(openreg.tensor([True, False]), openreg.tensor([5.0, 6.0, 7.0])).tolist()
[[5.0, 0.0], [6.0, 0.0]]
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import broadcast_shapes, wrap_dim
from ._record import Op, register
from .linalg import _copy_into

CIA = "CompositeImplicitAutograd"


def _masked_scatter_values(self, mask, source, size):
    if mask._dtype is not _dt.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype.scalar_name}")
    if source._dtype is not self._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{self._dtype.scalar_name} and {source._dtype.scalar_name}")
    m = mask.expand(size)
    flat = m.reshape(-1)
    count = int(flat.sum().item())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    pos = (A.cumsum(flat.long(), 0) - 1).clamp(min=0)               # the source element each True takes
    src = source.reshape(-1)
    if src.numel() == 0:
        return m, self.expand(size)
    return m, src.gather(0, pos.clamp(max=src.numel() - 1)).reshape(size)


def _masked_scatter(self, mask, source):
    size = list(broadcast_shapes(tuple(self.shape), tuple(mask.shape)))
    m, vals = _masked_scatter_values(self, mask, source, size)
    return A.where__self(m, vals, self.expand(size))


def _masked_scatter_(self, mask, source):
    try:
        size = list(broadcast_shapes(tuple(self.shape), tuple(mask.shape)))
    except RuntimeError:
        size = None
    if size != list(self.shape):
        raise RuntimeError(f"masked_scatter_: the mask of shape {list(mask.shape)} does not broadcast to self of "
                           f"shape {list(self.shape)}")
    m, vals = _masked_scatter_values(self, mask, source, size)
    return A.copy_(self, A.where__self(m, vals, self))


masked_scatter = Op("masked_scatter", """
    masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor
    masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out) -> Tensor(a!)
    masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)
    """, kernels={"masked_scatter": {CIA: _masked_scatter}, "masked_scatter_": {CIA: _masked_scatter_},
                  "masked_scatter.out": {CIA: lambda self, mask, source, *, out: _copy_into(
                      "masked_scatter", _masked_scatter(self, mask, source), out)}},
    doc="""Copies consecutive elements of ``source`` into the positions where ``mask`` is True (row-major).

    >>> import openreg
    >>> x = openreg.zeros(3)
    >>> x.masked_scatter_(openreg.tensor([False, True, True]), openreg.tensor([1.0, 2.0])).tolist()
    [0.0, 1.0, 2.0]
    """)

_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _index_reduce(self, dim, index, source, reduce, *, include_self=True):
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index._dtype not in (_dt.int64, _dt.int32):
        raise TypeError("index_reduce_(): Expected dtype int32/int64 for index")
    if source._dtype is not self._dtype:
        raise RuntimeError(f"index_reduce_(): self ({self._dtype.scalar_name}) and source "
                           f"({source._dtype.scalar_name}) must have the same scalar type")
    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() == 0:
        return A.scatter_reduce__two(self, 0, index.reshape([]).long(), source.reshape([]), reduce,
                                     include_self=include_self)
    if source.dim() != self.dim() or (source.dim() and source.shape[d] != index.numel()):
        raise IndexError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                         f"({source.shape[d] if source.dim() else 1})")
    shape = [1] * source.dim()
    shape[d] = index.numel()
    idx = index.long().reshape(shape).expand(list(source.shape))
    return A.scatter_reduce__two(self, d, idx, source, reduce, include_self=include_self)


index_reduce = Op("index_reduce", """
    index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor
    index_reduce.out(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True, Tensor(a!) out) -> Tensor(a!)
    index_reduce_(Tensor(a!) self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor(a!)
    """, kernels={"index_reduce": {CIA: _index_reduce},
                  "index_reduce_": {CIA: lambda self, dim, index, source, reduce, *, include_self=True: A.copy_(
                      self, _index_reduce(self, dim, index, source, reduce, include_self=include_self))},
                  "index_reduce.out": {CIA: lambda self, dim, index, source, reduce, *, include_self=True, out:
                                       _copy_into("index_reduce", _index_reduce(self, dim, index, source, reduce,
                                                                                include_self=include_self), out)}},
    doc="""Reduces (``prod``, ``mean``, ``amax``, ``amin``) the slices of ``source`` into the rows ``index`` names
    along ``dim`` (with ``self``'s values unless ``include_self=False``).

    >>> import openreg, warnings
    >>> warnings.simplefilter("ignore")
    >>> openreg.ones(3).index_reduce(0, openreg.tensor([0, 0]), openreg.tensor([2.0, 3.0]), "prod").tolist()
    [6.0, 1.0, 1.0]
    """)

register(masked_scatter, index_reduce)
