"""Reductions built from existing ops (CompositeImplicitAutograd, as PyTorch's where marked): ``max``/``min``
(whole tensor, along a dim with indices, elementwise with another tensor), ``logsumexp``, ``var``/``std``
(``correction``), ``linalg_vector_norm``/``norm``, ``all``/``any``. Their gradients and forward derivatives come
from the ops they are built of (``max.dim`` gathers at the argmax, so its gradient goes to the selected index).

>>> import openreg
>>> x = openreg.tensor([[1.0, 5.0], [3.0, 2.0]])
>>> values, indices = x.max(1)
>>> values.tolist(), indices.tolist(), x.max().item(), x.min(0).values.tolist()
([5.0, 3.0], [1, 0], 5.0, [1.0, 2.0])
"""
from __future__ import annotations

import math
from collections import namedtuple

from .. import dtypes as _dt
from .._array_bridge import wrap_array
from .._dispatch.ops import A, lookup
from ..aten.float8_support import is_float8
from ..aten.meta_rules import wrap_dim
from ._nn_arrays import values, xp_of
from ._record import Deriv, Op, register
from .selection import gather_values_jvp, meta_reduced_pair, scatter_values_grad

_MinMax = {"max": namedtuple("max", ["values", "indices"]), "min": namedtuple("min", ["values", "indices"])}


def _tensorlike(x) -> bool:
    return hasattr(x, "_ks")


def _reduce_all(name: str):
    def fn(self):
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                               f"the reduction dim with the 'dim' argument.")
        return lookup("aten::amax" if name == "max" else "aten::amin")(self, [])
    return fn


def _reduce_dim(name: str):
    """``max.dim``/``min.dim``: the index of the first extreme element along ``dim`` (NaN counts as the extreme,
    as in PyTorch) and the value there, computed in one pass (no views of a temporary: in-place ops on the
    values keep their history)."""
    find = "argmax" if name == "max" else "argmin"

    def kernel(self, dim, keepdim=False):
        _check_reduce_dim(name, self, dim)
        xp = xp_of(self)
        if self.dim() == 0:
            return A.clone(self), wrap_array(xp.zeros((), dtype="int64"), _dt.int64, self.device)
        d = wrap_dim(dim, self.dim())
        x = values(self)
        if x.dtype == bool:
            x = x.view(xp.uint8)
        idx = getattr(xp, find)(x, axis=d, keepdims=True)
        vals = xp.take_along_axis(self._array(), idx, axis=d)     # storage representation: bfloat16 bits kept
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
        return wrap_array(vals, self._dtype, self.device), wrap_array(idx.astype(xp.int64), _dt.int64, self.device)

    def meta(self, dim, keepdim=False):
        _check_reduce_dim(name, self, dim)
        return meta_reduced_pair(self, dim, keepdim)
    return kernel, meta


