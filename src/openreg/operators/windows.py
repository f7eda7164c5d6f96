"""Sliding windows and conjugate transposes as views: ``Tensor.unfold(dimension, size, step)`` (windows of
``size`` elements every ``step`` along a dimension, as a new last dimension) and ``Tensor.H``/``Tensor.mH``
(the transpose of real matrices; openreg has no conjugation views, so complex inputs are refused by name).

>>> import openreg
>>> openreg.arange(5).unfold(0, 2, 2).tolist()
[[0, 1], [2, 3]]
>>> openreg.tensor([[1, 2]]).H.tolist()
[[1], [2]]
"""
from __future__ import annotations

import warnings

from .._dispatch.ops import A, lookup
from ..aten.meta_rules import wrap_dim
from ..aten.views import make_view
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._formulas import zeros
from ._record import Deriv, Op, register

CEA = "CompositeExplicitAutograd"


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    n = self.dim()
    d = wrap_dim(dimension, max(n, 1))
    length = self._size[d] if n else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if n == 0:
        return make_view(self, [size], [1], self._offset)
    sizes, strides = list(self._size), list(self._stride)
    sizes[d] = (length - size) // step + 1
    strides[d] = self._stride[d] * step
    return make_view(self, sizes + [size], strides + [self._stride[d]], self._offset)


def _unfold_grad(g, a):
    """Every window element's gradient added back at its source position ``window * step + k``."""
    shape = a.size_of("self")
    if len(shape) == 0:
        return g.sum().reshape(())
    d = wrap_dim(a.dimension, len(shape))
    windows = g.shape[d]
    pos = (A.arange(windows, device=g.device).reshape(windows, 1) * a.step
           + A.arange(a.size, device=g.device).reshape(1, a.size)).reshape(-1)
    spread = g.movedim(-1, d + 1).flatten(d, d + 1)
    return lookup("aten::index_add")(zeros(shape, g), d, pos, spread)


def _conjugate_refused(self: Tensor, name: str) -> None:
    if self._dtype.is_complex:
        raise NotImplementedError(f"tensor.{name} of a complex tensor needs conj(), which openreg does not "
                                  f"implement; use .mT for the plain transpose")


def _H(self):
    """The conjugate transpose of a matrix (the transpose for real dtypes)."""
    _conjugate_refused(self, "H")
    if self.dim() == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return self
    if self.dim() != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""))
    return A.transpose__int(self, 0, 1)


def _mH(self):
    """The conjugate transpose of the last two dimensions (the transpose for real dtypes)."""
    _conjugate_refused(self, "mH")
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D "
                           f"tensor.")
    return A.transpose__int(self, -2, -1)


unfold = Op(
    "unfold",
    """
    unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
    """,
    kernels={"unfold": {CEA: _unfold}},
    derivatives={"unfold": Deriv(linear=True, self=_unfold_grad)},
    function=False, extra_methods={"H": property(_H), "mH": property(_mH)},
    doc="""Windows of ``size`` elements every ``step`` along ``dimension``, as a last dimension (a view).

    >>> import openreg
    >>> openreg.arange(6.0).view(2, 3).unfold(1, 2, 1).shape
    openreg.Size([2, 2, 2])
    """,
)

register(unfold)
