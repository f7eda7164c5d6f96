"""Order statistics and selections: ``median``/``nanmedian``, ``kthvalue``, ``mode``, ``cummax``/``cummin``,
``logcumsumexp``, ``quantile``/``nanquantile``, ``masked_select``, ``take_along_dim``.

The order statistics sort once along the dim (stable, NaN last, written against the array module so the device
runs them too) and pick positions; their values' gradients go back to the picked positions (``median()`` of all
elements spreads its gradient evenly over the elements equal to the median, as PyTorch). ``quantile``,
``logcumsumexp``, ``masked_select`` and ``take_along_dim`` are compositions of other operators.

>>> import openreg
>>> x = openreg.tensor([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 5.0, 5.0]])
>>> x.median(1).values.tolist(), x.mode(1).values.tolist(), x.kthvalue(3, 1).indices.tolist()
([2.0, 2.0], [3.0, 2.0], [1, 2])
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import wrap_array
from .._dispatch.ops import A
from ..aten.meta_rules import reduce_shape, wrap_dim
from ..tensor import TensorBase
from ._nn_arrays import like, store, values, xp_of
from ._record import Deriv, Op, register

CIA, CEA = "CompositeImplicitAutograd", "CompositeExplicitAutograd"


def scan(xp, op, x, axis):
    """Inclusive scan of the associative binary ufunc ``op`` along ``axis`` in log2(n) vectorized steps
    (Hillis-Steele): CuPy's ``ufunc.accumulate`` supports ``add`` only."""
    y = xp.moveaxis(x, axis, -1).copy()
    n, shift = y.shape[-1], 1
    while shift < n:
        y[..., shift:] = op(y[..., shift:], y[..., :-shift].copy())
        shift *= 2
    return xp.moveaxis(y, -1, axis)


def _stable_argsort(xp, x, axis):
    return xp.argsort(x, axis=axis, kind="stable") if xp is np else xp.argsort(x, axis=axis)


def _take(self, xp, idx, axis):
    """Elements of ``self`` (storage representation, so bfloat16 bits are kept) at ``idx`` along ``axis``."""
    return wrap_array(xp.take_along_axis(self._array(), idx, axis=axis), self._dtype, self.device)


def _check_real(op: str, self) -> None:
    if self._dtype.is_complex:
        raise RuntimeError(f"{op}() does not support complex inputs")


def _pick(op: str, self, dim, keepdim, positions):
    """Values and int64 indices of the sorted positions ``positions(xp, x, n, axis)`` along ``dim``."""
    _check_real(op, self)
    if self.dim() == 0:
        return A.clone(self), wrap_array(xp_of(self).zeros((), dtype="int64"), _dt.int64, self.device)
    d = wrap_dim(dim, self.dim())
    n = self.shape[d]
    if n == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    xp = xp_of(self)
    x = values(self)
    order = _stable_argsort(xp, x, d)
    pos = positions(xp, x, n, d).astype(xp.int64)
    idx = xp.take_along_axis(order, pos, axis=d)
    vals, ind = _take(self, xp, idx, d), wrap_array(idx.astype(xp.int64), _dt.int64, self.device)
    if not keepdim:
        vals, ind = A.squeeze___dim(vals, d), A.squeeze___dim(ind, d)   # in place: results are no views
    return vals, ind


def _nan_count(xp, x, d):
    if x.dtype.kind != "f":
        return xp.zeros(x.shape[:d] + (1,) + x.shape[d + 1:], dtype=xp.int64)
    return xp.isnan(x).sum(axis=d, keepdims=True)


