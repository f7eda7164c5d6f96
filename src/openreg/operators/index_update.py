"""Writing at indices: ``index_add``, ``index_copy``, ``index_fill`` (along one dim at a 1-d index),
``scatter`` (values or ``src`` at a gather-style index, optionally ``reduce='add'|'multiply'``),
``scatter_reduce`` (``sum``/``prod``/``mean``/``amax``/``amin``, ``include_self``), ``take`` (flat gather) and
``fill_diagonal_``.

Each in-place overload is one CompositeExplicitAutograd kernel written against the array module of ``self``
(NumPy, or CuPy on the cuda driver: repeated indices accumulate with ``add.at``, and the other reductions are
applied in rounds that never repeat an index, since CuPy has no ``multiply.at``), with a Meta kernel that
checks; the functional overloads clone and call them.

>>> import openreg
>>> x = openreg.zeros(3, 2)
>>> x.index_add(0, openreg.tensor([0, 0, 2]), openreg.ones(3, 2)).tolist()
[[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
>>> openreg.tensor([5.0, 7.0]).scatter_reduce(0, openreg.tensor([0, 0]), openreg.tensor([2.0, 9.0]), "amax").tolist()
[9.0, 7.0]
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_compute, from_float32, to_float32
from .._dispatch.ops import A, lookup
from ..aten.meta_rules import fmt_shape, wrap_dim
from ..aten.views import fresh
from ..scalar_conversion import check_scalar_fits
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._formulas import zeros
from ._record import Deriv, Op, register
from ._scatter import accumulate_at
from .gather import _check_bounds, _check_gather_args, _flat_index, _full_index, _on, _xp

CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


# -- array helpers ------------------------------------------------------------------------------------------
def _work(xp, arr, dtype):
    """``arr`` as values to compute with (narrow floats widened to float32)."""
    return to_float32(arr, dtype) if dtype.is_narrow_float else arr


def _store(dst, values, dtype) -> None:
    dst[...] = from_float32(values, dtype) if dtype.is_narrow_float else values.astype(dst.dtype, copy=False)


def _along(xp, idx, dim: int, shape):
    """The gather-style index addressing ``dst[..., idx[i], ...]`` for every element of a ``shape`` source."""
    view = [1] * len(shape)
    view[dim] = idx.shape[0]
    return _full_index(xp, xp.broadcast_to(idx.reshape(view), tuple(shape)), dim)


def _reduce_at(xp, dst, key, vals, combine) -> None:
    """``dst[key] = combine(dst[key], vals)`` one occurrence of each index at a time (ranked duplicates)."""
    key = tuple(xp.broadcast_to(k, vals.shape).reshape(-1) for k in key)
    vals = vals.reshape(-1)
    if vals.size == 0:
        return
    flat = xp.ravel_multi_index(key, dst.shape) if dst.ndim else xp.zeros(vals.shape, xp.int64)
    order = xp.argsort(flat)
    flat, vals = flat[order], vals[order]
    rank = xp.arange(flat.size) - xp.searchsorted(flat, flat, side="left")
    work = xp.ascontiguousarray(dst).reshape(-1)
    for r in range(int(rank.max()) + 1):
        pick = rank == r
        at = flat[pick]
        work[at] = combine(work[at], vals[pick])
    dst[...] = work.reshape(dst.shape)


def _index_vector(op: str, index: Tensor, xp, like: Tensor):
    return _on(index, like, xp).reshape(-1).astype(xp.int64, copy=False)


# -- index_add / index_copy / index_fill -------------------------------------------------------------------
def _check_index_source(op: str, self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    d = wrap_dim(dim, max(self.dim(), 1))
    if source.dim() and self.dim() and index.numel() != source.shape[d]:
        raise (RuntimeError if op == "index_add_" else IndexError)(
            f"{op}(): Number of indices ({index.numel()}) should be equal to source.size(dim)"
            + (f": ({source.shape[d]}), for dim: {d}" if op == "index_add_" else f" ({source.shape[d]})"))
    if self.dim() and source.dim() and (source.dim() != self.dim() or any(
            a != b for k, (a, b) in enumerate(zip(self.shape, source.shape)) if k != d)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {fmt_shape(self.shape)} source.shape = {fmt_shape(source.shape)}")
    return d


def _check_index_add(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{index._dtype.scalar_name} and size: {fmt_shape(index.shape)}")
    if index._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {index._dtype.scalar_name}")
    if source._dtype is not self._dtype:
        raise RuntimeError(f"index_add_(): self ({self._dtype.scalar_name}) and source ({source._dtype.scalar_name}) "
                           f"must have the same scalar type")
    return _check_index_source("index_add_", self, dim, index, source)


def _check_index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index._dtype.scalar_name}")
    if source._dtype is not self._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{self._dtype.scalar_name} and (source) {source._dtype.scalar_name}")
    return _check_index_source("index_copy_", self, dim, index, source)


def _nonnegative_in_bounds(idx, size: int, dim: int, prefix: str = "") -> None:
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bool(bad.any()):
            error = IndexError if prefix else RuntimeError
            raise error(f"{prefix}index {int(idx[bad][0])} is out of bounds for dimension {dim} with size {size}")


def _index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    d = _check_index_add(self, dim, index, source)
    xp = _xp(self)
    dst = self._array().reshape(self._size or (1,))
    idx = _index_vector("index_add_", index, xp, self)
    _nonnegative_in_bounds(idx, dst.shape[d], d)
    src = _work(xp, _on(source, self, xp), self._dtype).reshape(dst.shape[:d] + (idx.size,) + dst.shape[d + 1:])
    if alpha != 1:
        src = src * alpha
    work = _work(xp, dst, self._dtype)
    dtype = _dt.float32 if self._dtype.is_narrow_float else self._dtype
    if xp is np and d == 0:    # whole rows: accumulate_at's row path (~10x add.at with a full index)
        accumulate_at(xp, work, idx, src, dtype)
    elif xp is np and work.flags.c_contiguous:    # one 1-d add.at at the flat positions, as scatter_add's
        view = [1] * src.ndim
        view[d] = idx.size
        flat = _flat_index(xp, np.broadcast_to(idx.reshape(view), src.shape), d, work.shape)
        accumulate_at(xp, work.reshape(-1), flat.reshape(-1), src.reshape(-1), dtype)
    else:
        accumulate_at(xp, work, _along(xp, idx, d, src.shape), src, dtype)
    if work is not dst:
        _store(dst, work, self._dtype)
    return self


def _meta_index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    _check_index_add(self, dim, index, source)
    return self


def _index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    return fresh(A.index_add_(A.clone(self), dim, index, source, alpha=alpha))


def _into_out(result: Tensor, out: Tensor, op: str = "") -> Tensor:
    """``out=``: the result computed first and checked against ``out`` (a failing call leaves ``out`` as it
    was), then written."""
    from ..aten.meta_rules import check_out_cast
    check_out_cast(op, result._dtype, out._dtype)
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    return A.copy_(A.resize_(out, list(result.shape)), result)


def _index_add_out(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1, out: Tensor) -> Tensor:
    return _into_out(A.index_add(self, dim, index, source, alpha=alpha), out, "index_add")


def _index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d = _check_index_copy(self, dim, index, source)
    xp = _xp(self)
    dst = self._array().reshape(self._size or (1,))
    idx = _index_vector("index_copy_", index, xp, self)
    _nonnegative_in_bounds(idx, dst.shape[d], d, "index_copy_(): ")
    src = _on(source, self, xp).reshape(dst.shape[:d] + (idx.size,) + dst.shape[d + 1:])
    dst[(slice(None),) * d + (idx,)] = src
    return self


def _meta_index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    _check_index_copy(self, dim, index, source)
    return self


def _index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return fresh(A.index_copy_(A.clone(self), dim, index, source))


def _index_copy_out(self: Tensor, dim: int, index: Tensor, source: Tensor, *, out: Tensor) -> Tensor:
    return _into_out(A.index_copy(self, dim, index, source), out, "index_copy")


def _check_index_fill(self: Tensor, dim: int, index: Tensor, value) -> int:
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index._dtype is not _dt.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    return wrap_dim(dim, max(self.dim(), 1))


def _index_fill_(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    d = _check_index_fill(self, dim, index, value)
    value = value.item() if isinstance(value, Tensor) else value
    check_scalar_fits(value, self._dtype)
    xp = _xp(self)
    dst = self._array().reshape(self._size or (1,))
    idx = _index_vector("index_fill_", index, xp, self)
    _check_bounds(idx, dst.shape[d], d, "index_fill_")
    dst[(slice(None),) * d + (idx % max(dst.shape[d], 1),)] = from_compute(xp.asarray(value), self._dtype)
    return self


def _meta_index_fill_(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    _check_index_fill(self, dim, index, value)
    return self


def _index_fill(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    return fresh(A.index_fill___int_Scalar(A.clone(self), dim, index, value))


def _index_fill_tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    _check_index_fill(self, dim, index, value)
    return fresh(A.index_fill___int_Tensor(A.clone(self), dim, index, value))


# -- scatter / scatter_reduce ------------------------------------------------------------------------------
def _scatter_target(self: Tensor, dim: int, index: Tensor, src: Tensor | None):
    """(dst array, key, values-shape slicer) of a gather-style write into ``self``."""
    d = _check_gather_args("scatter", self, dim, index, src)
    if src is not None and src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    xp = _xp(self)
    dst = self._array().reshape(self._size or (1,))
    idx = _on(index, self, xp).reshape(index._size or (1,))
    _check_bounds(idx, dst.shape[d], d, "scatter")
    return xp, dst, _full_index(xp, idx % max(dst.shape[d], 1), d), idx.shape


def _src_values(xp, src: Tensor, like: Tensor, shape):
    vals = _on(src, like, xp).reshape(src._size or (1,))
    return vals[tuple(slice(0, s) for s in shape)]


_COMBINE = {"sum": lambda xp: xp.add, "add": lambda xp: xp.add, "prod": lambda xp: xp.multiply,
            "multiply": lambda xp: xp.multiply, "amax": lambda xp: xp.maximum, "amin": lambda xp: xp.minimum}


def _scatter_into(self: Tensor, dim: int, index: Tensor, src: Tensor | None, value, reduce: str | None) -> Tensor:
    xp, dst, key, shape = _scatter_target(self, dim, index, src)
    if src is None:
        check_scalar_fits(value, self._dtype)
        vals = xp.full(shape, value, dtype=_work(xp, dst[:0], self._dtype).dtype)
    else:
        vals = _work(xp, _src_values(xp, src, self, shape), self._dtype)
    if reduce is None:
        dst[key] = from_compute(vals, self._dtype) if src is None else _src_values(xp, src, self, shape)
        return self
    work = _work(xp, dst, self._dtype).copy()
    _reduce_at(xp, work, key, vals, _COMBINE[reduce](xp))
    _store(dst, work, self._dtype)
    return self


def _check_reduce(reduce: str) -> None:
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")


def _scatter_src_(self, dim, index, src):
    return _scatter_into(self, dim, index, src, None, None)


def _scatter_value_(self, dim, index, value):
    return _scatter_into(self, dim, index, None, value, None)


def _scatter_reduce_(self, dim, index, src, *, reduce):
    _check_reduce(reduce)
    return _scatter_into(self, dim, index, src, None, reduce)


def _scatter_value_reduce_(self, dim, index, value, *, reduce):
    _check_reduce(reduce)
    return _scatter_into(self, dim, index, None, value, reduce)


def _meta_scatter(self, dim, index, src_or_value, *, reduce=None):
    if reduce is not None:
        _check_reduce(reduce)
    _check_gather_args("scatter", self, dim, index, src_or_value if isinstance(src_or_value, Tensor) else None)
    return self


def _check_scatter_reduce(reduce: str) -> None:
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")


def _scatter_reduce_two_(self, dim, index, src, reduce, *, include_self=True):
    _check_scatter_reduce(reduce)
    xp, dst, key, shape = _scatter_target(self, dim, index, src)
    vals = _work(xp, _src_values(xp, src, self, shape), self._dtype)
    work = _work(xp, dst, self._dtype).copy()
    floating = self._dtype.is_floating_point or self._dtype.is_complex
    if reduce == "mean":
        counts = xp.ones(work.shape, xp.int64) if include_self else xp.zeros(work.shape, xp.int64)
        if not include_self:
            work[key] = 0
        accumulate_at(xp, work, key, vals, _dt.float32 if self._dtype.is_narrow_float else self._dtype)
        accumulate_at(xp, counts, key, xp.ones(vals.shape, xp.int64), _dt.int64)
        counts = xp.maximum(counts, 1)
        work = work / counts if floating else xp.floor_divide(work, counts)
    else:
        if not include_self:   # the targets start from the reduction's identity instead of their own values
            work[key] = _identity(xp, reduce, work.dtype)
        _reduce_at(xp, work, key, vals, _COMBINE[reduce](xp))
    _store(dst, work, self._dtype)
    return self


def _identity(xp, reduce: str, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -float("inf") if reduce == "amax" else float("inf")
    if dtype.kind == "b":
        return reduce == "amin"
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _meta_scatter_reduce_two_(self, dim, index, src, reduce, *, include_self=True):
    _check_scatter_reduce(reduce)
    _check_gather_args("scatter", self, dim, index, src)
    return self


def _functional(inplace_name: str):
    def functional(self, *args, **kwargs):
        return fresh(getattr(A, inplace_name)(A.clone(self), *args, **kwargs))
    return functional


def _scatter_reduce_backward(g, a, which: str):
    """PyTorch's scatter_reduce gradients: sum and mean spread ``g``; prod divides the product by each factor
    (a single zero factor gets the product of the others); amax/amin share ``g`` among the values equal to the
    result."""
    self, index, src, dim, reduce = a.self, a.index, a.src, a.dim, a.reduce
    # recomputed rather than saved: the functional overload's result is a fresh clone the in-place kernel wrote
    result = self.scatter_reduce(dim, index, src, reduce, include_self=a.include_self)
    scatter_add = lookup("aten::scatter_add")
    if reduce == "sum":
        grad_self, grad_src = g, g.gather(dim, index)
    elif reduce == "mean":
        n = (g * 0 + 1) if a.include_self else g * 0
        n = scatter_add(n, dim, index, (src * 0 + 1))
        n = n.masked_fill(n == 0, 1)
        grad_self = g / n
        grad_src = grad_self.gather(dim, index)
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, "prod", include_self=a.include_self)
        grad_self = g * masked_self_result / masked_self
        src_zero = src == 0
        zeros_here = scatter_add(self * 0, dim, index, src_zero.to(self.dtype)).gather(dim, index)
        single_zero = src_zero & (zeros_here == 1)
        masked_src = src.masked_fill(single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, "prod", include_self=a.include_self)
        grad_src = A.where__self(single_zero, (g * masked_src_result).gather(dim, index),
                                 (g * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    else:
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        count = scatter_add(self_is_result, dim, index, src_is_result)   # as PyTorch, whatever include_self
        share = g / count.masked_fill(count == 0, 1)
        grad_self = self_is_result * share
        grad_src = src_is_result * share.gather(dim, index)
    if not a.include_self:
        grad_self = grad_self.scatter(dim, index, 0)
    return grad_self if which == "self" else grad_src


def _scatter_reduce_jvp(t, a, which: str):
    """Forward mode for the linear reductions (sum, mean), as in PyTorch."""
    if a.reduce not in ("sum", "mean"):
        raise NotImplementedError(f"Forward AD for scatter_reduce with reduce={a.reduce} is not implemented "
                                  f"(only sum and mean)")
    self_t = t if which == "self" else zeros(a.size_of("self"), t)
    src_t = t if which == "src" else zeros(a.size_of("src"), t)
    return self_t.scatter_reduce(a.dim, a.index, src_t, a.reduce, include_self=a.include_self)


# -- take, fill_diagonal_ -----------------------------------------------------------------------------------
def _take(self: Tensor, index: Tensor) -> Tensor:
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype.scalar_name}")
    xp = _xp(self)
    flat = xp.ascontiguousarray(self._array()).reshape(-1)
    idx = _on(index, self, xp).reshape(-1)
    n = flat.size
    bad = (idx >= n) | (idx < -n)
    if idx.size and bool(bad.any()):
        raise IndexError(f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} elements.")
    from .._array_bridge import wrap_array
    return wrap_array(flat[idx % max(n, 1)].reshape(tuple(index.shape)), self._dtype, self.device)


def _meta_take(self: Tensor, index: Tensor) -> Tensor:
    from ..aten.structured import empty_tensor
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype.scalar_name}")
    return empty_tensor(index._size, self._dtype, self.device)


def _take_out(self: Tensor, index: Tensor, *, out: Tensor) -> Tensor:
    return _into_out(A.take(self, index), out, "take")


def _take_grad(g, a):
    n = 1
    for s in a.size_of("self"):
        n *= s
    flat = (a.index.reshape(-1) + n) % max(n, 1)
    return lookup("aten::scatter_add")(zeros((n,), g), 0, flat, g.reshape(-1)).reshape(a.size_of("self"))


def _diagonal_positions(self: Tensor, wrap: bool):
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    rows = list(range(n))
    if self.dim() == 2 and wrap and self.shape[0] > self.shape[1] + 1:
        step = self.shape[1] + 1   # PyTorch's wrap restarts one row below the end of each block
        rows = [r for r in range(self.shape[0]) if (r % step) < self.shape[1]]
        return rows, [r % step for r in rows]
    return rows, rows


def _fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    rows, cols = _diagonal_positions(self, wrap)
    check_scalar_fits(fill_value, self._dtype)
    xp = _xp(self)
    dst = self._array()
    r = xp.asarray(rows, dtype=xp.int64)
    key = (r, xp.asarray(cols, dtype=xp.int64)) if self.dim() == 2 else (r,) * self.dim()
    dst[key] = from_compute(xp.asarray(fill_value), self._dtype)
    return self


def _meta_fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    _diagonal_positions(self, wrap)
    return self


# -- the records --------------------------------------------------------------------------------------------
index_add = Op(
    "index_add",
    """
    index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
    index_add.out(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
    index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)
    """,
    kernels={"index_add_": {CEA: _index_add_, "Meta": _meta_index_add_},
             "index_add": {CIA: _index_add}, "index_add.out": {CIA: _index_add_out}},
    derivatives={"index_add": Deriv(
        save="index source", self=lambda g, a: g,
        source=lambda g, a: (g.index_select(a.dim, a.index) * a.alpha).reshape(a.size_of("source")),
        jvp={"self": lambda t, a: t,
             "source": lambda t, a: lookup("aten::index_add")(zeros(a.size_of("self"), t), a.dim, a.index,
                                                               t, alpha=a.alpha)})},
    doc="""``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeated indices accumulate).

    >>> import openreg
    >>> openreg.index_add(openreg.zeros(3), 0, openreg.tensor([2, 2]), openreg.ones(2)).tolist()
    [0.0, 0.0, 2.0]
    """,
)

index_copy = Op(
    "index_copy",
    """
    index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor
    index_copy.out(Tensor self, int dim, Tensor index, Tensor source, *, Tensor(a!) out) -> Tensor(a!)
    index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)
    """,
    kernels={"index_copy_": {CEA: _index_copy_, "Meta": _meta_index_copy_},
             "index_copy": {CIA: _index_copy}, "index_copy.out": {CIA: _index_copy_out}},
    derivatives={"index_copy": Deriv(
        save="index", self=lambda g, a: g.index_fill(a.dim, a.index, 0),
        source=lambda g, a: g.index_select(a.dim, a.index).reshape(a.size_of("source")),
        jvp={"self": lambda t, a: t.index_fill(a.dim, a.index, 0),
             "source": lambda t, a: lookup("aten::index_copy")(zeros(a.size_of("self"), t), a.dim, a.index, t)})},
    doc="""``input`` with the slices of ``source`` copied to the positions ``index`` along ``dim``.

    >>> import openreg
    >>> openreg.zeros(3).index_copy(0, openreg.tensor([2, 0]), openreg.tensor([5.0, 6.0])).tolist()
    [6.0, 0.0, 5.0]
    """,
)

index_fill = Op(
    "index_fill",
    """
    index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
    index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor
    index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)
    index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)
    """,
    kernels={"index_fill_.int_Scalar": {CEA: _index_fill_, "Meta": _meta_index_fill_},
             "index_fill_.int_Tensor": {CEA: _index_fill_, "Meta": _meta_index_fill_},
             "index_fill.int_Scalar": {CIA: _index_fill}, "index_fill.int_Tensor": {CIA: _index_fill_tensor}},
    derivatives={
        "index_fill.int_Scalar": Deriv(save="index", self=lambda g, a: g.index_fill(a.dim, a.index, 0),
                                       jvp={"self": lambda t, a: t.index_fill(a.dim, a.index, 0)})},
    doc="""``input`` with ``value`` at the positions ``index`` along ``dim`` (negative indices count back).

    >>> import openreg
    >>> openreg.zeros(2, 3).index_fill(1, openreg.tensor([-1]), 7.0).tolist()
    [[0.0, 0.0, 7.0], [0.0, 0.0, 7.0]]
    """,
)


def _scatter_method(self, dim, index, src=None, value=None, *, reduce=None):
    src = value if src is None else src
    if isinstance(src, Tensor):
        return A.scatter__src(self, dim, index, src) if reduce is None else \
            A.scatter__reduce(self, dim, index, src, reduce=reduce)
    return A.scatter__value(self, dim, index, src) if reduce is None else \
        A.scatter__value_reduce(self, dim, index, src, reduce=reduce)


def _scatter_method_(self, dim, index, src=None, value=None, *, reduce=None):
    src = value if src is None else src
    if isinstance(src, Tensor):
        return A.scatter___src(self, dim, index, src) if reduce is None else \
            A.scatter___reduce(self, dim, index, src, reduce=reduce)
    return A.scatter___value(self, dim, index, src) if reduce is None else \
        A.scatter___value_reduce(self, dim, index, src, reduce=reduce)


def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """``input`` with ``src`` (a tensor, or a number ``value``) written at ``index`` along ``dim``.

    >>> import openreg
    >>> openreg.scatter(openreg.zeros(2, 3), 1, openreg.tensor([[2], [0]]), 1.0).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    result = _scatter_method(input, dim, index, src, value, reduce=reduce)
    return result if out is None else _into_out(result, out, "scatter")


