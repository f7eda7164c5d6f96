"""Counting and searching: ``unique`` (``_unique2``, ``unique_dim``), ``unique_consecutive``, ``searchsorted``,
``bucketize``, ``bincount``, ``histc``. Their results are integers or counts (not differentiable), computed with
the array module's ``unique``/``searchsorted``/``bincount``/``histogram``, so the device runs them too.

>>> import openreg
>>> x = openreg.tensor([3, 1, 2, 1, 3])
>>> values, counts = x.unique(return_counts=True)
>>> values.tolist(), counts.tolist(), openreg.bucketize(x, openreg.tensor([1, 2])).tolist()
([1, 2, 3], [2, 1, 2], [2, 0, 1, 0, 2])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import wrap_array
from .._dispatch.ops import A
from ..aten.meta_rules import result_type, wrap_dim
from ..tensor import TensorBase
from ._nn_arrays import store, values, xp_of
from ._record import NONDIFF, Op, register

CEA = "CompositeExplicitAutograd"


def _long(xp, arr, device):
    return wrap_array(arr.astype(xp.int64), _dt.int64, device)


def _empty_long(self):
    return wrap_array(xp_of(self).zeros((0,), dtype="int64"), _dt.int64, self.device)


# -- unique, unique_consecutive ----------------------------------------------------------------------------

def _unique2(self, sorted=True, return_inverse=False, return_counts=False):
    xp = xp_of(self)
    x = values(self).reshape(-1)
    kw = {"equal_nan": False} if x.dtype.kind == "f" else {}
    vals, inverse, counts = xp.unique(x, return_inverse=True, return_counts=True, **kw)
    return (store(vals, self._dtype, self.device),
            _long(xp, inverse.reshape(self.shape), self.device) if return_inverse else _empty_long(self),
            _long(xp, counts, self.device) if return_counts else _empty_long(self))


def _unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False):
    xp = xp_of(self)
    d = wrap_dim(dim, max(self.dim(), 1))
    x = values(self)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.shape[d] == 0:
        if x.size == 0 and any(s == 0 for i, s in enumerate(x.shape) if i != d):
            pass
        return (A.clone(self), _empty_long(self), _empty_long(self))
    vals, inverse, counts = xp.unique(x, return_inverse=True, return_counts=True, axis=d)
    return (store(vals, self._dtype, self.device),
            _long(xp, inverse.reshape(-1), self.device) if return_inverse else _empty_long(self),
            _long(xp, counts, self.device) if return_counts else _empty_long(self))


def _unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    xp = xp_of(self)
    x = values(self)
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = wrap_dim(dim, max(self.dim(), 1))
    n = x.shape[d] if x.ndim else 1
    if n == 0:
        return A.clone(self), _empty_long(self), _empty_long(self)
    moved = xp.moveaxis(x, d, 0).reshape(n, -1)
    change = xp.any(moved[1:] != moved[:-1], axis=1) if moved.shape[1] else xp.zeros(n - 1, dtype=bool)
    keep = xp.concatenate([xp.ones(1, dtype=bool), change])
    starts = xp.nonzero(keep)[0]
    taken = xp.take(self._array() if dim is not None else self._array().reshape(-1), starts, axis=d)
    inverse = xp.cumsum(keep) - 1
    counts = xp.diff(xp.concatenate([starts, xp.asarray([n])]))
    if dim is None:
        inverse = inverse.reshape(self.shape)
    return (wrap_array(taken, self._dtype, self.device),
            _long(xp, inverse, self.device) if return_inverse else _empty_long(self),
            _long(xp, counts, self.device) if return_counts else _empty_long(self))


def _unique_result(res, return_inverse, return_counts):
    values, inverse, counts = res
    if not return_inverse and not return_counts:
        return values
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out


def unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The distinct elements (sorted), with the inverse indices and the counts on request; with ``dim``, the
    distinct slices along it.

    >>> import openreg
    >>> openreg.unique(openreg.tensor([[1, 2], [1, 2], [0, 5]]), dim=0).tolist()
    [[0, 5], [1, 2]]
    """
    if dim is None:
        res = A._unique2(input, sorted, return_inverse, return_counts)
    else:
        res = A.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _unique_result(res, return_inverse, return_counts)


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapses each run of equal consecutive elements (or slices along ``dim``) to one.

    >>> import openreg
    >>> openreg.unique_consecutive(openreg.tensor([1, 1, 2, 2, 1])).tolist()
    [1, 2, 1]
    """
    res = A.unique_consecutive(input, return_inverse, return_counts, dim)
    return _unique_result(res, return_inverse, return_counts)


_NONDIFF3 = {"_unique2": NONDIFF, "unique_dim": NONDIFF, "unique_consecutive": NONDIFF}

unique_op = Op("_unique2", """
    _unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)  [dynamic_output_shape]
    """, kernels={"_unique2": {"Backend": _unique2}}, device=True, derivatives={"_unique2": NONDIFF},
    function=False, method=False, extra_functions={"unique": unique}, extra_methods={"unique": unique},
    doc="""The distinct elements, inverse indices and counts (empty unless asked for) of all elements.

    >>> import openreg
    >>> openreg.ops.aten._unique2(openreg.tensor([2, 1, 2]), True, True)[1].tolist()
    [1, 0, 1]
    """)

unique_dim = Op("unique_dim", """
    unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)  [dynamic_output_shape]
    """, kernels={"unique_dim": {"Backend": _unique_dim}}, device=True, derivatives={"unique_dim": NONDIFF},
    function=False, method=False,
    doc="""The distinct slices along ``dim``, inverse indices and counts.

    >>> import openreg
    >>> openreg.ops.aten.unique_dim(openreg.tensor([[1, 1], [1, 1], [2, 3]]), 1)[0].tolist()
    [[1, 1], [1, 1], [2, 3]]
    """)

unique_consecutive_op = Op("unique_consecutive", """
    unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)  [dynamic_output_shape]
    """, kernels={"unique_consecutive": {"Backend": _unique_consecutive}}, device=True,
    derivatives={"unique_consecutive": NONDIFF},
    function=unique_consecutive, method=unique_consecutive,
    doc="""Runs of equal consecutive elements collapsed, with inverse indices and run lengths.

    >>> import openreg
    >>> openreg.ops.aten.unique_consecutive(openreg.tensor([5, 5, 6]), False, True)[2].tolist()
    [2, 1]
    """)


# -- searchsorted, bucketize -----------------------------------------------------------------------------------

def _side(right, side) -> str:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        return side
    return "right" if right else "left"


def _searchsorted(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None):
    s = _side(right, side)
    seq = sorted_sequence
    scalar = not isinstance(self, TensorBase)
    if seq.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if seq.dim() > 1 and (scalar or list(seq.shape[:-1]) != list(self.shape[:-1]) or seq.dim() != self.dim()):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor "
                           f"{[] if scalar else list(self.shape)}")
    if sorter is not None:
        if sorter._dtype is not _dt.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but got "
                               f"{sorter._dtype.scalar_name}")
        if list(sorter.shape) != list(seq.shape):
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(seq.shape)}and got sorter tensor {list(sorter.shape)}")
    xp = xp_of(seq)
    common = result_type(seq, self)
    work = common.compute_numpy if common.is_floating_point else common.numpy
    b = values(seq).astype(work)
    if sorter is not None:
        b = xp.take_along_axis(b, sorter._array(), axis=-1)
    v = xp.asarray(self, dtype=work) if scalar else values(self, like=seq).astype(work)
    if b.ndim == 1:
        out = xp.searchsorted(b, v, side=s)
    else:
        rows_b = b.reshape(-1, b.shape[-1])
        rows_v = v.reshape(rows_b.shape[0], -1)
        out = xp.stack([xp.searchsorted(rb, rv, side=s) for rb, rv in zip(rows_b, rows_v)]).reshape(v.shape)
    dtype = _dt.int32 if out_int32 else _dt.int64
    return wrap_array(xp.asarray(out).astype(dtype.numpy), dtype, seq.device)


def searchsorted(sorted_sequence, input, *, out_int32: bool = False, right: bool = False, side=None, out=None,
                 sorter=None):
    """Insertion positions of ``input``'s values into the sorted last dim of ``sorted_sequence``.

    >>> import openreg
    >>> openreg.searchsorted(openreg.tensor([1, 3, 5]), openreg.tensor([3, 6]), right=True).tolist()
    [2, 3]
    """
    kw = {"out_int32": out_int32, "right": right, "side": side, "sorter": sorter}
    if isinstance(input, TensorBase):
        result = A.searchsorted__Tensor(sorted_sequence, input, **kw)
    else:
        result = A.searchsorted__Scalar(sorted_sequence, input, **kw)
    if out is None:
        return result
    from .linalg import _copy_into
    return _copy_into("searchsorted", result, out)


searchsorted_op = Op("searchsorted", """
    searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor
    searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor
    """, kernels={"searchsorted.Tensor": {"Backend": _searchsorted}, "searchsorted.Scalar": {"Backend": _searchsorted}},
    device=True, function=searchsorted, method=False,
    doc="""Insertion positions into a sorted sequence (``openreg.searchsorted``).

    >>> import openreg
    >>> openreg.ops.aten.searchsorted.Scalar(openreg.tensor([1, 3, 5]), 4).item()
    2
    """)


def _bucketize(self, boundaries, *, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return _searchsorted(boundaries, self, out_int32=out_int32, right=right)


def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False, out=None):
    """The bucket (index into the sorted 1-D ``boundaries``) of each value of ``input``.

    >>> import openreg
    >>> openreg.bucketize(openreg.tensor([0.5, 1.0, 7.0]), openreg.tensor([1.0, 5.0])).tolist()
    [0, 0, 2]
    """
    if isinstance(input, TensorBase):
        result = A.bucketize__Tensor(input, boundaries, out_int32=out_int32, right=right)
    else:
        result = A.bucketize__Scalar(input, boundaries, out_int32=out_int32, right=right)
    if out is None:
        return result
    from .linalg import _copy_into
    return _copy_into("bucketize", result, out)


bucketize_op = Op("bucketize", """
    bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
    bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
    """, kernels={"bucketize.Tensor": {"Backend": _bucketize}, "bucketize.Scalar": {"Backend": _bucketize}},
    device=True, function=bucketize, method=bucketize,
    doc="""Bucket indices of values given sorted boundaries (``openreg.bucketize``).

    >>> import openreg
    >>> openreg.ops.aten.bucketize.Scalar(3, openreg.tensor([1, 3, 5]), right=True).item()
    2
    """)


# -- bincount, histc ------------------------------------------------------------------------------------------

def _bincount(self, weights=None, minlength=0):
    if self._dtype.is_floating_point or self._dtype.is_complex or self._dtype is _dt.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{self._dtype.scalar_name}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = xp_of(self)
    x = self._array()
    if self.dim() != 1 or (x.size and int(x.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != self.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return _long(xp, xp.bincount(x, minlength=minlength), self.device)
    w = values(weights, like=self).astype(xp.float64)
    dtype = weights._dtype if weights._dtype in (_dt.float32, _dt.float64) else _dt.float64
    return store(xp.bincount(x, weights=w, minlength=minlength), dtype, self.device)


bincount = Op("bincount", """
    bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor  [dynamic_output_shape]
    """, kernels={"bincount": {"Backend": _bincount}}, device=True, derivatives={"bincount": NONDIFF},
    doc="""How often each non-negative integer occurs (weighted sums with ``weights``).

    >>> import openreg
    >>> openreg.bincount(openreg.tensor([1, 1, 3]), minlength=5).tolist()
    [0, 2, 0, 1, 0]
    """)


def _histc(self, bins=100, min=0, max=0):
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{self._dtype.scalar_name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if max < min:
        raise RuntimeError("torch.histc: max must be larger than min")
    xp = xp_of(self)
    x = values(self).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        finite = x[xp.isfinite(x)]
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (xp.isfinite(xp.asarray(lo)) and xp.isfinite(xp.asarray(hi))):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    x = x[(x >= lo) & (x <= hi)]
    counts, _ = xp.histogram(x, bins=bins, range=(lo, hi))
    return store(counts.astype(xp.float64), self._dtype, self.device)


histc = Op("histc", """
    histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor
    """, kernels={"histc": {"Backend": _histc}}, device=True, derivatives={"histc": NONDIFF},
    doc="""A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0).

    >>> import openreg
    >>> openreg.histc(openreg.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
    [0.0, 2.0, 1.0, 0.0]
    """)

register(unique_op, unique_dim, unique_consecutive_op, searchsorted_op, bucketize_op, bincount, histc)
