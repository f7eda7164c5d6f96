"""Diagonal matrices and their sums: ``diag`` (a vector's diagonal matrix, or a matrix's diagonal),
``diag_embed`` (the last dimension onto the diagonal of two new ones), ``diagflat`` and ``trace``.

Compositions of ``diagonal`` views, zeros and ``copy_``, so gradients come from those ops on every device; the
results are new tensors (never views), as PyTorch's. Kernel methods (``kernel.diag().sum()``), covariance code
and MMD losses call them.

>>> import openreg
>>> openreg.diag(openreg.tensor([1.0, 2.0])).tolist()
[[1.0, 0.0], [0.0, 2.0]]
>>> m = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> openreg.diag(m).tolist(), openreg.diag(m, 1).tolist(), openreg.trace(m).item()
([1.0, 4.0], [2.0], 5.0)
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _wrap_dim(dim: int, ndim: int) -> int:
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1):
    n = self.dim() + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = self.shape[-1] + abs(offset) if self.dim() else 1 + abs(offset)
    rest = list(self.shape[:-1])
    shape = []
    for i in range(n):
        shape.append(size if i in (d1, d2) else rest.pop(0))
    out = A.new_zeros(self, shape)
    A.copy_(A.diagonal(out, offset, d1, d2), self)
    return out


def _diag(self, diagonal: int = 0):
    if self.dim() == 1:
        return _diag_embed(self, diagonal, 0, 1)
    if self.dim() == 2:
        return A.clone(A.diagonal(self, diagonal, 0, 1))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


def _diagflat(self, offset: int = 0):
    return _diag_embed(A.reshape(self, [-1]), offset, 0, 1)


def _trace(self):
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    if self.dtype is _dt.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return A.sum(A.diagonal(self, 0, 0, 1))


diag = Op("diag", "diag(Tensor self, int diagonal=0) -> Tensor", kernels={"diag": {CIA: _diag}},
          doc="""A 1-D input's diagonal matrix (on diagonal ``diagonal``), or a 2-D input's diagonal (a copy).

    >>> import openreg
    >>> openreg.diag(openreg.tensor([1, 2]), 1).tolist()
    [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """)

diag_embed = Op(
    "diag_embed", "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
    kernels={"diag_embed": {CIA: _diag_embed}},
    doc="""The last dimension of ``input`` placed on the ``offset`` diagonal of new dimensions ``dim1``, ``dim2``.

    >>> import openreg
    >>> openreg.diag_embed(openreg.tensor([[1.0, 2.0], [3.0, 4.0]])).shape
    openreg.Size([2, 2, 2])
    """)

diagflat = Op("diagflat", "diagflat(Tensor self, int offset=0) -> Tensor", kernels={"diagflat": {CIA: _diagflat}},
              doc="""The flattened input as the ``offset`` diagonal of a square matrix.

    >>> import openreg
    >>> openreg.diagflat(openreg.tensor([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """)

trace = Op("trace", "trace(Tensor self) -> Tensor", kernels={"trace": {CIA: _trace}},
           doc="""The sum of a matrix's diagonal.

    >>> import openreg
    >>> openreg.trace(openreg.arange(9).reshape(3, 3)).item()
    12
    """)

register(diag, diag_embed, diagflat, trace)
