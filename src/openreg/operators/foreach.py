"""Multi-tensor (``_foreach_*``) operators used by the optimizers and gradient clipping, as in PyTorch:
``_foreach_add(_).List``, ``_foreach_mul_.Scalar``/``.Tensor`` and ``_foreach_norm.Scalar``.

When every tensor of the lists is float32/float64 on one backend with matching sizes, the update runs
straight on the storage arrays (NumPy, or CuPy on the cuda driver) with the same arithmetic as the single-tensor
kernels (``a + b * alpha``, ``a * s`` in the tensor's dtype): one dispatch for the whole list. Otherwise each
tensor goes through the single-tensor op. The ADInplaceOrView layer bumps every written tensor's version.

>>> import openreg
>>> a = [openreg.ones(2), openreg.ones(3)]
>>> openreg.ops.aten._foreach_mul_.Scalar(a, 2.0)
>>> [t.tolist() for t in a]
[[2.0, 2.0], [2.0, 2.0, 2.0]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.keys import BACKEND_MASK
from .._dispatch.ops import A
from ..aten.meta_rules import broadcast_shapes, can_cast, result_type, scalar_type_name
from ..tensor import TensorBase
from ._record import Op, register

_FAST_DTYPES = (_dt.float32, _dt.float64)


def _fast(self: list, other: list | None = None) -> bool:
    """Whether the list update can run on the arrays directly (same dtype, backend and sizes)."""
    for i, a in enumerate(self):
        if not isinstance(a, TensorBase) or a._dtype not in _FAST_DTYPES or a._storage.device._type == "meta" or \
                not a.is_contiguous():
            return False
        if other is not None:
            b = other[i]
            if not isinstance(b, TensorBase) or b._dtype is not a._dtype or (b._ks ^ a._ks) & BACKEND_MASK or \
                    b._storage.device != a._storage.device or b._size != a._size:
                return False
    return True


def _add_list_fast(self: list, other: list, alpha) -> bool:
    """``a += b * alpha`` on the arrays when possible; returns False (nothing written) otherwise."""
    if not _fast(self, other) or isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        return False
    for a, b in zip(self, other):
        xp = a._storage._backend.array_module
        arr = a._array()
        src = b._array()
        if alpha != 1:
            src = src * xp.asarray(alpha, dtype=src.dtype)
        xp.add(arr, src, out=arr)
    return True


def foreach_mul_scalar_(self: list, scalar) -> None:
    """``a.mul_(scalar)`` for each tensor."""
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if _fast(self) and isinstance(scalar, (int, float)) and not isinstance(scalar, bool):
        for a in self:
            xp = a._storage._backend.array_module
            arr = a._array()
            xp.multiply(arr, xp.asarray(scalar, dtype=arr.dtype), out=arr)
        return
    mul_ = A.mul___Scalar
    for a in self:
        mul_(a, scalar)


def foreach_mul_tensor_(self: list, other) -> None:
    """``a.mul_(other)`` for each tensor (``other`` a 0-d tensor: ``clip_grad_norm_``'s coefficient)."""
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if other.dim() != 0:
        raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and "
                           f"{other.numel()} elements.")
    if _fast(self) and all(a._dtype is other._dtype and a._storage.device == other._storage.device for a in self):
        for a in self:
            xp = a._storage._backend.array_module
            arr = a._array()
            xp.multiply(arr, other._array(), out=arr)
        return
    mul_ = A.mul___Tensor
    for a in self:
        mul_(a, other)


def foreach_norm(self: list, ord=2, dtype=None) -> list:
    """``[linalg.vector_norm(a, ord, dtype=dtype) for a in self]``; the 2-norms of float32/float64 tensors as
    ``sqrt(sum(a * a))`` straight on the arrays (the same arithmetic as the single-tensor ops)."""
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if dtype is None and not isinstance(ord, bool) and ord == 2 and _fast(self):
        from .._array_bridge import wrap_array
        out = []
        for a in self:
            xp = a._storage._backend.array_module
            arr = a._array()
            total = (arr * arr).sum(axis=tuple(range(arr.ndim)), dtype=arr.dtype)
            out.append(wrap_array(xp.sqrt(xp.asarray(total)), a._dtype, a.device))
        return out
    norm = A.linalg_vector_norm
    return [norm(a, ord, dtype=dtype) for a in self]


