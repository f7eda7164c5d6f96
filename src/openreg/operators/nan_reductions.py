"""Reductions that skip NaN: ``nansum`` (NaN counts as zero) and ``nanmean`` (the mean of the non-NaN elements).
CompositeImplicitAutograd, as PyTorch's ``nanmean``: the gradient reaches only the non-NaN elements.

>>> import openreg
>>> x = openreg.tensor([[1.0, float("nan")], [3.0, 2.0]])
>>> openreg.nansum(x).item(), openreg.nanmean(x, 0).tolist()
(6.0, [2.0, 2.0])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import scalar_type_name
from ._record import Op, register


def _zeroed_nan(self):
    """``self`` with NaN replaced by 0 (integers and bool have none)."""
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        return self
    return A.where__ScalarSelf(A.isnan(self), 0, self)


def _nansum(self, dim=None, keepdim=False, *, dtype=None):
    if self._dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs")
    x = _zeroed_nan(self)
    if dim is None and not keepdim:
        return A.sum(x, dtype=dtype)
    return A.sum__dim_IntList(x, dim, keepdim, dtype=dtype)


def _nanmean(self, dim=None, keepdim=False, *, dtype=None):
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{scalar_type_name(self._dtype)}")
    count = A.sum__dim_IntList(A.logical_not(A.isnan(self)), dim, keepdim)
    return A.div__Tensor(_nansum(self, dim, keepdim, dtype=dtype), count)


def _nan_function(name: str):
    def fn(input, dim=None, keepdim=False, *, dtype=None):
        return getattr(A, name)(input, dim, keepdim, dtype=dtype)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _nan_record(name: str, impl, doc: str) -> Op:
    fn = _nan_function(name)
    fn.__doc__ = doc
    return Op(name, f"""
    {name}(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
    """, kernels={name: {"CompositeImplicitAutograd": impl}}, function=fn, method=fn, doc=doc)


nansum = _nan_record("nansum", _nansum, """The sum over ``dim`` (all dims by default), NaN counted as zero.

    >>> import openreg
    >>> openreg.nansum(openreg.tensor([1.0, float("nan"), 2.0])).item()
    3.0
    """)
nanmean = _nan_record("nanmean", _nanmean, """The mean over ``dim`` of the elements that are not NaN.

    >>> import openreg
    >>> openreg.nanmean(openreg.tensor([1.0, float("nan"), 2.0])).item()
    1.5
    """)

register(nansum, nanmean)
