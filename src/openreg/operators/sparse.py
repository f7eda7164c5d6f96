"""Sparse COO tensors (``openreg.sparse.coo_tensor``): the constructor and accessors as records, conversions
to and from dense, coalescing, and the sparse kernels of ``add``, ``mul``, ``mm``, ``addmm``, ``clone``,
``_to_copy``, ``t``/``transpose``, ``detach`` (those records name them under their ``SparseCPU`` and
``SparsePrivateUse1`` keys, as PyTorch's native_functions.yaml does).

Every kernel is written with tensor operators on ``indices`` and ``values`` (``index_put_`` with accumulation
for the scatter-adds, ``sort``/``cumsum`` for coalescing), so one kernel serves the CPU and the device.

>>> import openreg
>>> s = openreg.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
>>> s._indices().tolist(), s._values().tolist(), s.is_coalesced()
([[0, 1], [1, 0]], [2.0, 3.0], True)
>>> (s @ openreg.ones(2, 1)).tolist(), (openreg.eye(2) + s).tolist()
([[2.0], [3.0]], [[1.0, 2.0], [3.0, 1.0]])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import can_cast, scalar_type_name
from ..tensor import TensorBase
from ._record import Deriv, Op, register


def _coo():
    from ..sparse import coo_tensor
    return coo_tensor


def _sparse(t) -> bool:
    return isinstance(t, TensorBase) and t.is_sparse


def _scalar_tensor(t) -> bool:
    return isinstance(t, TensorBase) and not t.is_sparse and t.dim() == 0


def _dense_sizes(values) -> tuple:
    return tuple(values._size[1:])


def _sparse_dim(t) -> int:
    return t._coo_indices._size[0]


def _index_rows(indices) -> tuple:
    """The rows of ``indices`` as a tuple of 1-D index tensors (one per sparse dim)."""
    return tuple(indices[d] for d in range(indices._size[0]))


def _zeros(size, dtype, device):
    import openreg
    return openreg.zeros(tuple(size), dtype=dtype, device=device)


def _check_same_device(op: str, a, b) -> None:
    if a.device != b.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{a.device} and {b.device}! (when checking argument for {op})")


# -- construction -------------------------------------------------------------------------------------------

def _with_dims_and_tensors(sparse_dim, dense_dim, size, indices, values, *, dtype=None, layout=None, device=None,
                           pin_memory=False, is_coalesced=None):
    """The sparse tensor over ``indices``/``values`` (kept as they are: PyTorch's low-level constructor)."""
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({dense_dim}), but "
                           f"got {len(size)}")
    if indices.dim() != 2 or indices._size[0] != sparse_dim:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if values.dim() != dense_dim + 1:
        raise RuntimeError(f"values must have dense_dim + 1 = {dense_dim + 1} dims, but got {values.dim()}")
    if dtype is not None and values._dtype is not dtype:
        values = values.to(dtype)
    return _coo().make_coo(indices, values, size, bool(is_coalesced))


def _constructor_values_grad(g, a):
    """The gradient of ``values``: the (dense) gradient read at each index (duplicates each get it)."""
    if g.is_sparse:
        g = g.to_dense()
    return g[_index_rows(a.indices)] if a.indices._size[0] else g.expand(a.size_of("values"))


