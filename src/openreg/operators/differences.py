"""Counting and differencing along dimensions: ``count_nonzero`` and ``diff`` (CompositeImplicitAutograd, as in
PyTorch for ``diff``: its gradient flows through the slices and the subtraction).

>>> import openreg
>>> openreg.diff(openreg.tensor([1, 3, 6, 10])).tolist(), openreg.count_nonzero(openreg.tensor([0, 2, 0, 5])).item()
([2, 3, 4], 2)
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import wrap_dim
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _count_nonzero(self, dim=None):
    dims = list(range(self.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return A.sum__dim_IntList(A.ne__Scalar(self, 0), dims, False)


def _diff(self, n=1, dim=-1, prepend=None, append=None):
    if self.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, self.dim())
    if n == 0:                 # as PyTorch: the input itself, prepend and append unused
        return self
    parts = [t for t in (prepend, self, append) if t is not None]
    out = A.cat(parts, d) if len(parts) > 1 else self
    for _ in range(n):
        length = out.shape[d]
        if length == 0:
            break
        hi, lo = A.narrow(out, d, 1, length - 1), A.narrow(out, d, 0, length - 1)
        out = A.logical_xor(hi, lo) if out.dtype is _dt.bool else A.sub__Tensor(hi, lo)
    return out


def count_nonzero_function(input, dim=None):
    """The number of non-zero elements (int64), over every dimension or over ``dim`` (an int or ints).

    >>> import openreg
    >>> x = openreg.tensor([[0, 1, 2], [0, 0, 3]])
    >>> openreg.count_nonzero(x).item(), openreg.count_nonzero(x, dim=0).tolist(), x.count_nonzero((0, 1)).item()
    (3, [0, 1, 2], 3)
    """
    if dim is None or isinstance(dim, int):
        return A.count_nonzero(input, dim)
    return A.count_nonzero__dim_IntList(input, list(dim))


count_nonzero = Op(
    "count_nonzero",
    """
    count_nonzero(Tensor self, int? dim=None) -> Tensor
    count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor
    """,
    kernels={"count_nonzero.dim_IntList": {CIA: _count_nonzero}, "count_nonzero": {CIA: _count_nonzero}},
    function=count_nonzero_function, method=count_nonzero_function,
)

diff = Op(
    "diff",
    """
    diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor
    """,
    kernels={"diff": {CIA: _diff}},
    doc="""The ``n``-th forward difference along ``dim`` (``input[1:] - input[:-1]``; exclusive or for bool),
    after joining ``prepend`` and ``append`` to ``input`` along ``dim``.

    >>> import openreg
    >>> x = openreg.tensor([1, 3, 6, 10])
    >>> openreg.diff(x, n=2).tolist(), openreg.diff(x, prepend=openreg.tensor([0])).tolist()
    ([1, 1], [1, 2, 3, 4])
    """,
)

register(count_nonzero, diff)
