"""Products and diagonals built from other operators (CompositeImplicitAutograd, so gradients and the device come
from those): ``mv``, ``addmv``, ``addr``, ``addbmm``, ``inner``, ``tensordot``, ``kron``, ``cross`` /
``linalg_cross``, ``dist``, ``cdist``, ``block_diag`` (``diag``, ``trace`` ... are in ``diag.py``).

>>> import openreg
>>> m = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> openreg.mv(m, openreg.tensor([1.0, 1.0])).tolist(), openreg.trace(m).item(), openreg.diag(m).tolist()
([3.0, 7.0], 5.0, [1.0, 4.0])
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import broadcast_shapes, result_type, wrap_dim
from ..tensor import TensorBase
from ._record import Op, register
from .linalg import _copy_into

CIA = "CompositeImplicitAutograd"


def _variants(name: str, fn, out: bool = True, inplace: bool = False, out_name: str | None = None) -> dict:
    """The kernels of a composite record: ``fn``, its ``out=`` overload (computed first, then written into a
    resized ``out``) and its in-place overload (the result copied into ``self``)."""
    kernels = {name: {CIA: fn}}
    if out:
        kernels[out_name or f"{name}.out"] = {CIA: lambda *args, out, **kw: _copy_into(name, fn(*args, **kw), out)}
    if inplace:
        def inplace_fn(self, *args, **kw):
            result = fn(self, *args, **kw)
            if tuple(result.shape) != tuple(self.shape):
                raise RuntimeError(f"{name}_: the result of shape {list(result.shape)} does not fit self of shape "
                                   f"{list(self.shape)}")
            return A.copy_(self, result)
        kernels[f"{name}_"] = {CIA: inplace_fn}
    return kernels


def _scaled_sum(name: str, self, product, beta, alpha):
    """``beta * self + alpha * product``; ``self`` is ignored when ``beta`` is 0 (NaN in it does not propagate)."""
    if (isinstance(beta, bool) or isinstance(alpha, bool)) and self._dtype is not _dt.bool:
        raise RuntimeError("Boolean beta only supported for Boolean results.")
    if not (self._dtype.is_floating_point or self._dtype.is_complex) and (isinstance(beta, float) or
                                                                           isinstance(alpha, float)):
        raise RuntimeError(f"For integral input tensors, argument {'beta' if isinstance(beta, float) else 'alpha'} "
                           f"must not be a floating point number.")
    scaled = product if alpha == 1 else product * alpha
    size = broadcast_shapes(tuple(self.shape), tuple(scaled.shape))
    if size != tuple(scaled.shape):
        raise RuntimeError(f"The expanded size of the tensor ({scaled.shape[-1] if scaled.dim() else 1}) must "
                           f"match the existing size ({self.shape[-1]}) at non-singleton dimension "
                           f"{len(size) - 1}.  Target sizes: {list(scaled.shape)}.  Tensor sizes: "
                           f"{list(self.shape)}")
    if beta == 0:
        return scaled + A.zeros_like(self)
    return scaled + (self if beta == 1 else self * beta)


# -- mv, addmv, addr, addbmm ------------------------------------------------------------------------------

def _mv(self, vec):
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, {vec.dim()}")
    if self.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self.shape[0]}), mat ({self.shape[0]}x{self.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    return A.matmul(self, vec)


mv = Op("mv", """
    mv(Tensor self, Tensor vec) -> Tensor
    mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("mv", _mv),
    doc="""Matrix-vector product.

    >>> import openreg
    >>> openreg.mv(openreg.eye(2), openreg.tensor([2.0, 3.0])).tolist()
    [2.0, 3.0]
    """)


def _addmv(self, mat, vec, *, beta=1, alpha=1):
    if mat.dim() != 2 or vec.dim() != 1 or self.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}")
    if len({self._dtype, mat._dtype, vec._dtype}) > 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {self._dtype.scalar_name}, "
                           f"{mat._dtype.scalar_name}, and {vec._dtype.scalar_name}")
    return _scaled_sum("addmv", self, _mv(mat, vec), beta, alpha)


addmv = Op("addmv", """
    addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    addmv.out(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
    addmv_(Tensor(a!) self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
    """, kernels=_variants("addmv", _addmv, inplace=True),
    doc="""``beta * input + alpha * (mat @ vec)``.

    >>> import openreg
    >>> openreg.addmv(openreg.ones(2), openreg.eye(2), openreg.tensor([2.0, 3.0]), alpha=2).tolist()
    [5.0, 7.0]
    """)


def _addr(self, vec1, vec2, *, beta=1, alpha=1):
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    prod = A.outer(vec1, vec2)
    if self._dtype is _dt.bool and vec1._dtype is _dt.bool:
        return (prod & alpha) | (self & beta) if not isinstance(alpha, bool) else \
            A.logical_or(A.logical_and(prod, alpha), A.logical_and(self, beta))
    return _scaled_sum("addr", self, prod, beta, alpha)