def _as_index_tensor(indices, device):
    import openreg
    if isinstance(indices, TensorBase):
        return indices.to(device=device, dtype=_dt.int64)
    return openreg.as_tensor(indices, dtype=_dt.int64, device=device)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=None,
                      requires_grad: bool = False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values`` at ``indices`` (``sparse_dim x nnz``); ``size`` defaults to the
    smallest that holds every index. Duplicate indices add up (``coalesce()`` sums them). Indices are always
    checked (openreg never reads out of bounds), with PyTorch's ``check_invariants=True`` errors.

    >>> import openreg
    >>> s = openreg.sparse_coo_tensor([[0, 0], [1, 1]], [1.0, 2.0], (2, 2))
    >>> s.is_coalesced(), s.coalesce()._values().tolist(), s.to_dense().tolist()
    (False, [3.0], [[0.0, 3.0], [0.0, 0.0]])
    """
    import openreg
    if isinstance(values, TensorBase):
        if values.is_sparse:
            raise RuntimeError(f"expected values to be a strided and dense tensor, but got values of layout "
                               f"{values.layout}")
        values = values.to(device=device if device is not None else values.device, dtype=dtype or values._dtype)
    else:
        values = openreg.tensor(values, dtype=dtype, device=device)
    idx = _as_index_tensor(indices, values.device)
    if idx.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    sparse_dim, nnz, dense_dim = idx._size[0], idx._size[1], values.dim() - 1
    if values.dim() == 0 or values._size[0] != nnz:
        got = values._size[0] if values.dim() else 1
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {got}")
    lo = idx.amin(1).tolist() if nnz else [0] * sparse_dim
    hi = idx.amax(1).tolist() if nnz else [-1] * sparse_dim
    for d, m in enumerate(lo):
        if m < 0:
            raise RuntimeError(f"found negative index {m} for dim {d}")
    if size is None:
        size = tuple(h + 1 for h in hi) + _dense_sizes(values)
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    expected = [nnz, *size[sparse_dim:]]
    if list(values.shape) != expected:
        raise RuntimeError(f"values has incorrect size, expected {expected}, got {list(values.shape)}")
    for d, m in enumerate(hi):
        if m >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found index {m}")
    out = A._sparse_coo_tensor_with_dims_and_tensors(sparse_dim, dense_dim, size, idx, values,
                                                      is_coalesced=is_coalesced)
    if requires_grad:
        out.requires_grad_(True)
    return out


# -- accessors -------------------------------------------------------------------------------------------------

def _indices(self):
    return self._coo_indices


def _values(self):
    return self._coo_values


def _checked(what: str):
    def accessor(self):
        if not self._coo_coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")
        return self._coo_indices if what == "indices" else self._coo_values
    accessor.__name__ = what
    return accessor


def _nnz(self) -> int:
    return self._coo_values._size[0]


def _is_coalesced(self) -> bool:
    return self._coo_coalesced


def _sparse_dim_of(self) -> int:
    return _sparse_dim(self) if self.is_sparse else 0


def _dense_dim_of(self) -> int:
    return self._coo_values.dim() - 1 if self.is_sparse else self.dim()


# -- coalescing ---------------------------------------------------------------------------------------------------

def _linear_index(indices, size):
    """Row-major linear index of each column of ``indices`` (int64)."""
    lin = indices[0].clone() if indices._size[0] else None
    for d in range(1, indices._size[0]):
        lin = lin * size[d] + indices[d]
    return lin


def _coalesce(self):
    """Indices sorted and unique, the values of duplicates summed."""
    indices, values, size = self._coo_indices, self._coo_values, self._size
    sd, nnz = indices._size[0], indices._size[1]
    if nnz < 2 or sd == 0:
        if sd == 0 and nnz > 1:
            values = values.sum(0, keepdim=True)
            indices = indices[:, :1]
        return _coo().make_coo(indices.clone(), values.clone(), size, True)
    lin = _linear_index(indices, size)
    sorted_lin, order = lin.sort(stable=True)
    first = sorted_lin[1:] != sorted_lin[:-1]
    import openreg
    starts = openreg.cat([openreg.ones(1, dtype=_dt.bool, device=lin.device), first])
    segment = starts.to(_dt.int64).cumsum(0) - 1
    unique_lin = sorted_lin[starts]
    count = unique_lin._size[0]
    summed = _zeros((count,) + _dense_sizes(values), values._dtype, values.device)
    summed.index_put_((segment,), values[order], accumulate=True)
    rows, rest = [], unique_lin
    for d in reversed(range(sd)):
        rows.append(rest % size[d])
        rest = rest.div(size[d], rounding_mode="floor")
    new_indices = openreg.stack(rows[::-1]) if rows else indices
    return _coo().make_coo(new_indices, summed, size, True)


def _coalesce_method(self):
    return self if self._coo_coalesced else A._coalesce(self)


# -- conversions ---------------------------------------------------------------------------------------------------

def _to_dense_composite(self, dtype=None, *, masked_grad=None):
    if not self.is_sparse:
        return self if dtype is None or dtype is self._dtype else self.to(dtype)
    return A._to_dense(self, dtype, masked_grad)


def _sparse_to_dense(self, dtype=None, masked_grad=None):
    values = self._coo_values
    out = _zeros(self._size, values._dtype, values.device)
    if values._size[0]:
        out.index_put_(_index_rows(self._coo_indices), values, accumulate=True)
    return out if dtype is None or dtype is out._dtype else out.to(dtype)


def _dense_to_sparse(self, sparse_dim: int):
    import openreg
    if not 0 <= sparse_dim <= self.dim():
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.dim()}] range, but "
                           f"{sparse_dim} is given")
    nonzero = self != 0
    if sparse_dim < self.dim():
        nonzero = nonzero.any(tuple(range(sparse_dim, self.dim()))) if sparse_dim > 0 else nonzero.any()
    if sparse_dim == 0:
        indices = openreg.zeros((0, 1), dtype=_dt.int64, device=self.device)
        return _coo().make_coo(indices, self.unsqueeze(0).clone(), self._size, True)
    indices = A.nonzero(nonzero).t().contiguous()       # row-major order: sorted and unique
    values = self[_index_rows(indices)].contiguous()
    return _coo().make_coo(indices, values, self._size, True)


def _to_sparse_layout(self, *, layout=None, blocksize=None, dense_dim=None):
    from ..layouts import normalize, sparse_coo
    target = normalize(layout)
    if target is not None and target != sparse_coo:
        raise NotImplementedError(f"openreg: to_sparse(layout={target}) is not implemented; only "
                                  f"openreg.sparse_coo is")
    if blocksize is not None:
        raise RuntimeError("to_sparse for Strided to SparseCoo conversion does not use specified blocksize")
    if self.is_sparse:
        return self
    return _dense_to_sparse(self, self.dim() - (dense_dim or 0))


def _to_sparse_dims(self, sparse_dim: int):
    if self.is_sparse:
        if sparse_dim != _sparse_dim(self):
            raise RuntimeError(f"openreg: to_sparse({sparse_dim}) of a sparse tensor with sparse_dim "
                               f"{_sparse_dim(self)} is not implemented")
        return self
    return _dense_to_sparse(self, sparse_dim)


def _to_sparse_method(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``to_sparse()`` / ``to_sparse(sparse_dim)``: a sparse COO copy of a dense tensor (zeros dropped; a
    sparse tensor is returned as it is).

    >>> import openreg
    >>> openreg.tensor([[0.0, 1.0], [0.0, 0.0]]).to_sparse()._indices().tolist()
    [[0], [1]]
    """
    if sparse_dim is not None:
        return A.to_sparse__sparse_dim(self, sparse_dim)
    return A.to_sparse(self, layout=layout, blocksize=blocksize, dense_dim=dense_dim)