_SCATTER_GRADS = {
    "scatter.src": Deriv(save="index", self=lambda g, a: g.scatter(a.dim, a.index, 0),
                         src=lambda g, a: g.gather(a.dim, a.index),
                         jvp={"self": lambda t, a: t.scatter(a.dim, a.index, 0),
                              "src": lambda t, a: zeros(a.size_of("self"), t).scatter(a.dim, a.index, t)}),
    "scatter.value": Deriv(save="index", self=lambda g, a: g.scatter(a.dim, a.index, 0),
                           jvp={"self": lambda t, a: t.scatter(a.dim, a.index, 0)}),
}

scatter_op = Op(
    "scatter",
    """
    scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
    scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
    scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor
    scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor
    scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)
    scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)
    scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor(a!)
    scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor(a!)
    """,
    kernels={"scatter_.src": {CEA: _scatter_src_, "Meta": _meta_scatter},
             "scatter_.value": {CEA: _scatter_value_, "Meta": _meta_scatter},
             "scatter_.reduce": {CEA: _scatter_reduce_, "Meta": _meta_scatter},
             "scatter_.value_reduce": {CEA: _scatter_value_reduce_, "Meta": _meta_scatter},
             "scatter.src": {CIA: _functional("scatter___src")},
             "scatter.value": {CIA: _functional("scatter___value")},
             "scatter.reduce": {CIA: _functional("scatter___reduce")},
             "scatter.value_reduce": {CIA: _functional("scatter___value_reduce")}},
    derivatives=_SCATTER_GRADS,
    function=scatter, method=_scatter_method, extra_methods={"scatter_": _scatter_method_},
    doc=scatter.__doc__,
)

