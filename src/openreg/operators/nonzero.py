"""``nonzero``: the indices of the non-zero elements, a data-dependent shape (so Meta cannot run it).

>>> import openreg
>>> x = openreg.tensor([[1, 0], [0, 3]])
>>> openreg.ops.aten.nonzero.default(x).tolist()
[[0, 0], [1, 1]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import to_compute, wrap_array
from .._dispatch.ops import A
from ..aten.float8_support import is_float8, refuse_float8
from ..aten.meta_rules import scalar_type_name
from ..tensor import Size, TensorBase
from ._record import Op, register

_META_MESSAGE = ("aten::nonzero on the Meta backend: unimplemented, as a correct data-independent implementation "
                 "does not exist (the size of its output depends on the values of its input, which a meta tensor "
                 "does not have)")


def _indices(self: TensorBase):
    """The ``(ndim, N)`` int64 index array of ``self``'s non-zero elements, in ``self``'s array module."""
    if self._qparams is not None:
        raise NotImplementedError(f"nonzero is not supported for quantized tensors ({self._dtype})")
    arr = to_compute(self)
    xp = self._storage._backend.array_module
    if arr.ndim == 0:
        return xp.zeros((0, 1 if bool(arr != 0) else 0), dtype=xp.int64)
    found = xp.nonzero(arr)
    return xp.stack([xp.asarray(i, dtype=xp.int64) for i in found])


def _nonzero_explicit(self: TensorBase) -> TensorBase:
    if is_float8(self._dtype):
        refuse_float8("nonzero", self._dtype)
    idx = _indices(self)
    ndim, n = idx.shape
    flat = wrap_array(idx, _dt.int64, self.device)  # (ndim, N) row-major is (N, ndim) column-major
    return TensorBase._make(flat._storage, Size((n, ndim)), (1, n), 0, _dt.int64)


def nonzero_out(self: TensorBase, *, out: TensorBase) -> TensorBase:
    if out._dtype is not _dt.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{scalar_type_name(out._dtype)}")
    from ..aten.structured import resize_out
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


def meta_nonzero(self: TensorBase) -> TensorBase:
    raise NotImplementedError(_META_MESSAGE)


def meta_nonzero_out(self: TensorBase, *, out: TensorBase) -> TensorBase:
    raise NotImplementedError(_META_MESSAGE)


def nonzero(input, *, out=None, as_tuple: bool = False):
    """Indices of the non-zero elements: an ``(N, input.dim())`` int64 tensor, or with ``as_tuple=True`` one
    index vector per dimension (a 0-d input counts as 1-d).

    >>> import openreg
    >>> x = openreg.tensor([[1, 0], [0, 3]])
    >>> openreg.nonzero(x).tolist(), [t.tolist() for t in openreg.nonzero(x, as_tuple=True)]
    ([[0, 0], [1, 1]], [[0, 1], [0, 1]])
    """
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return tuple(A.where(input))
    if out is not None:
        return A.nonzero__out(input, out=out)
    return A.nonzero(input)


def _nonzero_method(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


nonzero_op = Op(
    "nonzero",
    """
    nonzero(Tensor self) -> Tensor  [core, dynamic_output_shape]
    nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [dynamic_output_shape]
    """,
    kernels={"nonzero": {"CompositeExplicitAutograd": _nonzero_explicit, "Meta": meta_nonzero},
             "nonzero.out": {"CompositeExplicitAutograd": nonzero_out, "Meta": meta_nonzero_out}},
    function=nonzero, method=_nonzero_method)

argwhere = Op(
    "argwhere",
    """
    argwhere(Tensor self) -> Tensor
    """,
    kernels={"argwhere": {"CompositeImplicitAutograd": lambda self: A.nonzero(self)}},
    doc="""The indices of the non-zero elements, one row per element (``nonzero``'s result).

    >>> import openreg
    >>> openreg.argwhere(openreg.tensor([[0, 5], [7, 0]])).tolist()
    [[0, 1], [1, 0]]
    """,
)

register(nonzero_op, argwhere)