def _sparse_mask(self, mask):
    """``self`` (dense) read at the (coalesced) indices of ``mask`` (sparse), as a sparse tensor."""
    if not mask.is_sparse or self.is_sparse:
        raise RuntimeError("sparse_mask(): expected self to be a strided tensor and mask a sparse tensor")
    if tuple(self._size) != tuple(mask._size):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self.shape)} "
                           f"but mask has size {list(mask.shape)}")
    mask = _coalesce_method(mask)          # each index once, as PyTorch reads an uncoalesced mask
    values = self[_index_rows(mask._coo_indices)] if _sparse_dim(mask) else self.unsqueeze(0)
    return _coo().make_coo(mask._coo_indices, values, self._size, True)


# -- the sparse kernels of other records ------------------------------------------------------------------------

def _promoted(a, b):
    return _dt.promote_types(a._dtype, b._dtype)


def add_sparse(self, other, *, alpha=1):
    """``add.Tensor`` with a sparse operand: sparse + sparse (sparse), dense + sparse (dense)."""
    if not isinstance(other, TensorBase) or (self.is_sparse and not other.is_sparse):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    _check_same_device("add", self, other)
    dtype = _promoted(self, other)
    if not self.is_sparse:
        if tuple(self._size) != tuple(other._size):
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                               f"{list(self.shape)} while other has size {list(other.shape)} (FYI: dense-sparse "
                               f"addition does not currently support broadcasting)")
        out = self.to(dtype, copy=True)
        return _add_into(out, other, alpha)
    if tuple(self._size) != tuple(other._size):
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(self.shape)} != "
                           f"{list(other.shape)}")
    if _sparse_dim(self) != _sparse_dim(other):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same sparse dimensions, but "
                           f"{_sparse_dim(self)} != {_sparse_dim(other)}")
    if other._coo_values._size[0] == 0:
        return _coo().make_coo(self._coo_indices.clone(), self._coo_values.to(dtype, copy=True), self._size,
                               self._coo_coalesced)
    if self._coo_values._size[0] == 0:
        return _coo().make_coo(other._coo_indices.clone(), _scaled(other._coo_values.to(dtype, copy=True), alpha),
                               self._size, other._coo_coalesced)
    a_values, b_values = self._coo_values.to(dtype), other._coo_values.to(dtype)
    if a_values.is_contiguous() and b_values.is_contiguous():
        return _merged(self, other, dtype, alpha)
    # PyTorch's kernel concatenates when either values tensor is not contiguous (an expanded output gradient),
    # coalescing only when the entries outnumber the elements
    import openreg
    out = _coo().make_coo(openreg.cat([self._coo_indices, other._coo_indices], 1),
                          openreg.cat([a_values, _scaled(b_values, alpha)]), self._size)
    return A._coalesce(out) if out._coo_values._size[0] > out.numel() else out