scatter_reduce = Op(
    "scatter_reduce",
    """
    scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor
    scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True, Tensor(a!) out) -> Tensor(a!)
    scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor(a!)
    """,
    kernels={"scatter_reduce_.two": {CEA: _scatter_reduce_two_, "Meta": _meta_scatter_reduce_two_},
             "scatter_reduce.two": {CIA: _functional("scatter_reduce___two")},
             "scatter_reduce.two_out": {CIA: lambda self, dim, index, src, reduce, *, include_self=True, out: _into_out(
                 A.scatter_reduce__two(self, dim, index, src, reduce, include_self=include_self), out, "scatter_reduce")}},
    derivatives={"scatter_reduce.two": Deriv(
        save="self index src", self=lambda g, a: _scatter_reduce_backward(g, a, "self"),
        src=lambda g, a: _scatter_reduce_backward(g, a, "src"),
        jvp={"self": lambda t, a: _scatter_reduce_jvp(t, a, "self"), "src": lambda t, a: _scatter_reduce_jvp(t, a, "src")})},
    doc="""``input`` with ``src`` reduced into it at ``index`` along ``dim`` (``"sum"``, ``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``; ``include_self=False`` leaves the targets' own values out).

    >>> import openreg
    >>> x = openreg.tensor([1.0, 2.0])
    >>> x.scatter_reduce(0, openreg.tensor([0, 0]), openreg.tensor([3.0, 5.0]), "mean", include_self=False).tolist()
    [4.0, 2.0]
    """,
)