def _check_reduce_dim(name: str, self, dim) -> None:
    if self._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() and self._size[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _minmax_function(name: str):
    all_fn, dim_fn = _reduce_all(name), _reduce_dim(name)
    elementwise = "maximum" if name == "max" else "minimum"

    def fn(input, dim=None, keepdim=False, *, out=None):
        if out is not None:
            raise NotImplementedError(f"openreg: {name}(..., out=) is not implemented")
        if _tensorlike(dim):
            return lookup(f"aten::{elementwise}")(input, dim)
        if dim is None:
            return lookup(f"aten::{name}")(input)
        return _MinMax[name](*lookup(f"aten::{name}.dim")(input, dim, keepdim))
    fn.__name__ = name
    fn.__doc__ = f"""``{name}(input)``: the {name}imum element; ``{name}(input, dim, keepdim=False)``: a named tuple
    ``(values, indices)`` along ``dim``; ``{name}(input, other)``: ``{elementwise}``.

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([[1.0, 4.0], [3.0, 2.0]]), 1).indices.tolist()
    {[1, 0] if name == "max" else [0, 1]}
    """
    return fn, all_fn, dim_fn


def _minmax_record(name: str) -> Op:
    fn, all_fn, dim_fn = _minmax_function(name)
    other = "maximum" if name == "max" else "minimum"
    return Op(
        name,
        f"""
        {name}(Tensor self) -> Tensor
        {name}.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
        {name}.other(Tensor self, Tensor other) -> Tensor
        """,
        kernels={name: {"CompositeImplicitAutograd": all_fn},
                 f"{name}.dim": {"CompositeExplicitAutograd": dim_fn[0], "Meta": dim_fn[1]},
                 f"{name}.other": {"CompositeImplicitAutograd": lambda self, o: lookup(f"aten::{other}")(
                     self, o)}},
        derivatives={f"{name}.dim": Deriv(save="self dim keepdim result1", name=f"{name.capitalize()}Backward0",
                                          self=scatter_values_grad, jvp={"self": gather_values_jvp})},
        function=fn, method=fn,
        doc=fn.__doc__,
    )


max_ = _minmax_record("max")
min_ = _minmax_record("min")


# -- logsumexp ----------------------------------------------------------------------------------------------

def _logsumexp(self, dim, keepdim=False):
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        self = self.to(_dt.get_default_dtype())
    dims = list(dim)
    if self.numel() == 0:
        return self.exp().sum(dims, keepdim).log()
    m = A.amax(self, dims, True).detach()
    m = A.masked_fill__Scalar(m, m.abs() == math.inf, 0.0)     # all -inf (or an inf) rows: no shift
    out = (self - m).exp().sum(dims, True).log() + m
    return out if keepdim else out.squeeze(dims) if dims else out.reshape(())


logsumexp = Op(
    "logsumexp",
    """
    logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
    """,
    kernels={"logsumexp": {"CompositeImplicitAutograd": _logsumexp}},
    doc="""``log(sum(exp(self), dim))`` computed stably (shifted by the maximum).

    >>> import openreg
    >>> openreg.tensor([1000.0, 1000.0], dtype=openreg.float64).logsumexp(0).mul(1e4).round().item()
    10006931.0
    """,
)


# -- var / std ----------------------------------------------------------------------------------------------

def _dims_of(self, dim):
    if dim is None:
        return list(range(self.dim()))
    if isinstance(dim, int):
        return [wrap_dim(dim, max(self.dim(), 1))]
    return [wrap_dim(d, max(self.dim(), 1)) for d in dim]


def _var(self, dim=None, *, correction=None, keepdim=False):
    if is_float8(self._dtype):
        raise RuntimeError(f"std_var_all: Unsupported dtype {self._dtype.scalar_name}")
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims_of(self, dim)
    n = 1
    for d in dims:
        n *= self._size[d] if self.dim() else 1
    corr = 1 if correction is None else correction
    if self.dim() == 0:
        dims = []
    mean = self.mean(dims, True) if dims else self
    centered = self - mean
    sq = centered * centered
    total = sq.sum(dims, keepdim) if dims else sq
    return total / max(n - corr, 0)     # no degrees of freedom left: inf/nan, as PyTorch


def _std(self, dim=None, *, correction=None, keepdim=False):
    return _var(self, dim, correction=correction, keepdim=keepdim).sqrt()


def _var_std_function(name: str):
    impl = _var if name == "var" else _std

    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        if out is not None:
            raise NotImplementedError(f"openreg: {name}(..., out=) is not implemented")
        if isinstance(dim, bool):          # var(input, unbiased)
            dim, unbiased = None, dim
        if unbiased is not None:
            if correction is not None:
                raise RuntimeError(f"{name}: can't specify both unbiased and correction")
            correction = 1 if unbiased else 0
        return lookup(f"aten::{name}.correction")(input, dim, correction=correction, keepdim=keepdim)
    fn.__name__ = name
    fn.__doc__ = f"""The {'variance' if name == 'var' else 'standard deviation'} over ``dim`` (all dims by default)
    with Bessel's ``correction`` (default 1; ``unbiased=False`` means 0).

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([1.0, 3.0]), unbiased=False).item()
    1.0
    """
    return fn, impl


def _var_std_record(name: str) -> Op:
    fn, impl = _var_std_function(name)
    return Op(
        name,
        f"""
        {name}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
        """,
        kernels={f"{name}.correction": {"CompositeImplicitAutograd": impl}},
        function=fn, method=fn, doc=fn.__doc__,
    )


var = _var_std_record("var")
std = _var_std_record("std")


# -- norms --------------------------------------------------------------------------------------------------

def _vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        self = self.to(dtype)
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dt_name(self._dtype)}")
    dims = _dims_of(self, dim) if self.dim() else []
    a = self.abs()
    ord = float(ord)
    if ord == math.inf:
        return A.amax(a, dims, keepdim)
    if ord == -math.inf:
        return A.amin(a, dims, keepdim)
    if ord == 0:
        return (a != 0).to(a.dtype).sum(dims, keepdim)
    if ord == 1:
        return a.sum(dims, keepdim)
    # (sum |x|^p)^(1/p) with a zero gradient at the zero vector (as PyTorch): the root sees a safe value there
    total = (self * self).sum(dims, keepdim) if ord == 2 else a.pow(ord).sum(dims, keepdim)
    zero = total == 0
    safe = A.masked_fill__Scalar(total, zero, 1.0)
    root = safe.sqrt() if ord == 2 else safe.pow(1.0 / ord)
    return A.masked_fill__Scalar(root, zero, 0.0)