def _merge_slots(a: list, b: list) -> tuple:
    """PyTorch's merge of two index lists (``add_out_sparse_contiguous``): walk both, emitting the smaller head,
    both into one slot when equal. On unsorted lists this is still the order PyTorch's sum has, which decides
    the order in which a dense ``add_`` of the result later adds duplicates up. Returns each entry's slot."""
    slots_a, slots_b = [], []
    i = j = r = 0
    na, nb = len(a), len(b)
    while i < na or j < nb:
        if i >= na:
            take_a, take_b = False, True
        elif j >= nb:
            take_a, take_b = True, False
        else:
            take_a, take_b = a[i] <= b[j], b[j] <= a[i]
        if take_a:
            slots_a.append(r)
            i += 1
        if take_b:
            slots_b.append(r)
            j += 1
        r += 1
    return slots_a, slots_b, r


def _merged(self, other, dtype, alpha):
    """``self + alpha * other`` of two sparse tensors as PyTorch's CPU kernel orders it (``_merge_slots``); the
    result is coalesced when both operands are."""
    import openreg
    size = self._size
    if self._coo_indices._size[0] == 0:    # no sparse dims: entries all at the one index
        values = openreg.cat([self._coo_values.to(dtype), _scaled(other._coo_values.to(dtype), alpha)])
        return _coo().make_coo(openreg.cat([self._coo_indices, other._coo_indices], 1), values, size, False)
    a_lin, b_lin = _linear_index(self._coo_indices, size), _linear_index(other._coo_indices, size)
    slots_a, slots_b, count = _merge_slots(a_lin.tolist(), b_lin.tolist())
    dev = self.device
    slots_a = openreg.tensor(slots_a, dtype=_dt.int64, device=dev)
    slots_b = openreg.tensor(slots_b, dtype=_dt.int64, device=dev)
    indices = _zeros((self._coo_indices._size[0], count), _dt.int64, dev)
    indices[:, slots_a] = self._coo_indices
    indices[:, slots_b] = other._coo_indices
    values = _zeros((count,) + _dense_sizes(self._coo_values), dtype, dev)
    values.index_put_((slots_a,), self._coo_values.to(dtype), accumulate=True)
    values.index_put_((slots_b,), _scaled(other._coo_values.to(dtype), alpha), accumulate=True)
    return _coo().make_coo(indices, values, size, self._coo_coalesced and other._coo_coalesced)


def _scaled(values, alpha):
    return values if alpha == 1 else values * alpha


def _add_into(out, sparse, alpha):
    values = sparse._coo_values
    if values._size[0]:
        out.index_put_(_index_rows(sparse._coo_indices), _scaled(values, alpha).to(out._dtype), accumulate=True)
    return out


def add_sparse_(self, other, *, alpha=1):
    """``add_.Tensor``: a dense ``self`` accumulates a sparse ``other`` in place; a sparse ``self`` takes the
    indices and values of ``self + other`` (gradient accumulation of sparse gradients)."""
    if self.is_sparse:
        result = add_sparse(self, other, alpha=alpha)
        if not can_cast(result._dtype, self._dtype):
            raise RuntimeError(f"result type {result._dtype} can't be cast to the desired output type {self._dtype}")
        self._coo_indices, self._coo_values = result._coo_indices, result._coo_values.to(self._dtype)
        self._coo_coalesced = result._coo_coalesced
        return self
    if tuple(self._size) != tuple(other._size):
        raise RuntimeError(f"add_: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(self.shape)} while other has size {list(other.shape)} (FYI: dense-sparse "
                           f"addition does not currently support broadcasting)")
    if not can_cast(_promoted(self, other), self._dtype):
        raise RuntimeError(f"result type {_promoted(self, other)} can't be cast to the desired output type "
                           f"{self._dtype}")
    return _add_into(self, other, alpha)


