"""``put_``/``put``: write (or, with ``accumulate``, add) ``source`` at flat ``index`` positions of ``self`` seen
as one dimension (row-major; negative indices count from the end), as PyTorch's. CompositeImplicitAutograd: an
``index_put_`` on the flat view of ``self``, so the gradient flows as index_put's.

>>> import openreg
>>> x = openreg.zeros(2, 3)
>>> x.put_(openreg.tensor([1, -1]), openreg.tensor([7.0, 8.0])).tolist()
[[0.0, 7.0, 0.0], [0.0, 0.0, 8.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import scalar_type_name
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _check(self, index, source) -> None:
    from .. import dtypes as _dt
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_type_name(index._dtype)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{scalar_type_name(self._dtype)} and source.dtype = {scalar_type_name(source._dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = self.numel()
    if index.numel():
        lo, hi = int(A.min(index)), int(A.max(index))
        bad = hi if hi >= n else lo if lo < -n else None
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")


def _put_(self, index, source, accumulate=False):
    _check(self, index, source)
    idx, src = A.reshape(index, [-1]), A.reshape(source, [-1])
    if self.is_contiguous():
        A.index_put_(A.view(self, [-1]), [idx], src, accumulate)
    else:   # a flat copy written back
        flat = A.index_put(A.reshape(self, [-1]), [idx], src, accumulate)
        A.copy_(self, A.view(flat, list(self.shape)))
    return self


def _put(self, index, source, accumulate=False):
    _check(self, index, source)
    flat = A.index_put(A.reshape(self, [-1]), [A.reshape(index, [-1])], A.reshape(source, [-1]), accumulate)
    return A.view(flat, list(self.shape))


put = Op(
    "put",
    """
    put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor
    put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)
    """,
    kernels={"put": {CIA: _put}, "put_": {CIA: _put_}},
    doc="""``input`` with ``source`` written at the flat positions ``index`` (added there with ``accumulate``).

    >>> import openreg
    >>> openreg.put(openreg.zeros(2, 2), openreg.tensor([3, 3]), openreg.tensor([1.0, 2.0]), accumulate=True).tolist()
    [[0.0, 0.0], [0.0, 3.0]]
    """,
)

register(put)