def _dt_name(d) -> str:
    from ..aten.meta_rules import scalar_type_name
    return scalar_type_name(d)


def _linalg_vector_norm_fn(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("openreg: linalg.vector_norm(..., out=) is not implemented")
    return A.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


linalg_vector_norm = Op(
    "linalg_vector_norm",
    """
    linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
    """,
    kernels={"linalg_vector_norm": {"CompositeImplicitAutograd": _vector_norm}},
    function=False, method=False,
    doc="""The ``ord``-norm of the elements over ``dim`` (inf, -inf, 0, 1, 2 and any real order).

    >>> import openreg
    >>> openreg.ops.aten.linalg_vector_norm(openreg.tensor([3.0, -4.0]), 1).item()
    7.0
    """,
)


def _norm_fn(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    if out is not None:
        raise NotImplementedError("openreg: norm(..., out=) is not implemented")
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"openreg: norm with p={p!r} (matrix norms) is not implemented")
    if isinstance(dim, int):
        dim = [dim]
    return A.linalg_vector_norm(input, p, dim, keepdim, dtype=dtype)


def _norm_scalaropt(self, p, dim, keepdim=False):
    return _vector_norm(self, 2 if p is None else p, dim, keepdim)


norm = Op(
    "norm",
    """
    norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
    """,
    kernels={"norm.ScalarOpt_dim": {"CompositeImplicitAutograd": _norm_scalaropt}},
    function=_norm_fn, method=_norm_fn,
    doc="""Vector norm of order ``p`` over ``dim`` (``"fro"`` is the 2-norm of the flattened dims).

    >>> import openreg
    >>> openreg.tensor([3.0, 4.0]).norm().item()
    5.0
    """,
)


# -- all / any ----------------------------------------------------------------------------------------------

def _truth(name: str):
    def reduce(self, dim=None, keepdim=False):
        hits = (self == 0) if name == "all" else (self != 0)
        if isinstance(dim, int):
            dim = [dim]
        count = hits.to(_dt.int64).sum(list(dim), keepdim) if dim else hits.to(_dt.int64).sum()
        if dim is None and keepdim:
            count = count.reshape([1] * self.dim())
        return count == 0 if name == "all" else count > 0
    return reduce


def _truth_fn(name: str):
    reduce = _truth(name)

    def fn(input, dim=None, keepdim=False, *, out=None):
        if out is not None:
            raise NotImplementedError(f"openreg: {name}(..., out=) is not implemented")
        if dim is None:
            return lookup(f"aten::{name}")(input) if not keepdim else lookup(f"aten::{name}.dims")(
                input, None, keepdim)
        if isinstance(dim, int):
            return lookup(f"aten::{name}.dim")(input, dim, keepdim)
        return lookup(f"aten::{name}.dims")(input, list(dim), keepdim)
    fn.__name__ = name
    fn.__doc__ = f"""Whether {'all' if name == 'all' else 'any'} elements (over ``dim``) are nonzero, as bool.

    >>> import openreg
    >>> openreg.tensor([[1, 0], [2, 3]]).{name}(1).tolist()
    {[False, True] if name == "all" else [True, True]}
    """
    return fn, reduce


def _truth_record(name: str) -> Op:
    fn, reduce = _truth_fn(name)
    return Op(
        name,
        f"""
        {name}(Tensor self) -> Tensor
        {name}.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
        {name}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
        """,
        kernels={name: {"CompositeImplicitAutograd": lambda self: reduce(self)},
                 f"{name}.dim": {"CompositeImplicitAutograd": reduce},
                 f"{name}.dims": {"CompositeImplicitAutograd": reduce}},
        function=fn, method=fn, doc=fn.__doc__,
    )


all_ = _truth_record("all")
any_ = _truth_record("any")

register(max_, min_, logsumexp, var, std, linalg_vector_norm, norm, all_, any_)
