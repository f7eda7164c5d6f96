"""Gather/scatter-style indexing: ``gather``, ``scatter_add``/``scatter_add_``, ``index_select`` and
``masked_fill``/``masked_fill_``.

Kernels are written against the array module of ``self``'s storage (NumPy, or CuPy on the cuda driver), so
one CompositeExplicitAutograd kernel serves the CPU and the device; Meta gets shape-only kernels.

>>> import openreg
>>> x = openreg.tensor([[1, 2], [3, 4]])
>>> x.gather(1, openreg.tensor([[1, 1], [0, 1]])).tolist(), x.index_select(0, openreg.tensor([1])).tolist()
([[2, 2], [3, 4]], [[3, 4]])
>>> x.masked_fill(openreg.tensor([True, False]), 0).tolist()
[[0, 2], [0, 4]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import from_compute, host_array, wrap_array
from .._dispatch.ops import A
from ..aten.float8_support import is_float8, refuse_float8
from ..aten.meta_rules import broadcast_shapes, fmt_shape, wrap_dim
from ..aten.structured import empty_tensor
from ..aten.views import fresh
from ..scalar_conversion import check_scalar_fits
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._formulas import mask, zeros
from ._record import Deriv, Op, register
from ._scatter import accumulate_at


def _xp(t: Tensor):
    return t._storage._backend.array_module


def _on(t: Tensor, like: Tensor, xp):
    """``t``'s elements as an array of ``like``'s array module (device arrays stay where they are)."""
    return t._array() if t.device == like.device else xp.asarray(host_array(t))


def _check_gather_args(op: str, self: Tensor, dim: int, index: Tensor, src: Tensor | None = None) -> int:
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"{op}(): Expected dtype int64 for index")
    n = max(self.dim(), 1)
    d = wrap_dim(dim, n)
    if index.dim() != self.dim() and not (index.dim() <= 1 and self.dim() <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(index.dim()):
        if k != d and index._size[k] > (self._size[k] if self.dim() else 1):
            raise RuntimeError(f"Size does not match at dimension {k} expected index {fmt_shape(index._size)} to be "
                               f"smaller than self {fmt_shape(self._size)} apart from dimension {d}")
        if src is not None and index._size[k] > (src._size[k] if src.dim() else 1):
            raise RuntimeError(f"Size does not match at dimension {k} expected index {fmt_shape(index._size)} to be "
                               f"smaller than src {fmt_shape(src._size)}")
    return d


def _check_bounds(arr, size: int, dim: int, op: str) -> bool:
    """Raise PyTorch's error for an index outside ``[-size, size)``; whether ``arr`` holds a negative index (two
    reductions, no temporaries: the common all-valid case costs a min and a max)."""
    if not arr.size:
        return False
    low, high = int(arr.min()), int(arr.max())
    if high >= size or low < -size:
        bad = (arr >= size) | (arr < -size)
        raise RuntimeError(f"index {int(arr[bad].reshape(-1)[0])} is out of bounds for dimension {dim} with "
                           f"size {size}")
    return low < 0


def _full_index(xp, idx, dim: int):
    """The advanced-index tuple addressing ``arr[..., idx, ...]`` element-wise along ``dim``.

    Open grids are built from ``arange`` by hand: CuPy's ``indices`` has no ``sparse=`` keyword.
    """
    ndim = len(idx.shape)
    grids = [xp.arange(n).reshape((1,) * k + (n,) + (1,) * (ndim - k - 1)) for k, n in enumerate(idx.shape)]
    grids[dim] = idx
    return tuple(grids)


def _flat_index(xp, idx, dim: int, shape: tuple):
    """The positions in the C-ordered flattening of an array of ``shape`` that ``_full_index(xp, idx, dim)``
    addresses (``idx`` non-negative; its sizes may be smaller than ``shape``'s off ``dim``): one index array, so
    a gather is one ``take`` and a scatter one flat ``add.at``, several times faster than the broadcast tuple."""
    strides, step = [0] * len(shape), 1
    for k in reversed(range(len(shape))):
        strides[k], step = step, step * shape[k]
    offset = None
    for k, n in enumerate(idx.shape):
        if k != dim and n > 1:
            grid = (xp.arange(n, dtype=idx.dtype) * strides[k]).reshape((1,) * k + (n,) + (1,) * (idx.ndim - k - 1))
            offset = grid if offset is None else offset + grid
    lin = idx if strides[dim] == 1 else idx * strides[dim]
    return lin if offset is None else lin + offset


def _gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    d = _check_gather_args("gather", self, dim, index)
    if is_float8(self._dtype):
        refuse_float8("gather", self._dtype)
    xp = _xp(self)
    src = self._array().reshape(self._size or (1,))
    idx = _on(index, self, xp).reshape(index._size or (1,))
    if _check_bounds(idx, src.shape[d], d, "gather"):
        idx = idx % src.shape[d]
    out = src.reshape(-1).take(_flat_index(xp, idx, d, src.shape)) if idx.size else src[_full_index(xp, idx, d)]
    return wrap_array(out.reshape(index._size), self._dtype, self.device)


def _meta_gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    _check_gather_args("gather", self, dim, index)
    return empty_tensor(index._size, self._dtype, self.device)


def _scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d = _check_gather_args("scatter", self, dim, index, src)
    if src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    xp = _xp(self)
    dst = self._array().reshape(self._size or (1,))
    idx = _on(index, self, xp).reshape(index._size or (1,))
    if _check_bounds(idx, dst.shape[d], d, "scatter"):
        idx = idx % dst.shape[d]
    vals = _on(src, self, xp).reshape(src._size or (1,))
    vals = vals[tuple(slice(0, s) for s in idx.shape)]
    if dst.flags.c_contiguous and idx.size:   # a flat view: one 1-d add.at, same order of accumulation
        accumulate_at(xp, dst.reshape(-1), _flat_index(xp, idx, d, dst.shape).reshape(-1), vals.reshape(-1),
                      self._dtype)
    else:
        accumulate_at(xp, dst, _full_index(xp, idx, d), vals, self._dtype)
    return self


def _meta_scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _check_gather_args("scatter", self, dim, index, src)
    return self


def _scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return fresh(A.scatter_add_(A.clone(self), dim, index, src))


def _check_index_select(self: Tensor, dim: int, index: Tensor) -> int:
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    return wrap_dim(dim, max(self.dim(), 1))


def _index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    d = _check_index_select(self, dim, index)
    xp = _xp(self)
    arr = self._array().reshape(self._size or (1,))
    idx = _on(index, self, xp).reshape(-1).astype(xp.int64, copy=False)
    size = arr.shape[d]
    bad = (idx >= size) | (idx < -size)
    if idx.size and bool(bad.any()):
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
    out = xp.take(arr, idx, axis=d)
    if not self._size:
        out = out.reshape(())
    return wrap_array(out, self._dtype, self.device)


def _meta_index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    d = _check_index_select(self, dim, index)
    size = list(self._size)
    if size:
        size[d] = index.numel()
    return empty_tensor(size, self._dtype, self.device)


def _check_mask(op: str, self: Tensor, mask: Tensor, inplace: bool) -> tuple:
    if mask._dtype is not _dt.bool:
        from .metadata import cpp_type_name
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_type_name(mask._dtype)}")
    shape = broadcast_shapes(self._size, mask._size)
    if inplace and shape != tuple(self._size):
        raise RuntimeError(f"output with shape {fmt_shape(self._size)} doesn't match the broadcast shape "
                           f"{fmt_shape(shape)}")
    return shape


def _scalar_value(op: str, self: Tensor, value: Tensor):
    if value.dim() != 0:
        raise RuntimeError(f"{op} only supports a 0-dimensional value tensor, but got tensor with {value.dim()} "
                           f"dimension(s).")
    return value.item()


def _masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    _check_mask("masked_fill_", self, mask, True)
    if is_float8(self._dtype):
        refuse_float8("masked_fill", self._dtype)
    check_scalar_fits(value, self._dtype)
    xp = _xp(self)
    dst = self._array()
    m = xp.broadcast_to(_on(mask, self, xp), dst.shape)
    fill = from_compute(xp.asarray(value), self._dtype)
    dst[m] = fill
    return self


def _masked_fill_tensor_(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    return _masked_fill_(self, mask, _scalar_value("masked_fill_", self, value))


def _meta_masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    _check_mask("masked_fill_", self, mask, True)
    if isinstance(value, Tensor):
        _scalar_value("masked_fill_", self, value)
    return self


def _masked_fill(self: Tensor, mask: Tensor, value) -> Tensor:
    shape = _check_mask("masked_fill", self, mask, False)
    base = A.expand(self, shape) if shape != tuple(self._size) else self
    return fresh(A.masked_fill___Scalar(A.clone(base, memory_format="contiguous_format"), mask, value))


def _masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    return _masked_fill(self, mask, _scalar_value("masked_fill", self, value))



def _gather_grad(g, a):
    return A.scatter_add(zeros(a.size_of("self"), g), a.dim, a.index, g)


def _index_along(index, dim: int, like):
    """``index`` (1-d) shaped to broadcast along ``dim`` of ``like`` and expanded to ``like``'s shape."""
    shape = [1] * like.dim()
    d = dim % max(like.dim(), 1)
    if like.dim():
        shape[d] = index.numel()
        return index.reshape(shape).expand(tuple(like.shape))
    return index.reshape(())


def _index_select_grad(g, a):
    size = a.size_of("self")
    if len(size) == 0:
        return g
    return A.scatter_add(zeros(size, g), a.dim, _index_along(a.index, a.dim, g), g)


def _keep_unmasked(g, a):
    return g * (1 - mask(a.mask, g))


gather = Op(
    "gather",
    """
    gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
    """,
    kernels={"gather": {"CompositeExplicitAutograd": _gather, "Meta": _meta_gather}},
    derivatives={"gather": Deriv(save="index", self=_gather_grad,
                                 jvp={"self": lambda t, a: A.gather(t, a.dim, a.index)})},
    doc="""Values of ``input`` along ``dim`` at ``index`` (``out[i][j] = input[i][index[i][j]]`` for dim 1).

    >>> import openreg
    >>> openreg.gather(openreg.tensor([[1, 2], [3, 4]]), 1, openreg.tensor([[0], [1]])).tolist()
    [[1], [4]]
    """,
)

scatter_add = Op(
    "scatter_add",
    """
    scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
    scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)
    """,
    kernels={"scatter_add_": {"CompositeExplicitAutograd": _scatter_add_, "Meta": _meta_scatter_add_},
             "scatter_add": {"CompositeImplicitAutograd": _scatter_add}},
    derivatives={"scatter_add": Deriv(
        save="index", self=lambda g, a: g, src=lambda g, a: A.gather(g, a.dim, a.index),
        jvp={"self": lambda t, a: t,
             "src": lambda t, a: A.scatter_add(zeros(a.size_of("self"), t), a.dim, a.index, t)})},
    doc="""``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices accumulate).

    >>> import openreg
    >>> openreg.scatter_add(openreg.zeros(3), 0, openreg.tensor([0, 0, 2]), openreg.ones(3)).tolist()
    [2.0, 0.0, 1.0]
    """,
)

index_select = Op(
    "index_select",
    """
    index_select(Tensor self, int dim, Tensor index) -> Tensor
    """,
    kernels={"index_select": {"CompositeExplicitAutograd": _index_select, "Meta": _meta_index_select}},
    derivatives={"index_select": Deriv(save="index", self=_index_select_grad,
                                       jvp={"self": lambda t, a: A.index_select(t, a.dim, a.index)})},
    doc="""The slices of ``input`` along ``dim`` at the positions in the 1-d ``index``.

    >>> import openreg
    >>> openreg.index_select(openreg.tensor([[1, 2], [3, 4]]), 1, openreg.tensor([1, 1])).tolist()
    [[2, 2], [4, 4]]
    """,
)

masked_fill = Op(
    "masked_fill",
    """
    masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
    masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
    masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)
    masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)
    """,
    kernels={"masked_fill_.Scalar": {"CompositeExplicitAutograd": _masked_fill_, "Meta": _meta_masked_fill_},
             "masked_fill_.Tensor": {"CompositeExplicitAutograd": _masked_fill_tensor_, "Meta": _meta_masked_fill_},
             "masked_fill.Scalar": {"CompositeImplicitAutograd": _masked_fill},
             "masked_fill.Tensor": {"CompositeImplicitAutograd": _masked_fill_tensor}},
    derivatives={
        "masked_fill.Scalar": Deriv(save="mask", pointwise=True, name="MaskedFillBackward0", self=_keep_unmasked),
        "masked_fill.Tensor": Deriv(
            save="mask", name="MaskedFillBackward1", self=_keep_unmasked,
            value=lambda g, a: (g * mask(a.mask, g)).sum(),
            jvp={"self": lambda t, a: t * (1 - mask(a.mask, t)), "value": lambda t, a: mask(a.mask, t) * t})},
    doc="""``input`` with ``value`` wherever the (broadcast) boolean ``mask`` is True.

    >>> import openreg
    >>> openreg.masked_fill(openreg.zeros(2, 3), openreg.tensor([True, False, True]), 1.0).tolist()
    [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    """,
)

register(gather, scatter_add, index_select, masked_fill)