addr = Op("addr", """
    addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    addr.out(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
    addr_(Tensor(a!) self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
    """, kernels=_variants("addr", _addr, inplace=True),
    doc="""``beta * input + alpha * outer(vec1, vec2)``.

    >>> import openreg
    >>> openreg.addr(openreg.zeros(2, 2), openreg.tensor([1.0, 2.0]), openreg.tensor([3.0, 4.0])).tolist()
    [[3.0, 4.0], [6.0, 8.0]]
    """)


def _addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    return _scaled_sum("addbmm", self, A.sum__dim_IntList(A.bmm(batch1, batch2), [0]), beta, alpha)


addbmm = Op("addbmm", """
    addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    addbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
    addbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
    """, kernels=_variants("addbmm", _addbmm, inplace=True),
    doc="""``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.

    >>> import openreg
    >>> openreg.addbmm(openreg.zeros(1, 1), openreg.ones(3, 1, 2), openreg.ones(3, 2, 1)).tolist()
    [[6.0]]
    """)


# -- tensordot, inner, kron ------------------------------------------------------------------------------

def _tensordot(self, other, dims_self, dims_other):
    if len(dims_self) != len(dims_other):
        raise RuntimeError(f"both dimension lists should have same length, got {len(dims_self)} and "
                           f"{len(dims_other)}")
    ds = [wrap_dim(d, self.dim()) for d in dims_self]
    do = [wrap_dim(d, other.dim()) for d in dims_other]
    for d1, d2, r1, r2 in zip(ds, do, dims_self, dims_other):
        s1, s2 = self.shape[d1], other.shape[d2]
        if s1 != s2 and s1 != 1 and s2 != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {r1} and "
                               f"second has size {s2} in dim {r2}")
    free_s = [d for d in range(self.dim()) if d not in ds]
    free_o = [d for d in range(other.dim()) if d not in do]
    k = 1
    for d in ds:
        k *= max(self.shape[d], other.shape[do[ds.index(d)]])
    a = self.permute(free_s + ds)
    b = other.permute(do + free_o)
    if any(self.shape[d1] != other.shape[d2] for d1, d2 in zip(ds, do)):   # a size-1 side is broadcast
        sizes = [max(self.shape[d1], other.shape[d2]) for d1, d2 in zip(ds, do)]
        a = a.expand([self.shape[d] for d in free_s] + sizes)
        b = b.expand(sizes + [other.shape[d] for d in free_o])
    out_shape = [self.shape[d] for d in free_s] + [other.shape[d] for d in free_o]
    ps = 1
    for d in free_s:
        ps *= self.shape[d]
    return A.mm(a.reshape(ps, k), b.reshape(k, -1)).reshape(out_shape)


def tensordot(a, b, dims=2, out=None):
    """Sums the products of ``a`` and ``b`` over the last ``dims`` dims of ``a`` and the first of ``b`` (or over
    the two lists of ``dims``).

    >>> import openreg
    >>> openreg.tensordot(openreg.ones(2, 3), openreg.ones(3, 4), dims=1).shape
    openreg.Size([2, 4])
    """
    if isinstance(dims, TensorBase):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        ds, do = list(range(-dims, 0)), list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists")
        ds, do = dims
        ds = [ds] if isinstance(ds, int) else list(ds)
        do = [do] if isinstance(do, int) else list(do)
    if out is not None:
        return A.tensordot__out(a, b, ds, do, out=out)
    return A.tensordot(a, b, ds, do)


tensordot_op = Op("tensordot", """
    tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor
    tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] dims_other, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("tensordot", _tensordot), function=tensordot, method=False,
    doc="""Contraction of two tensors over the given dims (``openreg.tensordot(a, b, dims)``).

    >>> import openreg
    >>> openreg.ops.aten.tensordot(openreg.ones(2, 3), openreg.ones(3), [1], [0]).tolist()
    [3.0, 3.0]
    """)


def _inner(self, other):
    if self.dim() == 0 or other.dim() == 0:
        return self * other
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self.shape)} and {list(other.shape)}")
    return _tensordot(self, other, [-1], [-1])


inner = Op("inner", """
    inner(Tensor self, Tensor other) -> Tensor
    inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("inner", _inner),
    doc="""Inner product over the last dims (scalars multiply).

    >>> import openreg
    >>> openreg.inner(openreg.tensor([1.0, 2.0]), openreg.tensor([3.0, 4.0])).item()
    11.0
    """)


def _kron(self, other):
    nd = max(self.dim(), other.dim())
    a = self.reshape([1] * (nd - self.dim()) + list(self.shape))
    b = other.reshape([1] * (nd - other.dim()) + list(other.shape))
    a_shape = [v for s in a.shape for v in (s, 1)]
    b_shape = [v for s in b.shape for v in (1, s)]
    prod = a.reshape(a_shape) * b.reshape(b_shape)
    return prod.reshape([sa * sb for sa, sb in zip(a.shape, b.shape)])


