"""Reductions and softmax: ``sum``, ``mean``, ``prod``, ``amax``, ``amin``, ``argmax``, ``argmin``,
``_softmax``/``_log_softmax`` and their ``softmax.int``/``log_softmax.int`` decompositions.

Integer and bool ``sum``/``prod`` accumulate in int64, ``mean`` needs a floating or complex dtype, and
``dtype=`` converts the input before reducing, as in PyTorch. float16/bfloat16 accumulate in float32.

>>> import openreg
>>> x = openreg.tensor([[1, 2], [3, 4]])
>>> x.sum().item(), x.sum(0).tolist(), x.float().mean(1).tolist(), x.argmax().item()
(10, [4, 6], [1.5, 3.5], 3)
"""
from __future__ import annotations

import numpy as np

from .. import _threads
from .. import dtypes as _dt
from .._array_bridge import to_compute
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, normalize_dims, reduce_shape, scalar_type_name, wrap_dim
from ._compute import as_compute, axis_sums, leading_sums, quiet, upcast, xp_of
from ._formulas import mask
from ._record import Deriv, Op, register

_F32 = np.dtype(np.float32)
# The device reduces bfloat16 in a raw kernel (bf16_reduce.cu): float32 accumulation, no widened copy
_DEVICE = "openreg.backends.privateuseone.device_ops"


def reduction_dtype(self_dtype, dtype):
    """The result dtype of sum/prod: ``dtype`` if given, else int64 for bool/integers, else the input's.

    >>> import openreg
    >>> reduction_dtype(openreg.int32, None)
    openreg.int64
    """
    if dtype is not None:
        return dtype
    return _dt.int64 if self_dtype.category <= _dt.INTEGRAL else self_dtype


def _reduce_input(spec, self, dtype, xp):
    """The input in the dtype to reduce in (``dtype=`` converts first) and the accumulation dtype."""
    arr = as_compute(self, spec, xp) if dtype is not None else to_compute(self)
    acc = _F32 if spec.compute.is_narrow_float or spec.compute is _dt.float16 else spec.compute.numpy
    return arr, acc


# -- helpers of the formulas -----------------------------------------------------------------------------

def _dims(dim, ndim: int) -> list:
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(d % ndim if ndim else 0 for d in dims)


def unreduce(g, size, dim, keepdim: bool):
    """Expand a reduction's gradient back to the input size."""
    size = tuple(size)
    if not keepdim and len(size):
        for d in _dims(dim, len(size)):
            g = g.unsqueeze(d)
    return g.expand(size)


def _numel(size, dims=None) -> int:
    n = 1
    for i, s in enumerate(size):
        if dims is None or i in dims:
            n *= s
    return n


# -- sum, mean, prod ------------------------------------------------------------------------------------

def _sum_meta(self, dim, keepdim=False, *, dtype=None) -> Spec:
    out = reduction_dtype(self._dtype, dtype)
    return Spec(reduce_shape(self._size, dim, keepdim), out, self._storage.device, out)


def _sum(spec, self, dim=None, keepdim=False, *, dtype=None):
    if dim is None and dtype is None and self._dtype in _HOST_FLOATS and self._storage.device._type == "cpu":
        arr = self._array()     # host_sum's every-axis case, without its tests
        if arr.size < _SPLIT:
            return np.asarray(_add_reduce(arr, _ALL_AXES[arr.ndim] if arr.ndim < len(_ALL_AXES) else
                                          tuple(range(arr.ndim)), arr.dtype, None, keepdim))
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    axes = normalize_dims(dim, len(self._size))
    if xp is np:
        return host_sum(arr, axes, acc, keepdim)
    return xp.asarray(_threads.reduce(lambda a: a.sum(axis=axes, dtype=acc, keepdims=keepdim), arr, axes, keepdim))


def host_sum(arr, axes: tuple, acc, keepdim: bool = False):
    """``sum``'s CPU computation: ``arr`` (a NumPy array) summed over ``axes`` in ``acc``, split across the
    thread pool when large (backward formulas call it on arrays to get the same bits as the operator).

    >>> import numpy as np
    >>> host_sum(np.ones((2, 3), np.float32), (0,), np.float32).tolist()
    [2.0, 2.0, 2.0]
    """
    if arr.size < _SPLIT:
        k = len(axes)
        if k < arr.ndim and arr.dtype == acc and tuple(sorted(axes)) == tuple(range(k)):
            out = leading_sums(arr, k, keepdim)     # (never for every axis: leading_sums declines that)
            if out is not None:
                return out
        return np.asarray(_add_reduce(arr, axes, acc, None, keepdim))   # ndarray.sum without its wrapper
    return np.asarray(_threads.reduce(lambda a: a.sum(axis=axes, dtype=acc, keepdims=keepdim), arr, axes, keepdim))


