"""``nonzero`` (indices of the non-zero elements, a data-dependent shape) and ``where(condition)``.

One CompositeExplicitAutograd kernel serves the CPU and the device (written against the storage's array
module); Meta raises ``NotImplementedError`` as PyTorch does (the output size depends on the data).
The result is ``(N, ndim)`` int64 laid out column-major (strides ``(1, N)``) like PyTorch's CPU kernel, so
``where(condition)`` (``nonzero(condition).unbind(1)``) gives contiguous index vectors.

>>> import openreg
>>> x = openreg.tensor([[1, 0], [2, 3]])
>>> openreg.ops.aten.nonzero.default(x).tolist()
[[0, 0], [1, 0], [1, 1]]
>>> [t.tolist() for t in openreg.ops.aten.where.default(x)]
[[0, 1, 1], [0, 0, 1]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import to_compute, wrap_array
from .._dispatch.tags import Tag
from ..tensor import Size, Tensor
from .meta_rules import scalar_type_name
from .structured import resize_out
from .views import A

SCHEMAS = [
    ("nonzero(Tensor self) -> Tensor", (Tag.core, Tag.dynamic_output_shape)),
    ("nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", (Tag.dynamic_output_shape,)),
    ("where(Tensor condition) -> Tensor[]", ()),
]

_META_MESSAGE = ("aten::nonzero on the Meta backend: unimplemented, as a correct data-independent implementation "
                 "does not exist (the size of its output depends on the values of its input, which a meta tensor "
                 "does not have)")


def _indices(self: Tensor):
    """The ``(ndim, N)`` int64 index array of ``self``'s non-zero elements, in ``self``'s array module."""
    if self._qparams is not None:
        raise NotImplementedError(f"nonzero is not supported for quantized tensors ({self._dtype})")
    arr = to_compute(self)
    xp = self._storage._backend.array_module
    if arr.ndim == 0:
        return xp.zeros((0, 1 if bool(arr != 0) else 0), dtype=xp.int64)
    found = xp.nonzero(arr)
    return xp.stack([xp.asarray(i, dtype=xp.int64) for i in found])


def nonzero(self: Tensor) -> Tensor:
    idx = _indices(self)
    ndim, n = idx.shape
    flat = wrap_array(idx, _dt.int64, self.device)  # (ndim, N) row-major is (N, ndim) column-major
    return Tensor._make(flat._storage, Size((n, ndim)), (1, n), 0, _dt.int64)


def nonzero_out(self: Tensor, *, out: Tensor) -> Tensor:
    if out._dtype is not _dt.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{scalar_type_name(out._dtype)}")
    if out.device != self.device:
        raise RuntimeError(f"Expected object of device type {self.device.type} but got device type "
                           f"{out.device.type} for argument 'out' in call to nonzero_out")
    idx = _indices(self)
    ndim, n = idx.shape
    if tuple(out._size) != (n, ndim):
        resize_out("nonzero", out, (n, ndim))
        out._set_meta((n, ndim), (1, n), out._offset)
    if n and ndim:
        out._array()[...] = idx.T
    return out


def meta_nonzero(self: Tensor) -> Tensor:
    raise NotImplementedError(_META_MESSAGE)


def meta_nonzero_out(self: Tensor, *, out: Tensor) -> Tensor:
    raise NotImplementedError(_META_MESSAGE)


def where_condition(condition: Tensor) -> list:
    """``aten::where(Tensor condition) -> Tensor[]``: ``nonzero(condition, as_tuple=True)``."""
    if condition.dim() == 0:
        condition = A.unsqueeze(condition, 0)
    return list(A.unbind__int(A.nonzero(condition), 1))


EXPLICIT = {"nonzero": nonzero, "nonzero.out": nonzero_out}
IMPLICIT = {"where": where_condition}
META = {"nonzero": meta_nonzero, "nonzero.out": meta_nonzero_out}