def mul_sparse(self, other):
    """``mul.Tensor``: a sparse tensor times a 0-dim dense tensor (either order); two sparse tensors of one
    size multiply where both have entries."""
    if self.is_sparse and _scalar_tensor(other):
        return _scale_values(self, other)
    if other.is_sparse and _scalar_tensor(self):
        return _scale_values(other, self)
    if self.is_sparse and other.is_sparse:
        if tuple(self._size) != tuple(other._size):
            raise RuntimeError(f"mul(sparse, sparse): sizes {list(self.shape)} and {list(other.shape)} differ")
        a, b = A.coalesce(self), A.coalesce(other)
        product = A.sparse_mask(b.to_dense(), a)
        return _coo().make_coo(a._coo_indices, a._coo_values * product._coo_values, self._size, True)
    raise NotImplementedError("openreg: mul of a sparse and a dense tensor of more than 0 dims is not "
                              "implemented")


def _scale_values(sparse, factor):
    values = sparse._coo_values * factor
    return _coo().make_coo(sparse._coo_indices, values, sparse._size, sparse._coo_coalesced)


def mul_scalar_sparse(self, other):
    return _scale_values(self, other)


def _scale_values_(sparse, factor):
    sparse._coo_values = (sparse._coo_values * factor).to(sparse._dtype)
    return sparse


def mul_sparse_(self, other):
    """``mul_.Tensor`` of a sparse tensor by a 0-dim dense tensor: the values scaled in place."""
    if self.is_sparse and _scalar_tensor(other):
        return _scale_values_(self, other)
    if self.is_sparse and other.is_sparse:
        result = mul_sparse(self, other)
        self._coo_indices, self._coo_values = result._coo_indices, result._coo_values.to(self._dtype)
        self._coo_coalesced = True
        return self
    raise NotImplementedError("openreg: in-place mul of a sparse and a dense tensor of more than 0 dims is not "
                              "implemented")


def mul_scalar_sparse_(self, other):
    return _scale_values_(self, other)


def zero_sparse_(self):
    """``zero_``: no entries left (``sparse_dim x 0`` indices), coalesced; the size is kept."""
    self._coo_indices = _zeros((self._coo_indices._size[0], 0), _dt.int64, self.device)
    self._coo_values = _zeros((0,) + _dense_sizes(self._coo_values), self._dtype, self.device)
    self._coo_coalesced = True
    return self


def neg_sparse(self):
    """``-self``: the values negated, the indices shared."""
    return _coo().make_coo(self._coo_indices.clone(), -self._coo_values, self._size, self._coo_coalesced)


def _check_mm(self, mat2):
    if self.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"mm: expected 2D matrices, got {self.dim()}D and {mat2.dim()}D tensors")
    sparse = self if self.is_sparse else mat2
    if sparse._coo_values.dim() != 1:
        raise NotImplementedError("openreg: mm of a sparse tensor with dense dimensions is not implemented")
    _check_same_device("mm", self, mat2)
    if self._dtype is not mat2._dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(self._dtype)} but found "
                           f"{scalar_type_name(mat2._dtype)}")


def _sparse_times_dense(sparse, dense):
    """``sparse @ dense``: row ``i`` of the result gathers ``value * dense[j]`` of every entry ``(i, j)``."""
    if sparse._size[1] != dense._size[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {sparse._size[1]}, got "
                           f"{dense._size[0]}")
    rows, cols = sparse._coo_indices[0], sparse._coo_indices[1]
    out = _zeros((sparse._size[0], dense._size[1]), dense._dtype, dense.device)
    if rows._size[0]:
        out.index_put_((rows,), sparse._coo_values.unsqueeze(1) * dense[cols], accumulate=True)
    return out


def mm_sparse(self, mat2):
    """``mm`` with a sparse operand (sparse @ dense, dense @ sparse); the result is dense."""
    if self.is_sparse and mat2.is_sparse:
        raise NotImplementedError("openreg: mm of two sparse tensors is not implemented; convert one with "
                                  "to_dense()")
    _check_mm(self, mat2)
    if self.is_sparse:
        return _sparse_times_dense(self, mat2)
    if self._size[1] != mat2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({self._size[0]}x{self._size[1]} and "
                           f"{mat2._size[0]}x{mat2._size[1]})")
    # dense @ sparse = (sparse.T @ dense.T).T
    return _sparse_times_dense(A.t(mat2), A.t(self)).t().contiguous()


