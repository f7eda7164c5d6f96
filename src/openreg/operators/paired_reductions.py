"""Reductions that return two results from one pass in PyTorch: ``std_mean``, ``var_mean`` (the spread and the
mean, as a tuple) and ``aminmax`` (the named tuple ``(min, max)``). Composite: their gradients come from
``var``/``std``/``mean``/``amin``/``amax``.

>>> import openreg
>>> x = openreg.tensor([[1.0, 5.0], [3.0, 2.0]])
>>> [t.tolist() for t in openreg.var_mean(x, 1, unbiased=False)], openreg.aminmax(x).max.item()
([[4.0, 0.25], [3.0, 2.5]], 5.0)
"""
from __future__ import annotations

from collections import namedtuple

from .._dispatch.ops import A
from ..aten.meta_rules import wrap_dim
from ._record import Op, register

_AMinMax = namedtuple("aminmax", ["min", "max"])


def _spread_mean(name: str):
    """The kernel of ``var_mean``/``std_mean``: the spread with ``correction`` and the mean over ``dim``."""
    def impl(self, dim=None, *, correction=None, keepdim=False):
        spread = getattr(A, f"{name}__correction")
        dims = [] if dim is None else [dim] if isinstance(dim, int) else list(dim)
        mean = A.mean__dim(self, dims or None, keepdim) if dims else (
            A.mean__dim(self, None, True) if keepdim else A.mean(self))
        return spread(self, dim, correction=correction, keepdim=keepdim), mean
    return impl


def _spread_mean_function(name: str):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        if out is not None:
            raise NotImplementedError(f"openreg: {name}_mean(..., out=) is not implemented")
        if isinstance(dim, bool):          # var_mean(input, unbiased)
            dim, unbiased = None, dim
        if unbiased is not None:
            if correction is not None:
                raise RuntimeError(f"{name}_mean: can't specify both unbiased and correction")
            correction = 1 if unbiased else 0
        return getattr(A, f"{name}_mean__correction")(input, dim, correction=correction, keepdim=keepdim)
    fn.__name__ = fn.__qualname__ = f"{name}_mean"
    what = "variance" if name == "var" else "standard deviation"
    fn.__doc__ = f"""The {what} and the mean over ``dim`` (all dims by default), with Bessel's ``correction``
    (default 1; ``unbiased=False`` means 0), as the tuple ``({name}, mean)``.

    >>> import openreg
    >>> [t.item() for t in openreg.{name}_mean(openreg.tensor([1.0, 3.0]), unbiased=False)]
    {[1.0, 2.0]}
    """
    return fn


def _spread_mean_record(name: str) -> Op:
    fn = _spread_mean_function(name)
    return Op(f"{name}_mean", f"""
    {name}_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) \
-> (Tensor, Tensor)
    """, kernels={f"{name}_mean.correction": {"CompositeImplicitAutograd": _spread_mean(name)}},
              function=fn, method=False, doc=fn.__doc__)


var_mean = _spread_mean_record("var")
std_mean = _spread_mean_record("std")


def _aminmax(self, *, dim=None, keepdim=False):
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        if keepdim:
            dims = list(range(self.dim()))
            return A.amin(self, dims, True), A.amax(self, dims, True)
        return A.amin(self), A.amax(self)
    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() and self._size[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    if self.dim() == 0:
        return A.amin(self), A.amax(self)
    return A.amin(self, [d], keepdim), A.amax(self, [d], keepdim)


def aminmax(input, *, dim=None, keepdim=False):
    """The minimum and the maximum over ``dim`` (all elements by default) as the named tuple ``(min, max)``.

    >>> import openreg
    >>> openreg.aminmax(openreg.tensor([[1, 5], [3, 2]]), dim=0).max.tolist()
    [3, 5]
    """
    return _AMinMax(*A.aminmax(input, dim=dim, keepdim=keepdim))


aminmax_op = Op("aminmax", """
    aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
    """, kernels={"aminmax": {"CompositeImplicitAutograd": _aminmax}}, function=aminmax, method=aminmax,
                doc=aminmax.__doc__)

register(var_mean, std_mean, aminmax_op)