take = Op(
    "take",
    """
    take(Tensor self, Tensor index) -> Tensor
    take.out(Tensor self, Tensor index, *, Tensor(a!) out) -> Tensor(a!)
    """,
    kernels={"take": {CEA: _take, "Meta": _meta_take}, "take.out": {CIA: _take_out}},
    derivatives={"take": Deriv(save="index", self=_take_grad,
                               jvp={"self": lambda t, a: lookup("aten::take")(t, a.index)})},
    doc="""The elements of ``input`` (read as 1-d) at ``index``, in ``index``'s shape; negative indices count back.

    >>> import openreg
    >>> openreg.take(openreg.tensor([[1, 2], [3, 4]]), openreg.tensor([0, -1])).tolist()
    [1, 4]
    """,
)

fill_diagonal = Op(
    "fill_diagonal",
    """
    fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)
    """,
    kernels={"fill_diagonal_": {CEA: _fill_diagonal_, "Meta": _meta_fill_diagonal_}},
    derivatives={"fill_diagonal_": Deriv(self=lambda g, a: g.clone().fill_diagonal_(0, a.wrap),
                                         jvp={"self": lambda t, a: t.clone().fill_diagonal_(0, a.wrap)})},
    function=False,
    doc="""Fill the main diagonal (all dimensions of equal length beyond 2-d) in place; ``wrap`` restarts it
    below tall matrices.

    >>> import openreg
    >>> openreg.zeros(2, 3).fill_diagonal_(1.0).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """,
)

register(index_add, index_copy, index_fill, scatter_op, scatter_reduce, take, fill_diagonal)