_add_reduce = np.add.reduce
_HOST_FLOATS = frozenset((_dt.float32, _dt.float64))    # summed in their own dtype
_ALL_AXES = tuple(tuple(range(n)) for n in range(9))
_SPLIT = 2 * _threads.GRAIN     # below this size _threads.reduce makes one call


def _mean_meta(self, dim, keepdim=False, *, dtype=None) -> Spec:
    d = dtype or self._dtype
    if not (d.is_floating_point or d.is_complex):
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either a floating point "
                           f"or complex dtype. Got: {scalar_type_name(d)}")
    return Spec(reduce_shape(self._size, dim, keepdim), d, self._storage.device, d)


def _mean(spec, self, dim=None, keepdim=False, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    axes = normalize_dims(dim, self.dim())
    count = 1
    for d in axes:
        count *= arr.shape[d]
    with quiet():  # an empty reduction is 0 / 0 = nan, without NumPy's "Mean of empty slice" warning
        total = _threads.reduce(lambda a: xp.sum(a, axis=axes, keepdims=keepdim, dtype=acc), arr, axes, keepdim)
        return xp.asarray(total / xp.asarray(count, dtype=acc))


def _prod_meta(self, dim, keepdim=False, *, dtype=None) -> Spec:
    out = reduction_dtype(self._dtype, dtype)
    wrap_dim(dim, self.dim())
    return Spec(reduce_shape(self._size, (dim,), keepdim), out, self._storage.device, out)


def _prod_all_meta(self, *, dtype=None) -> Spec:
    out = reduction_dtype(self._dtype, dtype)
    return Spec((), out, self._storage.device, out)


def _prod(spec, self, dim, keepdim=False, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    with quiet():
        return xp.asarray(arr.prod(axis=normalize_dims((dim,), self.dim()), dtype=acc, keepdims=keepdim))


def _prod_all(spec, self, *, dtype=None):
    xp = xp_of(self)
    arr, acc = _reduce_input(spec, self, dtype, xp)
    with quiet():
        return xp.asarray(arr.prod(dtype=acc))


def _prod_others(x, dim=None):
    """d prod / dx_i = product of the other elements, also when ``x`` holds zeros (no division by zero)."""
    z = mask(x == 0, x)
    x_nz = x + z
    if dim is None:
        count, p = z.sum(), x_nz.prod()
    else:
        count, p = z.sum(dim, True), x_nz.prod(dim, True)
    return mask(count == 0, x) * p / x_nz + mask(count == 1, x) * z * p


def _prod_grad(g, a):
    size = a.size_of("self")
    if a.self.numel() == 0:
        return g.expand(size)
    return g.expand(size) * _prod_others(a.self)


def _prod_dim_grad(g, a):
    size = a.size_of("self")
    if len(size) == 0:
        return g
    return unreduce(g, size, a.dim, a.keepdim) * _prod_others(a.self, a.dim)


def _ones_like_result(a):
    return a.result * 0 + 1


def _dim_reduction(name: str, all_overload: str, dim_overload: str, out_overload: str, doc: str):
    """``openreg.sum``/``mean``: the all-elements overload, the ``dim`` overload, or ``out=``."""
    def fn(input, dim=None, keepdim: bool = False, *, dtype=None, out=None):
        if out is not None:
            return getattr(A, out_overload)(input, dim, keepdim, dtype=dtype, out=out)
        if dim is None and not keepdim:
            return getattr(A, all_overload)(input, dtype=dtype)
        return getattr(A, dim_overload)(input, dim, keepdim, dtype=dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


sum = _dim_reduction("sum", "sum", "sum__dim_IntList", "sum__IntList_out", """Sum over ``dim`` (int, list, or None
    for all); bool and integers accumulate in int64.

    >>> import openreg
    >>> openreg.sum(openreg.tensor([[1, 2], [3, 4]]), dim=0).tolist()
    [4, 6]
    """)
mean = _dim_reduction("mean", "mean", "mean__dim", "mean__out", """Mean over ``dim``; needs a floating or complex
    dtype (``dtype=`` may supply one).

    >>> import openreg
    >>> openreg.mean(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]), 1).tolist()
    [1.5, 3.5]
    """)


def _sum_method(self, dim=None, keepdim: bool = False, *, dtype=None):
    """``Tensor.sum``: ``x.sum()`` calls the all-elements overload directly (one frame, no keywords)."""
    if dim is None and not keepdim:
        return A.sum(self) if dtype is None else A.sum(self, dtype=dtype)
    return sum(self, dim, keepdim, dtype=dtype)


def prod(input, dim=None, keepdim: bool = False, *, dtype=None, out=None):
    """Product of all elements, or over one ``dim``.

    >>> import openreg
    >>> openreg.prod(openreg.tensor([[1, 2], [3, 4]]), 1).tolist()
    [2, 12]
    """
    if dim is None:
        if out is not None:   # PyTorch has no out= for the full product
            raise TypeError("prod() received an invalid combination of arguments - got (Tensor, out=Tensor), but "
                            "expected one of:\n * (Tensor input, *, dtype = None)\n * (Tensor input, int dim, bool "
                            "keepdim = False, *, dtype = None, Tensor out = None)")
        return A.prod(input, dtype=dtype)
    if out is not None:
        return A.prod__int_out(input, dim, keepdim, dtype=dtype, out=out)
    return A.prod__dim_int(input, dim, keepdim, dtype=dtype)


sum_op = Op(
    "sum",
    """
    sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
    sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  [core]
    sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) \
        -> Tensor(a!)
    """,
    meta={"sum": lambda self, *, dtype=None: _sum_meta(self, None, False, dtype=dtype), "sum.dim_IntList": _sum_meta},
    compute={"sum": lambda spec, self, *, dtype=None: _sum(spec, self, None, False, dtype=dtype),
             "sum.dim_IntList": _sum},
    overrides={"privateuseone": f"{_DEVICE}:sum_compute"},
    derivatives={"sum": Deriv(linear=True, self=lambda g, a: A.expand(g, a.size_of("self"))),
                 "sum.dim_IntList": Deriv(linear=True, name="SumBackward1",
                                          self=lambda g, a: unreduce(g, a.size_of("self"), a.dim, a.keepdim))},
    function=sum, method=_sum_method)
mean_op = Op(
    "mean",
    """
    mean(Tensor self, *, ScalarType? dtype=None) -> Tensor  [core]
    mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  [core]
    mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
    """,
    meta={"mean": lambda self, *, dtype=None: _mean_meta(self, None, False, dtype=dtype), "mean.dim": _mean_meta},
    compute={"mean": lambda spec, self, *, dtype=None: _mean(spec, self, None, False, dtype=dtype),
             "mean.dim": _mean},
    overrides={"privateuseone": f"{_DEVICE}:mean_compute"},
    derivatives={
        "mean": Deriv(linear=True,
                      self=lambda g, a: g.expand(a.size_of("self")) / max(_numel(a.size_of("self")), 1)),
        "mean.dim": Deriv(linear=True, name="MeanBackward1",
                          self=lambda g, a: unreduce(g, a.size_of("self"), a.dim, a.keepdim)
                          / max(_numel(a.size_of("self"), _dims(a.dim, len(a.size_of("self")))), 1))},
    function=mean, method=lambda self, dim=None, keepdim=False, *, dtype=None: mean(self, dim, keepdim, dtype=dtype))
prod_op = Op(
    "prod",
    """
    prod(Tensor self, *, ScalarType? dtype=None) -> Tensor  [core]
    prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  [core]
    prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
    """,
    meta={"prod": _prod_all_meta, "prod.dim_int": _prod_meta},
    compute={"prod": _prod_all, "prod.dim_int": _prod},
    derivatives={
        "prod": Deriv(save="self result", self=_prod_grad,
                      jvp={"self": lambda t, a: (t * _prod_grad(_ones_like_result(a), a)).sum()}),
        "prod.dim_int": Deriv(save="self result", name="ProdBackward1", self=_prod_dim_grad,
                              jvp={"self": lambda t, a: (t * _prod_dim_grad(_ones_like_result(a), a)).sum(
                                  a.dim, a.keepdim)})},
    function=prod, method=lambda self, dim=None, keepdim=False, *, dtype=None: prod(self, dim, keepdim, dtype=dtype))


# -- amax, amin, argmax, argmin ----------------------------------------------------------------------------

def _check_nonempty(op: str, self, dims) -> None:
    if self.numel() != 0:
        return
    ndim = self.dim()
    if not dims and ndim > 0:
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           f"reduction dim with the 'dim' argument.")
    for d in normalize_dims(dims, ndim) if dims else ():
        if self._size[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _minmax_meta(op: str):
    def meta(self, dim=(), keepdim=False) -> Spec:
        if self._dtype.is_complex:
            raise NotImplementedError(f"\"{'max' if op == 'amax' else 'min'}_values_cpu\" not implemented for "
                                      f"'{scalar_type_name(self._dtype)}'")
        _check_nonempty(op, self, dim)
        normalize_dims(dim, self.dim())
        return Spec(reduce_shape(self._size, dim, keepdim), self._dtype, self._storage.device)
    return meta


def _minmax_compute(fn_name: str):
    def compute(spec, self, dim=(), keepdim=False):
        xp = xp_of(self)
        fn, axes = getattr(xp, fn_name), normalize_dims(dim, self.dim())
        return xp.asarray(_threads.reduce(lambda a: fn(a, axis=axes, keepdims=keepdim), to_compute(self), axes,
                                          keepdim))
    return compute


def _amax_grad(g, a):
    size = a.size_of("self")
    dims = _dims(a.dim, len(size))
    res = unreduce(a.result, size, dims, a.keepdim)
    hit = mask(a.self == res, a.self)
    count = hit.sum(dims, True) if len(size) else hit
    return unreduce(g, size, dims, a.keepdim) * hit / count


def _amax_jvp(t, a):
    size = a.size_of("self")
    dims = _dims(a.dim, len(size))
    res = unreduce(a.result, size, dims, a.keepdim)
    hit = mask(a.self == res, a.self)
    if not len(size):
        return t
    return (t * hit).sum(dims, a.keepdim) / hit.sum(dims, a.keepdim)


def _minmax(name: str, example: str) -> Op:
    return Op(
        name,
        f"""
        {name}(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor  [core]
        {name}.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
        """,
        meta=_minmax_meta(name), compute=_minmax_compute(name),
        overrides={"privateuseone": f"{_DEVICE}:{name}_compute"},
        derivatives={name: Deriv(save="self result", self=_amax_grad, jvp={"self": _amax_jvp})},
        doc=f"""The {name[1:]}imum over ``dim`` (all dims when empty); ties share the gradient.

        >>> import openreg
        >>> openreg.{name}(openreg.tensor([[1, 5], [7, 2]]), 1).tolist()
        {example}
        """)


amax = _minmax("amax", "[5, 7]")
amin = _minmax("amin", "[1, 2]")


def _arg_meta(op: str):
    def meta(self, dim=None, keepdim=False) -> Spec:
        if self._dtype.is_complex:
            raise RuntimeError(f"{op}(): does not support complex input")
        if self._dtype is _dt.bool:
            raise RuntimeError(f"{op}(): does not support bool input")
        ndim = self.dim()
        if dim is None:
            if self.numel() == 0:
                raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
            size = (1,) * ndim if keepdim else ()
        else:
            d = wrap_dim(dim, ndim)
            if ndim and self._size[d] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
            size = reduce_shape(self._size, (d,), keepdim) if ndim else ()
        return Spec(size, _dt.int64, self._storage.device, self._dtype)
    return meta


def _arg_compute(fn_name: str):
    def compute(spec, self, dim=None, keepdim=False):
        xp = xp_of(self)
        arr = to_compute(self)
        fn = getattr(xp, fn_name)
        if dim is None or arr.ndim == 0:
            return xp.asarray(fn(arr.reshape(-1))).reshape(spec.size)
        return xp.asarray(fn(arr, axis=wrap_dim(dim, arr.ndim), keepdims=keepdim))
    return compute


def _arg(name: str, example: str) -> Op:
    return Op(
        name,
        f"""
        {name}(Tensor self, int? dim=None, bool keepdim=False) -> Tensor  [core]
        {name}.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
        """,
        meta=_arg_meta(name), compute=_arg_compute(name),
        doc=f"""Index of the {name[3:]}imum (of the flattened input when ``dim`` is None).

        >>> import openreg
        >>> openreg.{name}(openreg.tensor([[1, 5], [7, 2]]), 1).tolist()
        {example}
        """)


argmax = _arg("argmax", "[1, 0]")
argmin = _arg("argmin", "[0, 1]")


# -- softmax ------------------------------------------------------------------------------------------------

def _softmax_meta(op: str):
    def meta(self, dim, half_to_float) -> Spec:
        last = wrap_dim(dim, self.dim()) == max(self.dim() - 1, 0)
        d = self._dtype
        if half_to_float:
            if d is not _dt.float16:
                raise RuntimeError("conversion from Half to Float is only supported on CUDA")
            d = _dt.float32
        if not d.is_floating_point:
            kernel = f"{op}_lastdim_kernel_impl" if last else f"{op}_kernel_impl"
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(d)}'")
        return Spec(self._size, d, self._storage.device, d)
    return meta


def _softmax_rows(spec, self, dim, xp, fn, unshifted=None):
    """``fn(shifted, axis)`` of the max-shifted input, in pieces along another axis when the input is large.
    ``unshifted(rows, exps, sums)`` computes the result without the shift along a last axis of NumPy float
    rows (``_unshifted_rows``)."""
    x = upcast(as_compute(self, spec, xp), xp)
    axis = wrap_dim(dim, x.ndim) if x.ndim else None

    def shifted(a, axis=axis):
        return fn(a - _max_reduce(a, axis=axis, keepdims=True) if a.size else a, axis)

    def rows(a):
        with quiet():
            if unshifted is not None and axis == a.ndim - 1 and a.size and a.__class__ is np.ndarray \
                    and a.dtype in _UNSHIFTED_FLOATS:
                return _unshifted_rows(a, lambda b: shifted(b, b.ndim - 1), unshifted)
            return shifted(a)
    return _threads.reduce(rows, x, (axis,) if x.ndim else None, True)


def _max_reduce(a, axis, keepdims):
    """``a.max(axis=axis, keepdims=keepdims)`` (NumPy's without its Python wrapper, CuPy's method)."""
    return np.maximum.reduce(a, axis=axis, keepdims=keepdims) if a.__class__ is np.ndarray else \
        a.max(axis=axis, keepdims=keepdims)


_UNSHIFTED_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _unshifted_rows(a, shifted, finish):
    """Softmax-like rows of the NumPy array ``a`` along its last axis without subtracting each row's maximum:
    the row maximum is a reduction along short rows, which NumPy runs several times slower than ``exp`` of the
    same array (512 rows of 64: 45 against 13 us). Without the shift, ``exp`` overflows or its row sum loses
    precision (subnormal terms) only when a row's sum leaves ``[tiny / eps, max]``: those rows (inf, NaN, huge
    or all very negative values, fully masked rows) are computed again by ``shifted``. Each row's result depends
    on that row alone, so pieces of a split computation agree bitwise with one call."""
    e = np.exp(a)
    sums = axis_sums(np, e)
    info = np.finfo(a.dtype)
    lo, hi = info.tiny / info.eps, info.max
    out = finish(a, e, sums)
    if not (sums.min() >= lo and sums.max() <= hi):      # also False for NaN sums
        bad = ~((sums >= lo) & (sums <= hi)).reshape(-1)
        n = a.shape[-1]
        a2, out2 = a.reshape(-1, n), out.reshape(-1, n)
        out2[bad] = shifted(a2[bad])
    return out


def _softmax_finish(a, e, sums):
    return np.divide(e, sums, out=e)


def _log_softmax_finish(a, e, sums):
    """``a - log(sums)`` with the logarithm in float64 and subtracted as two float32 parts (its rounded value,
    then the rest): the result keeps its own precision where it is near zero (a dominant logit), as with
    PyTorch's shifted ``(x - max) - log(sum)``; float64 rows subtract the float64 logarithm."""
    lse = np.log(sums.astype(np.float64))
    if a.dtype == np.float64:
        return np.subtract(a, lse, out=e)
    head = lse.astype(np.float32)
    out = np.subtract(a, head, out=e)
    out -= (lse - head).astype(np.float32)
    return out


def _softmax(spec, self, dim, half_to_float):
    xp = xp_of(self)

    def softmax(shifted, axis):
        if not shifted.ndim:
            e = xp.exp(shifted)
            return e / axis_sums(xp, e, axis)
        # ``shifted`` is this call's own temporary: written in place (two fewer arrays of the input's size,
        # whose page faults cost as much as the arithmetic on large attention maps)
        e = xp.exp(shifted, out=shifted)
        return xp.divide(e, axis_sums(xp, e, axis), out=e)
    return _softmax_rows(spec, self, dim, xp, softmax, _softmax_finish)


def _log_softmax(spec, self, dim, half_to_float):
    xp = xp_of(self)

    def log_softmax(shifted, axis):
        lse = xp.log(axis_sums(xp, xp.exp(shifted), axis))
        return shifted - lse if not shifted.ndim else xp.subtract(shifted, lse, out=shifted)
    return _softmax_rows(spec, self, dim, xp, log_softmax, _log_softmax_finish)


def _softmax_grad(g, a):
    """``y * (g - (g * y).sum(dim))``: the fused ``_softmax_backward_data`` (PyTorch's kernel formula) for
    float32/float64 of one dtype and size, the ops ``gy - y * gy.sum(dim)`` with ``gy = g * y`` otherwise."""
    y = a.result
    if g._dtype is y._dtype and y._dtype in (_dt.float32, _dt.float64) and g._size == y._size:
        return A._softmax_backward_data(g, y, a.dim, y._dtype)
    gy = g * y
    return gy - y * gy.sum(a.dim, True)


def _log_softmax_grad(g, a):
    y = a.result
    return A._log_softmax_backward_data(g, y, a.dim, y.dtype)


def _softmax_jvp(t, a):
    return a.result * (t - (t * a.result).sum(a.dim, True))


def _log_softmax_jvp(t, a):
    return t - (t * a.result.exp()).sum(a.dim, True)


def _softmax_int(self, dim: int, dtype=None):
    """``_softmax`` after converting to ``dtype`` when given."""
    return A._softmax(self if dtype is None else self.to(dtype), dim, False)


def _log_softmax_int(self, dim: int, dtype=None):
    """``_log_softmax`` after converting to ``dtype`` when given."""
    return A._log_softmax(self if dtype is None else self.to(dtype), dim, False)


def softmax(input, dim: int, dtype=None):
    """``exp(x) / exp(x).sum(dim)``, computed stably (float16 in float32).

    >>> import openreg
    >>> openreg.softmax(openreg.tensor([0.0, 0.0]), 0).tolist()
    [0.5, 0.5]
    """
    return A.softmax__int(input, dim, dtype)


def log_softmax(input, dim: int, dtype=None):
    """``x - log(exp(x).sum(dim))``, computed stably.

    >>> import openreg
    >>> round(openreg.log_softmax(openreg.tensor([0.0, 0.0]), 0)[0].item(), 4)
    -0.6931
    """
    return A.log_softmax__int(input, dim, dtype)


_softmax_op = Op(
    "_softmax",
    """
    _softmax(Tensor self, int dim, bool half_to_float) -> Tensor  [core]
    _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)
    """,
    meta=_softmax_meta("softmax"), compute=_softmax, function=False, method=False,
    overrides={"privateuseone": f"{_DEVICE}:softmax_compute"},
    derivatives={"_softmax": Deriv(save="result", name="SoftmaxBackward0", self=_softmax_grad,
                                   jvp={"self": _softmax_jvp})})
_log_softmax_op = Op(
    "_log_softmax",
    """
    _log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor  [core]
    _log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)
    """,
    meta=_softmax_meta("log_softmax"), compute=_log_softmax, function=False, method=False,
    overrides={"privateuseone": f"{_DEVICE}:log_softmax_compute"},
    derivatives={"_log_softmax": Deriv(save="result", name="LogSoftmaxBackward0", self=_log_softmax_grad,
                                       jvp={"self": _log_softmax_jvp})})
softmax_op = Op(
    "softmax", "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    kernels={"softmax.int": {"CompositeImplicitAutograd": _softmax_int}},
    derivatives={"softmax.int": Deriv(save="result", name="SoftmaxBackward0", self=_softmax_grad,
                                      jvp={"self": _softmax_jvp})},
    function=softmax, method=lambda self, dim, dtype=None: A.softmax__int(self, dim, dtype))
log_softmax_op = Op(
    "log_softmax", "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    kernels={"log_softmax.int": {"CompositeImplicitAutograd": _log_softmax_int}},
    derivatives={"log_softmax.int": Deriv(save="result", name="LogSoftmaxBackward0", self=_log_softmax_grad,
                                          jvp={"self": _log_softmax_jvp})},
    function=log_softmax, method=lambda self, dim, dtype=None: A.log_softmax__int(self, dim, dtype))

register(sum_op, mean_op, prod_op, amax, amin, argmax, argmin, _softmax_op, _log_softmax_op, softmax_op,
         log_softmax_op)
