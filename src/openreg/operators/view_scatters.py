"""The scatter counterparts of views: ``slice_scatter``, ``select_scatter``, ``diagonal_scatter`` and
``as_strided_scatter`` return a copy of ``self`` with the region the view would see replaced by ``src`` (what
functionalization turns view writes into). Each is a clone, the view of the clone, and ``copy_``: differentiable
(``self`` receives the gradient outside the region, ``src`` the gradient inside it), on every device.

>>> import openreg
>>> openreg.select_scatter(openreg.zeros(2, 2), openreg.ones(2), 0, 0).tolist()
[[1.0, 1.0], [0.0, 0.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _check_src(view, src) -> None:
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")


def _scatter(self, src, view_of):
    out = A.clone(self)
    view = view_of(out)
    _check_src(view, src)
    view.copy_(src)
    return out


def _slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return _scatter(self, src, lambda t: A.slice__Tensor(t, dim, start, end, step))


def _select_scatter(self, src, dim, index):
    return _scatter(self, src, lambda t: A.select__int(t, dim, index))


def _diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return _scatter(self, src, lambda t: A.diagonal(t, offset, dim1, dim2))


def _as_strided_scatter(self, src, size, stride, storage_offset=None):
    # The result keeps self's layout within a storage of its own (self's storage offset included), and
    # ``size/stride/storage_offset`` are positions in that storage, as PyTorch's: a region outside self's elements
    # leaves the result equal to self.
    offset = self.storage_offset() if storage_offset is None else storage_offset

    def extent(shape, strides, start):
        return start + sum((n - 1) * s for n, s in zip(shape, strides)) + 1 if all(shape) else start

    n = max(extent(self.shape, self.stride(), self.storage_offset()), extent(size, stride, offset))
    positions = A.arange(n, device=self.device)
    mine = A.as_strided(positions, list(self.shape), list(self.stride()), self.storage_offset())
    region = A.as_strided(positions, list(size), list(stride), offset)
    _check_src(region, src)
    # functional index writes (no in-place write through overlapping strided views): self's elements, then src's
    buf = A.zeros([n], dtype=self._dtype, device=self.device)
    buf = A.index_put(buf, [mine.reshape(-1)], self.reshape(-1))
    buf = A.index_put(buf, [region.reshape(-1)], src.reshape(-1).to(self._dtype))
    return buf[mine]


def _op(name: str, schema: str, fn, doc: str) -> Op:
    return Op(name, schema, kernels={name: {CIA: fn}}, doc=doc)


slice_scatter = _op("slice_scatter", """
    slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor
    """, _slice_scatter, """A copy of ``self`` with ``self[start:end:step]`` along ``dim`` replaced by ``src``.

    >>> import openreg
    >>> openreg.slice_scatter(openreg.zeros(2, 4), openreg.ones(2, 2), dim=1, step=2).tolist()
    [[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
    """)
select_scatter = _op("select_scatter", """
    select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor
    """, _select_scatter, """A copy of ``self`` with ``self.select(dim, index)`` replaced by ``src``.

    >>> import openreg
    >>> openreg.select_scatter(openreg.zeros(2, 2), openreg.ones(2), 1, 0).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """)
diagonal_scatter = _op("diagonal_scatter", """
    diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor
    """, _diagonal_scatter, """A copy of ``self`` with ``self.diagonal(offset, dim1, dim2)`` replaced by ``src``.

    >>> import openreg
    >>> openreg.diagonal_scatter(openreg.zeros(2, 2), openreg.ones(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """)
as_strided_scatter = _op("as_strided_scatter", """
    as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor
    """, _as_strided_scatter, """A copy of ``self`` with the elements ``self.as_strided(size, stride, storage_offset)``
    would see replaced by ``src``.

    >>> import openreg
    >>> openreg.as_strided_scatter(openreg.zeros(4), openreg.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """)

register(slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter)