kron = Op("kron", """
    kron(Tensor self, Tensor other) -> Tensor
    kron.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("kron", _kron),
    doc="""Kronecker product.

    >>> import openreg
    >>> openreg.kron(openreg.eye(2), openreg.tensor([[1.0, 2.0]])).tolist()
    [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0]]
    """)


# -- cross, dist, cdist -------------------------------------------------------------------------------------

def _linalg_cross(self, other, *, dim=-1):
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, self.dim())
    if self.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {self.shape[d]} and "
                           f"{other.shape[d]}")
    size = list(broadcast_shapes(tuple(self.shape), tuple(other.shape)))
    a, b = self.expand(size), other.expand(size)
    from .._array_bridge import wrap_array
    from ._compute import xp_of
    xp = xp_of(self)
    idx = [wrap_array(xp.asarray(v, dtype=xp.int64), _dt.int64, self.device) for v in ((1, 2, 0), (2, 0, 1))]
    p, q = idx
    return A.index_select(a, d, p) * A.index_select(b, d, q) - A.index_select(a, d, q) * A.index_select(b, d, p)


linalg_cross = Op("linalg_cross", """
    linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor
    linalg_cross.out(Tensor self, Tensor other, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("linalg_cross", _linalg_cross), function=False, method=False,
    doc="""The cross product of 3-vectors along ``dim`` (``openreg.linalg.cross``).

    >>> import openreg
    >>> openreg.linalg.cross(openreg.tensor([1.0, 0.0, 0.0]), openreg.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """)


def _cross(self, other, dim=None):
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=3)
        size = broadcast_shapes(tuple(self.shape), tuple(other.shape))
        dims = [i for i, s in enumerate(size) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return _linalg_cross(self, other, dim=dim)


cross = Op("cross", """
    cross(Tensor self, Tensor other, int? dim=None) -> Tensor
    cross.out(Tensor self, Tensor other, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("cross", _cross),
    doc="""The cross product along ``dim`` (without ``dim``: the first dim of size 3, deprecated as in PyTorch).

    >>> import openreg
    >>> openreg.cross(openreg.tensor([[0.0, 1.0, 0.0]]), openreg.tensor([[0.0, 0.0, 1.0]]), dim=1).tolist()
    [[1.0, 0.0, 0.0]]
    """)


def _dist(self, other, p=2):
    return A.linalg_vector_norm(self - other, p)


dist = Op("dist", """
    dist(Tensor self, Tensor other, Scalar p=2) -> Tensor
    dist.out(Tensor self, Tensor other, Scalar p=2, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("dist", _dist),
    doc="""The ``p``-norm of ``input - other`` (broadcast).

    >>> import openreg
    >>> openreg.dist(openreg.tensor([3.0, 0.0]), openreg.tensor([0.0, 4.0])).item()
    5.0
    """)


def _cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.dim() < 2 else 2} got: "
                           f"{min(x1.dim(), x2.dim())}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not (x1._dtype.is_floating_point and x2._dtype.is_floating_point):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {x1._dtype.scalar_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in (None, 0, 1, 2):
        raise RuntimeError(f"{compute_mode} is not a valid value for compute_mode")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return A.linalg_vector_norm(diff, p, [-1])


def cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` (..., P, M) and ``x2`` (..., R, M).

    >>> import openreg
    >>> openreg.cdist(openreg.tensor([[0.0, 0.0]]), openreg.tensor([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[5.0, 1.0]]
    """
    modes = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return A.cdist(x1, x2, p, modes[compute_mode])


cdist_op = Op("cdist", """
    cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor
    """, kernels={"cdist": {CIA: _cdist}}, function=cdist, method=False,
    doc="""Pairwise distances (``openreg.cdist``); the differences are formed explicitly, so every ``p`` takes the
    same exact path.

    >>> import openreg
    >>> openreg.ops.aten.cdist(openreg.zeros(1, 2), openreg.ones(1, 2), 1.0).tolist()
    [[2.0]]
    """)


# -- block_diag ------------------------------------------------------------------------------------------------

def _block_diag(tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return A.empty__memory_format([1, 0])
    for i, m in enumerate(mats):
        if m.device != mats[0].device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same device. Input 0 is on "
                               f"device {mats[0].device} and input {i} is on device {m.device}.")
    dtype = result_type(*mats)
    cols = sum(m.shape[1] for m in mats)
    parts, left = [], 0
    for m in mats:
        w = m.shape[1]
        parts.append(A.constant_pad_nd(m.to(dtype), [left, cols - left - w]))
        left += w
    return A.cat(parts, 0)


def block_diag(*tensors):
    """The block diagonal matrix of the given tensors (0-d and 1-d ones count as one row).

    >>> import openreg
    >>> openreg.block_diag(openreg.ones(1, 2), openreg.tensor(5.0)).tolist()
    [[1.0, 1.0, 0.0], [0.0, 0.0, 5.0]]
    """
    return A.block_diag(list(tensors))


block_diag_op = Op("block_diag", """
    block_diag(Tensor[] tensors) -> Tensor
    block_diag.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels=_variants("block_diag", _block_diag), function=block_diag, method=False,
    doc="""The block diagonal matrix of a list of tensors.

    >>> import openreg
    >>> openreg.ops.aten.block_diag([openreg.tensor([[1]]), openreg.tensor([[2]])]).tolist()
    [[1, 0], [0, 2]]
    """)

register(mv, addmv, addr, addbmm, tensordot_op, inner, kron, linalg_cross, cross, dist, cdist_op, block_diag_op)