def _median_positions(xp, x, n, d):
    nnan = _nan_count(xp, x, d)
    return xp.where(nnan > 0, n - nnan, (n - 1) // 2)           # a NaN makes the median NaN (the first one)


def _nanmedian_positions(xp, x, n, d):
    valid = n - _nan_count(xp, x, d)
    return xp.where(valid > 0, (valid - 1) // 2, 0)


def meta_reduced_pair(self, dim, keepdim):
    d = wrap_dim(dim, max(self.dim(), 1))
    size = reduce_shape(tuple(self._size), [d], keepdim) if self.dim() else ()
    return like(self, size), like(self, size, _dt.int64)


def scatter_values_grad(g, a):
    """Gradient of values picked at ``a.result1`` along ``a.dim``: scattered back (into zeros)."""
    if g[0] is None:
        return None
    if a.self.dim() == 0:
        return g[0]
    d = wrap_dim(a.dim, a.self.dim())
    gv, idx = g[0], a.result1
    if not a.keepdim:
        gv, idx = gv.unsqueeze(d), idx.unsqueeze(d)
    zeros = A.zeros(list(a.self.shape), dtype=gv.dtype, device=gv.device)
    return A.scatter_add(zeros, d, idx, gv)


def gather_values_jvp(t, a):
    if a.self.dim() == 0:
        return [t, None]
    d = wrap_dim(a.dim, a.self.dim())
    idx = a.result1 if a.keepdim else a.result1.unsqueeze(d)
    out = A.gather(t, d, idx)
    return [out if a.keepdim else out.squeeze(d), None]


_PICK_DERIV = Deriv(save="self dim keepdim result1", self=scatter_values_grad, jvp={"self": gather_values_jvp})


def _all_median(nan_aware: bool):
    def kernel(self):
        flat = self.reshape(-1)
        if flat.shape[0] == 0:
            return A.full([], math.nan, dtype=self._dtype, device=self.device)
        positions = _nanmedian_positions if nan_aware else _median_positions
        return _pick("median", flat, 0, False, positions)[0]
    return kernel


def _evenly_distribute(g, a):
    """PyTorch's median() backward: the gradient shared by the elements equal to the median (NaN: the NaNs)."""
    x, r = a.self, a.result
    hit = (x == r) | (x.isnan() & r.isnan())
    hit = hit.to(g.dtype)
    return hit * (g / hit.sum())


def _evenly_jvp(t, a):
    x, r = a.self, a.result
    hit = ((x == r) | (x.isnan() & r.isnan())).to(t.dtype)
    return (t * hit).sum() / hit.sum()


_ValuesIndices = {name: namedtuple(name, ["values", "indices"]) for name in
                  ("median", "nanmedian", "kthvalue", "mode", "cummax", "cummin")}


def _pair_function(name: str, op_dim, op_all=None):
    """``openreg.<name>(input, dim, keepdim=False)`` returning PyTorch's named (values, indices) pair; without
    ``dim`` the reduction over all elements (median/nanmedian)."""
    result_type = _ValuesIndices[name]

    def fn(input, *args, out=None, **kwargs):
        if op_all is not None and not args and "dim" not in kwargs:
            result = op_all(input)
            return result if out is None else A.copy_(A.resize_(out, []), result)
        if out is not None:
            raise NotImplementedError(f"openreg: {name}(..., out=) is not implemented")
        return result_type(*op_dim(input, *args, **kwargs))
    fn.__name__ = name
    return fn


median = Op("median", """
    median(Tensor self) -> Tensor
    median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    """, kernels={"median": {CEA: _all_median(False)},
                  "median.dim": {CEA: lambda self, dim, keepdim=False: _pick("median", self, dim, keepdim,
                                                                              _median_positions),
                                 "Meta": meta_reduced_pair}},
    derivatives={"median": Deriv(save="self result", self=_evenly_distribute, jvp={"self": _evenly_jvp}),
                 "median.dim": _PICK_DERIV},
    function=_pair_function("median", lambda *a, **k: A.median__dim(*a, **k), lambda x: A.median(x)),
    method=_pair_function("median", lambda *a, **k: A.median__dim(*a, **k), lambda x: A.median(x)),
    doc="""The lower median (NaN if any element is NaN), overall or along ``dim`` with its index.

    >>> import openreg
    >>> openreg.median(openreg.tensor([3.0, 1.0, 2.0, 4.0])).item()
    2.0
    """)

nanmedian = Op("nanmedian", """
    nanmedian(Tensor self) -> Tensor
    nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    """, kernels={"nanmedian": {CEA: _all_median(True)},
                  "nanmedian.dim": {CEA: lambda self, dim, keepdim=False: _pick("nanmedian", self, dim, keepdim,
                                                                                 _nanmedian_positions),
                                    "Meta": meta_reduced_pair}},
    derivatives={"nanmedian": Deriv(save="self result", self=_evenly_distribute, jvp={"self": _evenly_jvp}),
                 "nanmedian.dim": _PICK_DERIV},
    function=_pair_function("nanmedian", lambda *a, **k: A.nanmedian__dim(*a, **k), lambda x: A.nanmedian(x)),
    method=_pair_function("nanmedian", lambda *a, **k: A.nanmedian__dim(*a, **k), lambda x: A.nanmedian(x)),
    doc="""The lower median of the non-NaN elements.

    >>> import openreg
    >>> openreg.nanmedian(openreg.tensor([3.0, openreg.nan, 1.0])).item()
    1.0
    """)


def _kthvalue(self, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, max(self.dim(), 1))
    n = self.shape[d] if self.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _pick("kthvalue", self, dim, keepdim, lambda xp, x, n, d: xp.full(
        x.shape[:d] + (1,) + x.shape[d + 1:], k - 1, dtype=xp.int64))


kthvalue = Op("kthvalue", """
    kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
    """, kernels={"kthvalue": {CEA: _kthvalue,
                               "Meta": lambda self, k, dim=-1, keepdim=False: meta_reduced_pair(self, dim, keepdim)}},
    derivatives={"kthvalue": _PICK_DERIV},
    function=_pair_function("kthvalue", lambda *a, **k: A.kthvalue(*a, **k)),
    method=_pair_function("kthvalue", lambda *a, **k: A.kthvalue(*a, **k)),
    doc="""The ``k``-th smallest element along ``dim`` and its index.

    >>> import openreg
    >>> openreg.kthvalue(openreg.tensor([5.0, 1.0, 3.0]), 2).values.item()
    3.0
    """)


def _mode_positions(xp, x, n, d):
    """The end of the first (smallest-valued) longest run of equal values in sorted order: the mode, and, the
    sort being stable, its last occurrence in the input (PyTorch's index)."""
    s = xp.sort(x, axis=d)
    shape = [1] * x.ndim
    shape[d] = n
    ar = xp.arange(n).reshape(shape)
    diff = xp.take(s, xp.arange(1, n), axis=d) != xp.take(s, xp.arange(n - 1), axis=d)
    first = xp.ones(x.shape[:d] + (1,) + x.shape[d + 1:], dtype=bool)
    start = scan(xp, xp.maximum, xp.where(xp.concatenate([first, diff], axis=d), ar, 0), d)
    count = ar - start + 1
    best = count.max(axis=d, keepdims=True)
    return xp.expand_dims(xp.argmax(count == best, axis=d), d)


def _mode(self, dim=-1, keepdim=False):
    return _pick("mode", self, dim, keepdim, _mode_positions)


mode = Op("mode", """
    mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
    """, kernels={"mode": {CEA: _mode, "Meta": lambda self, dim=-1, keepdim=False: meta_reduced_pair(self, dim,
                                                                                                        keepdim)}},
    derivatives={"mode": _PICK_DERIV},
    function=_pair_function("mode", lambda *a, **k: A.mode(*a, **k)),
    method=_pair_function("mode", lambda *a, **k: A.mode(*a, **k)),
    doc="""The most frequent value along ``dim`` (the smallest of equally frequent ones) and its last index.

    >>> import openreg
    >>> openreg.mode(openreg.tensor([1, 2, 2, 1, 3])).indices.item()
    3
    """)


# -- cummax, cummin, logcumsumexp ----------------------------------------------------------------------------

def _cumext(name: str, greater: bool):
    def kernel(self, dim):
        _check_real(name, self)
        if self.dim() == 0:
            return A.clone(self), wrap_array(xp_of(self).zeros((), dtype="int64"), _dt.int64, self.device)
        d = wrap_dim(dim, self.dim())
        xp = xp_of(self)
        x = values(self)
        if x.shape[d] == 0:
            return A.clone(self), wrap_array(xp.zeros(x.shape, dtype=xp.int64), _dt.int64, self.device)
        ufunc = xp.maximum if greater else xp.minimum
        if x.dtype.kind == "b":
            x = x.astype(xp.int8)
        run = scan(xp, ufunc, x, d)                             # NaN propagates, as PyTorch's
        shape = [1] * x.ndim
        shape[d] = x.shape[d]
        ar = xp.arange(x.shape[d]).reshape(shape)
        hit = x == run
        if x.dtype.kind == "f":
            hit = hit | xp.isnan(x)
        idx = scan(xp, xp.maximum, xp.where(hit, ar, 0), d)     # the last position reaching the extreme
        return _take(self, xp, idx, d), wrap_array(idx.astype(xp.int64), _dt.int64, self.device)

    def meta(self, dim):
        wrap_dim(dim, max(self.dim(), 1))
        return like(self, self._size), like(self, self._size, _dt.int64)

    fn = _pair_function(name, lambda *a, **k: getattr(A, name)(*a, **k))
    return Op(name, f"""
    {name}(Tensor self, int dim) -> (Tensor values, Tensor indices)
    """, kernels={name: {CEA: kernel, "Meta": meta}},
        derivatives={name: Deriv(save="self dim result1", self=lambda g, a: scatter_values_grad(
            g, _KeepDim(a)), jvp={"self": lambda t, a: gather_values_jvp(t, _KeepDim(a))})},
        function=fn, method=fn,
        doc=f"""The running {'maximum' if greater else 'minimum'} along ``dim`` and where it was last reached.

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([1, 3, 2, 0]), 0).values.tolist()
    {[1, 3, 3, 3] if greater else [1, 1, 1, 0]}
    """)


class _KeepDim:
    """The saved arguments of a scan seen as a keepdim reduction (same-shape values and indices)."""

    def __init__(self, a):
        self.self, self.dim, self.result1, self.keepdim = a.self, a.dim, a.result1, True


cummax = _cumext("cummax", True)
cummin = _cumext("cummin", False)


def _logcumsumexp(self, dim):
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{self._dtype.scalar_name}'")
    if self.dim() == 0:
        return A.clone(self)
    d = wrap_dim(dim, self.dim())
    xp = xp_of(self)
    from ._compute import quiet
    with quiet():
        return store(scan(xp, xp.logaddexp, values(self), d), self._dtype, self.device)


def _rev_logcumsumexp(x, d):
    return A.flip(A.logcumsumexp(A.flip(x, [d]), d), [d])


def _signed_log(t):
    """log|t| where t > 0 and where t < 0 (-inf elsewhere): a signed quantity summed in log space."""
    log_abs = t.abs().log()
    return (A.where__ScalarOther(t > 0, log_abs, -math.inf), A.where__ScalarOther(t < 0, log_abs, -math.inf))


def _logcumsumexp_grad(g, a):
    """d out_i / d x_j = exp(x_j - out_i) for j <= i, summed in log space by the sign of g (PyTorch's way)."""
    d = wrap_dim(a.dim, max(a.self.dim(), 1))
    if a.self.dim() == 0:
        return g
    pos, neg = _signed_log(g)
    return (_rev_logcumsumexp(pos - a.result, d) + a.self).exp() - \
        (_rev_logcumsumexp(neg - a.result, d) + a.self).exp()


def _logcumsumexp_jvp(t, a):
    if a.self.dim() == 0:
        return t
    d = wrap_dim(a.dim, a.self.dim())
    pos, neg = _signed_log(t)
    return (A.logcumsumexp(pos + a.self, d) - a.result).exp() - (A.logcumsumexp(neg + a.self, d) - a.result).exp()


logcumsumexp = Op("logcumsumexp", """
    logcumsumexp(Tensor self, int dim) -> Tensor
    """, kernels={"logcumsumexp": {"CompositeExplicitAutograd": _logcumsumexp,
                                   "Meta": lambda self, dim: like(self, self._size)}},
    derivatives={"logcumsumexp": Deriv(save="self dim result", self=_logcumsumexp_grad,
                                       jvp={"self": _logcumsumexp_jvp})},
    doc="""``log(cumsum(exp(input), dim))`` without overflow (a log-step scan of ``logaddexp``).

    >>> import openreg
    >>> openreg.logcumsumexp(openreg.tensor([0.0, 0.0]), 0).tolist()
    [0.0, 0.6931471824645996]
    """)


# -- quantile, nanquantile ---------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_impl(name: str, ignore_nan: bool):
    def kernel(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        if not self._dtype.is_floating_point or self._dtype.is_narrow_float:
            raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
        scalar_q = not isinstance(q, TensorBase)
        if not scalar_q:
            if q.dim() > 1:
                raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
            if q._dtype is not self._dtype:
                raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
            qv = q.detach().cpu().tolist()
        else:
            qv = q
        for v in (qv if isinstance(qv, list) else [qv]):
            if not 0 <= v <= 1:
                raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {v}")
        if interpolation not in _INTERPOLATIONS:
            raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                               f"nearest, but got {interpolation}")
        if self.numel() == 0:
            raise RuntimeError(f"{name}() input tensor must be non-empty")
        if dim is None:
            x, d = self.reshape(-1), 0
        else:
            d = wrap_dim(dim, max(self.dim(), 1))
            x = self if self.dim() else self.reshape(1)
        x = x.movedim(d, -1)
        sorted_x = A.sort(x, -1)[0]                                    # NaN last
        n = x.shape[-1]
        nnan = x.isnan().sum(-1, keepdim=True)
        qt = q if not scalar_q else A.full([], q, dtype=self._dtype, device=self.device)
        qt = qt.reshape(-1).to(self.device)                            # (Q,)
        count = (n - nnan) if ignore_nan else A.full_like(nnan, n)
        rank = qt * (count - 1).clamp(min=0).to(self._dtype)          # (..., Q)
        if interpolation == "lower":
            rank = rank.floor()
        elif interpolation == "higher":
            rank = rank.ceil()
        elif interpolation == "nearest":
            rank = rank.round()
        lo = rank.floor().long()
        hi = rank.ceil().long()
        lo_v, hi_v = sorted_x.gather(-1, lo), sorted_x.gather(-1, hi)
        if interpolation == "midpoint":
            out = lo_v + (hi_v - lo_v) * 0.5 * (hi > lo).to(self._dtype)
        elif interpolation in ("linear",):
            out = A.lerp__Tensor(lo_v, hi_v, rank - lo.to(self._dtype))
        else:
            out = lo_v
        bad = (nnan > 0) if not ignore_nan else (count == 0)
        out = A.where__ScalarSelf(bad.expand_as(out), math.nan, out)   # (..., Q)
        out = out.movedim(-1, 0)                                       # (Q, ...)
        if keepdim:
            if dim is None:
                out = out.reshape([out.shape[0]] + [1] * self.dim())
            else:
                out = out.unsqueeze(d + 1) if self.dim() else out
        if scalar_q or (not scalar_q and q.dim() == 0):
            out = out.squeeze(0)
        return out
    return kernel


def _quantile_op(name: str, ignore_nan: bool) -> Op:
    fn = _quantile_impl(name, ignore_nan)

    def function(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
        result = (getattr(A, f"{name}__scalar") if not isinstance(q, TensorBase) else getattr(A, name))(
            input, q, dim, keepdim, interpolation=interpolation)
        if out is None:
            return result
        from .linalg import _copy_into
        return _copy_into(name, result, out)
    function.__name__ = name
    return Op(name, f"""
    {name}(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation="linear") -> Tensor
    {name}.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation="linear") -> Tensor
    """, kernels={name: {CIA: fn}, f"{name}.scalar": {CIA: fn}}, function=function, method=function,
        doc=f"""The ``q``-quantiles (a number or a 1-D tensor, first dim of the result) along ``dim`` or of all
    elements; ``interpolation`` is one of {', '.join(_INTERPOLATIONS)}{'; NaNs are ignored' if ignore_nan else
                                                                     ' (NaN if any element is NaN)'}.

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([1.0, 2.0, 3.0, 4.0]), 0.5).item()
    2.5
    """)


quantile = _quantile_op("quantile", False)
nanquantile = _quantile_op("nanquantile", True)


# -- take_along_dim ------------------------------------------------------------------------------------------

def _into(name, result, out):
    from .linalg import _copy_into
    return _copy_into(name, result, out)


def _take_along_dim(self, indices, dim=None):
    if indices._dtype is not _dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices._dtype.scalar_name}")
    if dim is None:
        return A.gather(self.reshape(-1), 0, indices.reshape(-1))
    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    from ..aten.meta_rules import broadcast_shapes
    s_size, i_size = list(self.shape), list(indices.shape)
    s_size[d], i_size[d] = 1, 1
    batch = list(broadcast_shapes(tuple(s_size), tuple(i_size)))
    s_size, i_size = list(batch), list(batch)
    s_size[d], i_size[d] = self.shape[d], indices.shape[d]
    return A.gather(self.expand(s_size), d, indices.expand(i_size))


take_along_dim = Op("take_along_dim", """
    take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor
    take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)
    """, kernels={"take_along_dim": {CIA: _take_along_dim},
                  "take_along_dim.out": {CIA: lambda self, indices, dim=None, *, out: _into(
                      "take_along_dim", _take_along_dim(self, indices, dim), out)}},
    doc="""``gather`` with broadcasting of the other dims (flattened input without ``dim``).

    >>> import openreg
    >>> x = openreg.tensor([[10, 30, 20]])
    >>> openreg.take_along_dim(x, x.argsort(1), 1).tolist()
    [[10, 20, 30]]
    """)

register(median, nanmedian, kthvalue, mode, cummax, cummin, logcumsumexp, quantile, nanquantile, take_along_dim)
