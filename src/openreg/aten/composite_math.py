"""CompositeImplicitAutograd decompositions of math ops (``matmul``, ``outer``, ``softmax.int`` ...).

They call other aten ops only, so they work unchanged on every backend (CPU, the device, Meta) and
autograd sees the ops they decompose into, as in PyTorch. ``_foreach_add`` is a per-tensor loop over
``add`` registered for CPU and Meta (the device runs it through its CPU fallback).

>>> import openreg
>>> a, b = openreg.ones(2, 1, 3, 4), openreg.ones(5, 4, 2)
>>> openreg.ops.aten.matmul.default(a, b).shape
openreg.Size([2, 5, 3, 2])
"""
from __future__ import annotations

from .._dispatch.ops import ops
from ..tensor import Tensor
from .meta_rules import broadcast_shapes, can_cast, result_type, scalar_type_name
from .structured import resize_out


class _Overloads:
    """``ops.aten`` overloads looked up on first use, then kept (a namespace lookup scans the registry).

    Lazy because this module is imported before the operators are defined. ``_A.add___Tensor`` is
    ``ops.aten.add_.Tensor``: the text after the last double underscore is the overload name.
    """

    def __getattr__(self, key: str):
        name, _, overload = key.rpartition("__")
        value = getattr(getattr(ops.aten, name), overload)
        setattr(self, key, value)
        return value


_A = _Overloads()


def _view(t: Tensor, size) -> Tensor:
    size = tuple(size)
    if t.is_contiguous():
        return _A.view__default(t, size)
    return _A.view__default(t.contiguous(), size)


def _expand(t: Tensor, size) -> Tensor:
    """``t`` broadcast to ``size`` (a view with zero strides on the new/broadcast dims)."""
    size = tuple(size)
    if tuple(t._size) == size:
        return t
    lead = len(size) - t.dim()
    stride = [0] * lead
    for s, st, target in zip(t._size, t._stride, size[lead:]):
        stride.append(0 if s == 1 and target != 1 else st)
    return _A.as_strided__default(t, size, tuple(stride), t._offset)


def _prod(size) -> int:
    n = 1
    for s in size:
        n *= s
    return n


def matmul(self: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul: dot, mv-like, mm, or broadcast batched bmm, chosen by the operands' dims."""
    for name, value in (("self", self), ("other", other)):
        if not isinstance(value, Tensor):
            raise TypeError(f"matmul(): argument '{name}' must be Tensor, not {type(value).__name__}")
    d1, d2 = self.dim(), other.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _A.dot__default(self, other)
    if d1 == 2 and d2 == 2:
        return _A.mm__default(self, other)
    if d1 == 2 and d2 == 1:
        return _view(_A.mm__default(self, _view(other, (other._size[0], 1))), (self._size[0],))
    if d1 == 1 and d2 == 2:
        return _view(_A.mm__default(_view(self, (1, self._size[0])), other), (other._size[1],))
    if d1 >= 3 and d2 <= 2:
        # Fold the batch dims of self into the rows of one mm.
        batch = tuple(self._size[:-1])
        folded = _view(self, (_prod(batch), self._size[-1]))
        if d2 == 1:
            return _view(_A.mm__default(folded, _view(other, (other._size[0], 1))), batch)
        return _view(_A.mm__default(folded, other), batch + (other._size[1],))
    a = _view(self, (1, self._size[0])) if d1 == 1 else self
    b = _view(other, (other._size[0], 1)) if d2 == 1 else other
    n, m1 = a._size[-2:]
    m2, p = b._size[-2:]
    batch = broadcast_shapes(tuple(a._size[:-2]), tuple(b._size[:-2]))
    nb = _prod(batch)
    a3 = _view(_expand(a, batch + (n, m1)), (nb, n, m1))
    b3 = _view(_expand(b, batch + (m2, p)), (nb, m2, p))
    out_size = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    return _view(_A.bmm__default(a3, b3), out_size)


def _copy_into(op: str, result: Tensor, out: Tensor) -> Tensor:
    if not can_cast(result._dtype, out._dtype):
        raise RuntimeError(f"{op}: result type {scalar_type_name(result._dtype)} can't be cast to the desired "
                           f"output type {scalar_type_name(out._dtype)}")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    resize_out(op, out, result._size)
    return _A.copy___default(out, result)


def matmul_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    """``matmul`` written into ``out`` (resized as PyTorch resizes outputs)."""
    if self.dim() == 2 and other.dim() == 2:
        return _A.mm__out(self, other, out=out)
    return _copy_into("matmul", matmul(self, other), out)


def _check_vector(name: str, t: Tensor) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")


def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """``self[:, None] * vec2`` for two vectors."""
    _check_vector("self", self)
    _check_vector("vec2", vec2)
    return _A.mul__Tensor(_view(self, (self._size[0], 1)), vec2)


def outer_out(self: Tensor, vec2: Tensor, *, out: Tensor) -> Tensor:
    _check_vector("self", self)
    _check_vector("vec2", vec2)
    return _A.mul__out(_view(self, (self._size[0], 1)), vec2, out=out)


def softmax(self: Tensor, dim: int, dtype=None) -> Tensor:
    """``_softmax`` after converting to ``dtype`` when given."""
    converted = self if dtype is None else self.to(dtype)
    return _A._softmax__default(converted, dim, False)


def log_softmax(self: Tensor, dim: int, dtype=None) -> Tensor:
    """``_log_softmax`` after converting to ``dtype`` when given."""
    converted = self if dtype is None else self.to(dtype)
    return _A._log_softmax__default(converted, dim, False)


def _check_lists(op: str, a, b) -> None:
    if len(a) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(a) != len(b):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(a)} and {len(b)}")


def foreach_add(self: list, other: list, *, alpha=1) -> list:
    """``[a + alpha * b for a, b in zip(self, other)]``."""
    _check_lists("_foreach_add", self, other)
    add = _A.add__Tensor
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
    from .foreach_ops import add_list_fast
    if add_list_fast(self, other, alpha):   # one pass over the arrays (same arithmetic as add_)
        return
    add_ = _A.add___Tensor
    for a, b in zip(self, other):
        add_(a, b, alpha=alpha)


COMPOSITE_IMPLICIT = {
    "matmul": matmul, "matmul.out": matmul_out, "outer": outer, "outer.out": outer_out,
    "softmax.int": softmax, "log_softmax.int": log_softmax,
}
FOREACH = {"_foreach_add.List": foreach_add, "_foreach_add_.List": foreach_add_}

__all__ = ["COMPOSITE_IMPLICIT", "FOREACH"]