def meta_foreach_norm(self: list, ord=2, dtype=None) -> list:
    from ..aten.structured import empty_tensor
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return [empty_tensor((), dtype or a._dtype, a._storage.device) for a in self]


def meta_foreach_mul_scalar_(self: list, scalar) -> None:
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def _check_lists(op: str, a, b) -> None:
    if len(a) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(a) != len(b):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(a)} and {len(b)}")


def foreach_add(self: list, other: list, *, alpha=1) -> list:
    """``[a + alpha * b for a, b in zip(self, other)]``."""
    _check_lists("_foreach_add", self, other)
    add = A.add__Tensor
    return [add(a, b, alpha=alpha) for a, b in zip(self, other)]


def foreach_add_(self: list, other: list, *, alpha=1) -> None:
    """``a.add_(b, alpha=alpha)`` for each pair; checks every pair before writing any."""
    _check_lists("_foreach_add_", self, other)
    for a, b in zip(self, other):
        if broadcast_shapes(a._size, b._size) != tuple(a._size):
            raise RuntimeError(f"output with shape {list(a._size)} doesn't match the broadcast shape "
                               f"{list(broadcast_shapes(a._size, b._size))}")
        result = result_type(a, b)
        if not can_cast(result, a._dtype):
            raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired output type "
                               f"{scalar_type_name(a._dtype)}")
    if _add_list_fast(self, other, alpha):   # one pass over the arrays (same arithmetic as add_)
        return
    add_ = A.add___Tensor
    for a, b in zip(self, other):
        add_(a, b, alpha=alpha)



def _foreach_add(self: list, other: list, *, alpha=1) -> list:
    """``[a + alpha * b for a, b in zip(self, other)]`` as one operator call.

    >>> import openreg
    >>> [t.tolist() for t in openreg._foreach_add([openreg.ones(2)], [openreg.ones(2)])]
    [[2.0, 2.0]]
    """
    _check_lists("_foreach_add", self, other)
    return A._foreach_add__List(self, other, alpha=alpha)


def _foreach_add_(self: list, other: list, *, alpha=1) -> None:
    """In-place ``a.add_(b, alpha=alpha)`` for each pair.

    >>> import openreg
    >>> a = [openreg.ones(2)]
    >>> openreg._foreach_add_(a, [openreg.ones(2)]); a[0].tolist()
    [2.0, 2.0]
    """
    _check_lists("_foreach_add_", self, other)
    A._foreach_add___List(self, other, alpha=alpha)


foreach_add = Op(
    "_foreach_add",
    """
    _foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]
    _foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()
    """,
    kernels={"_foreach_add.List": {"Backend": foreach_add, "Meta": foreach_add},
             "_foreach_add_.List": {"Backend": foreach_add_, "Meta": foreach_add_}},
    function=_foreach_add, method=False, extra_functions={"_foreach_add_": _foreach_add_})
foreach_mul = Op(
    "_foreach_mul",
    """
    _foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()
    _foreach_mul_.Tensor(Tensor(a!)[] self, Tensor other) -> ()
    """,
    kernels={"_foreach_mul_.Scalar": {"CompositeExplicitAutograd": foreach_mul_scalar_,
                                      "Meta": meta_foreach_mul_scalar_},
             "_foreach_mul_.Tensor": {"CompositeExplicitAutograd": foreach_mul_tensor_,
                                      "Meta": lambda self, other: meta_foreach_mul_scalar_(self, other)}},
    function=False, method=False)

foreach_norm_op = Op(
    "_foreach_norm",
    "_foreach_norm.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype=None) -> Tensor[]",
    kernels={"_foreach_norm.Scalar": {"Backend": foreach_norm, "Meta": meta_foreach_norm}},
    function=False, method=False,
    doc="""The vector norm of each tensor of a list (``clip_grad_norm_`` calls it per device and dtype).

    >>> import openreg
    >>> [t.item() for t in openreg.ops.aten._foreach_norm.Scalar([openreg.tensor([3.0, 4.0]), openreg.ones(4)])]
    [5.0, 2.0]
    """)

register(foreach_add, foreach_mul, foreach_norm_op)