def addmm_sparse(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)`` with one sparse matrix among ``mat1``/``mat2``."""
    if self.is_sparse:
        raise NotImplementedError("openreg: addmm with a sparse input (self) is not implemented")
    product = mm_sparse(mat1, mat2)
    out = _scaled(product, alpha)
    if beta == 0:
        return out
    base = self.expand(out.shape)
    return out + (base if beta == 1 else base * beta)


def clone_sparse(self, *, memory_format=None):
    if memory_format is not None and memory_format != "preserve_format":
        raise RuntimeError(f"unsupported memory format option {memory_format}")
    return _coo().make_coo(self._coo_indices.clone(), self._coo_values.clone(), self._size, self._coo_coalesced)


def to_copy_sparse(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
                   memory_format=None):
    from ..layouts import normalize, sparse_coo, strided
    target = normalize(layout)
    if target == strided:
        return _sparse_to_dense(self).to(dtype=dtype, device=device)
    if target is not None and target != sparse_coo:
        raise NotImplementedError(f"openreg: conversion of a sparse COO tensor to {target} is not implemented")
    indices = self._coo_indices.to(device=device, non_blocking=non_blocking, copy=True)
    values = self._coo_values.to(device=device, dtype=dtype, non_blocking=non_blocking, copy=True)
    return _coo().make_coo(indices, values, self._size, self._coo_coalesced)


def transpose_sparse(self, dim0: int, dim1: int):
    """Swap two sparse dims (rows of ``indices``); the result is not coalesced (its order changed)."""
    nd = self.dim()
    d0, d1 = (d + nd if d < 0 else d for d in (dim0, dim1))
    for d in (dim0, dim1):
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
    sd = _sparse_dim(self)
    if d0 == d1:
        return self
    if d0 >= sd or d1 >= sd:
        raise NotImplementedError("openreg: transposing the dense dimensions of a sparse tensor is not "
                                  "implemented")
    order = list(range(sd))
    order[d0], order[d1] = order[d1], order[d0]
    import openreg
    indices = openreg.stack([self._coo_indices[d] for d in order])
    size = list(self._size)
    size[d0], size[d1] = size[d1], size[d0]
    return _coo().make_coo(indices, self._coo_values, size, False)


def t_sparse(self):
    sd, dd = _sparse_dim(self), self._coo_values.dim() - 1
    if sd > 2 or dd > 0:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got {sd} sparse and "
                           f"{dd} dense dimensions")
    return transpose_sparse(self, 0, 1) if self.dim() == 2 else self


def detach_sparse(self):
    return _coo().make_coo(self._coo_indices, self._coo_values, self._size, self._coo_coalesced)


def spmm(input, mat2):
    """``input @ mat2`` with a sparse ``input`` (PyTorch's ``torch.spmm``, the same as ``mm``).

    >>> import openreg
    >>> openreg.spmm(openreg.eye(2).to_sparse(), openreg.ones(2, 1)).tolist()
    [[1.0], [1.0]]
    """
    return A.mm(input, mat2)


# -- the records ----------------------------------------------------------------------------------------------------
_SPARSE = ("SparseCPU", "SparsePrivateUse1")
_CIA = "CompositeImplicitAutograd"


def _on_sparse(fn) -> dict:
    return {key: fn for key in _SPARSE}


sparse_coo_op = Op(
    "_sparse_coo_tensor_with_dims_and_tensors",
    "_sparse_coo_tensor_with_dims_and_tensors(int sparse_dim, int dense_dim, SymInt[] size, Tensor indices, "
    "Tensor values, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
    "bool? is_coalesced=None) -> Tensor",
    kernels={"_sparse_coo_tensor_with_dims_and_tensors": {"Backend": _with_dims_and_tensors}},
    derivatives={"_sparse_coo_tensor_with_dims_and_tensors": Deriv(
        save="indices", name="SparseCooTensorWithDimsAndTensorsBackward0", values=_constructor_values_grad)},
    method=False, extra_functions={"sparse_coo_tensor": sparse_coo_tensor, "spmm": spmm})
indices_op = Op("_indices", "_indices(Tensor(a) self) -> Tensor(a)", kernels={"_indices": _on_sparse(_indices)},
                function=False)
values_op = Op("_values", "_values(Tensor(a) self) -> Tensor(a)", kernels={"_values": _on_sparse(_values)},
               function=False)
checked_indices_op = Op("indices", "indices(Tensor(a) self) -> Tensor(a)",
                        kernels={"indices": _on_sparse(_checked("indices"))}, function=False)
checked_values_op = Op("values", "values(Tensor(a) self) -> Tensor(a)",
                       kernels={"values": _on_sparse(_checked("values"))}, function=False)
nnz_op = Op("_nnz", "_nnz(Tensor self) -> int", kernels={"_nnz": _on_sparse(_nnz)}, function=False)
is_coalesced_op = Op("is_coalesced", "is_coalesced(Tensor self) -> bool",
                     kernels={"is_coalesced": _on_sparse(_is_coalesced)}, function=False)
sparse_dim_op = Op("sparse_dim", "sparse_dim(Tensor self) -> int",
                   kernels={"sparse_dim": {"Backend": _sparse_dim_of, **_on_sparse(_sparse_dim_of)}}, function=False)
dense_dim_op = Op("dense_dim", "dense_dim(Tensor self) -> int",
                  kernels={"dense_dim": {"Backend": _dense_dim_of, **_on_sparse(_dense_dim_of)}}, function=False)
coalesce_op = Op("coalesce", "coalesce(Tensor(a) self) -> Tensor(a)",
                 kernels={"coalesce": _on_sparse(_coalesce_method)}, function=False)
coalesce_impl_op = Op("_coalesce", "_coalesce(Tensor self) -> Tensor", kernels={"_coalesce": _on_sparse(_coalesce)},
                      method=False)
to_dense_op = Op("to_dense", "to_dense(Tensor self, ScalarType? dtype=None, *, bool? masked_grad=None) -> Tensor",
                 kernels={"to_dense": {_CIA: _to_dense_composite}}, function=False)
to_dense_impl_op = Op(
    "_to_dense", "_to_dense(Tensor self, ScalarType? dtype=None, bool? masked_grad=None) -> Tensor",
    kernels={"_to_dense": _on_sparse(_sparse_to_dense)},
    derivatives={"_to_dense": Deriv(save="self", name="ToDenseBackward0", self=lambda g, a: g.sparse_mask(a.self))},
    function=False)
to_sparse_op = Op(
    "to_sparse",
    """
    to_sparse.sparse_dim(Tensor self, int sparse_dim) -> Tensor
    to_sparse(Tensor self, *, Layout? layout=None, int[1]? blocksize=None, int? dense_dim=None) -> Tensor
    """,
    kernels={"to_sparse.sparse_dim": {"Backend": _to_sparse_dims, **_on_sparse(_to_sparse_dims)},
             "to_sparse": {"Backend": _to_sparse_layout, **_on_sparse(_to_sparse_layout)}},
    derivatives={"to_sparse.sparse_dim": Deriv(name="ToSparseBackward0", self=lambda g, a: g.to_dense()),
                 "to_sparse": Deriv(name="ToSparseBackward1", self=lambda g, a: g.to_dense())},
    function=False, method=_to_sparse_method)
sparse_mask_op = Op("sparse_mask", "sparse_mask(Tensor self, Tensor mask) -> Tensor",
                    kernels={"sparse_mask": _on_sparse(_sparse_mask)},
                    derivatives={"sparse_mask": Deriv(save="mask", name="SparseMaskBackward0",
                                                      self=lambda g, a: g.to_dense() if g.is_sparse else g)},
                    function=False)

register(sparse_coo_op, indices_op, values_op, checked_indices_op, checked_values_op, nnz_op, is_coalesced_op,
         sparse_dim_op, dense_dim_op, coalesce_op, coalesce_impl_op, to_dense_op, to_dense_impl_op, to_sparse_op,
         sparse_mask_op)

__all__ = ["add_sparse", "add_sparse_", "addmm_sparse", "clone_sparse", "detach_sparse", "mm_sparse",
           "mul_scalar_sparse", "mul_scalar_sparse_", "mul_sparse", "mul_sparse_", "neg_sparse", "sparse_coo_tensor",
           "spmm", "t_sparse", "to_copy_sparse", "transpose_sparse", "zero_sparse_"]
