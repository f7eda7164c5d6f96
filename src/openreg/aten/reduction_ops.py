"""Reductions and softmax: PyTorch schemas and meta functions (structured, like the pointwise ops).

Integer and bool ``sum``/``prod`` accumulate in int64, ``mean`` needs a floating or complex dtype, and
``dtype=`` converts the input before reducing, as in PyTorch.

>>> from openreg.aten.reduction_ops import reduction_dtype
>>> import openreg
>>> reduction_dtype(openreg.int32, None)
openreg.int64
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.tags import Tag
from .meta_rules import Spec, normalize_dims, reduce_shape, scalar_type_name, wrap_dim
from .structured_ops import register

C = Tag.core

SCHEMAS = [
    ("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", ()),
    ("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", (C,)),
    (("sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
     "Tensor(a!) out) -> Tensor(a!)"), ()),
    ("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", (C,)),
    ("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", (C,)),
    (("mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) "
     "-> Tensor(a!)"), ()),
    ("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", (C,)),
    ("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", (C,)),
    (("prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) "
     "-> Tensor(a!)"), ()),
    ("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", (C,)),
    ("amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", (C,)),
    ("amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", (C,)),
    ("argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", (C,)),
    ("argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", (C,)),
    ("_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", (C,)),
    ("_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", ()),
    ("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", ()),
]


def reduction_dtype(self_dtype, dtype):
    """The result dtype of sum/prod: ``dtype`` if given, else int64 for bool/integers, else the input's."""
    if dtype is not None:
        return dtype
    return _dt.int64 if self_dtype.category <= _dt.INTEGRAL else self_dtype


@register("sum.dim_IntList", "sum.IntList_out", None)
def sum_meta(self, dim, keepdim=False, *, dtype=None) -> Spec:
    out = reduction_dtype(self._dtype, dtype)
    return Spec(reduce_shape(self._size, dim, keepdim), out, self._storage.device, out)


@register("sum", None, None)
def sum_all_meta(self, *, dtype=None) -> Spec:
    return sum_meta(self, None, False, dtype=dtype)


@register("mean.dim", "mean.out", None)
def mean_meta(self, dim, keepdim=False, *, dtype=None) -> Spec:
    d = dtype or self._dtype
    if not (d.is_floating_point or d.is_complex):
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either a floating point "
                           f"or complex dtype. Got: {scalar_type_name(d)}")
    return Spec(reduce_shape(self._size, dim, keepdim), d, self._storage.device, d)


@register("mean", None, None)
def mean_all_meta(self, *, dtype=None) -> Spec:
    return mean_meta(self, None, False, dtype=dtype)


@register("prod.dim_int", "prod.int_out", None)
def prod_meta(self, dim, keepdim=False, *, dtype=None) -> Spec:
    out = reduction_dtype(self._dtype, dtype)
    wrap_dim(dim, self.dim())
    return Spec(reduce_shape(self._size, (dim,), keepdim), out, self._storage.device, out)


@register("prod", None, None)
def prod_all_meta(self, *, dtype=None) -> Spec:
    out = reduction_dtype(self._dtype, dtype)
    return Spec((), out, self._storage.device, out)


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


def minmax_reduction_meta(op: str):
    def meta(self, dim=(), keepdim=False) -> Spec:
        if self._dtype.is_complex:
            raise NotImplementedError(f"\"{'max' if op == 'amax' else 'min'}_values_cpu\" not implemented for "
                                      f"'{scalar_type_name(self._dtype)}'")
        _check_nonempty(op, self, dim)
        normalize_dims(dim, self.dim())
        return Spec(reduce_shape(self._size, dim, keepdim), self._dtype, self._storage.device)
    return meta


register("amax", "amax.out", None)(minmax_reduction_meta("amax"))
register("amin", "amin.out", None)(minmax_reduction_meta("amin"))


def arg_reduction_meta(op: str):
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


register("argmax", "argmax.out", None)(arg_reduction_meta("argmax"))
register("argmin", "argmin.out", None)(arg_reduction_meta("argmin"))


def softmax_meta(op: str):
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


register("_softmax", "_softmax.out", None)(softmax_meta("softmax"))
register("_log_softmax", "_log_softmax.out", None)(softmax_meta("log_softmax"))
