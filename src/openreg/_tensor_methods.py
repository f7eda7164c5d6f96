"""Tensor methods and Python operators, each a thin call of an ``openreg.ops`` overload.

Installed on ``Tensor`` at import (after the operators are defined). Overloads are looked up once here so
that a method call costs one Python call plus the dispatch.

>>> import openreg
>>> (openreg.tensor([1.0, -2.0]) + 1).abs().tolist()
[2.0, 1.0]
"""
from __future__ import annotations

from ._dispatch.ops import ops
from .tensor import Tensor

aten = ops.aten
_abs, _abs_ = aten.abs.default, aten.abs_.default
_add_t, _add_s, _add_t_, _add_s_ = aten.add.Tensor, aten.add.Scalar, aten.add_.Tensor, aten.add_.Scalar
_sum, _sum_dim = aten.sum.default, aten.sum.dim_IntList
_mm = aten.mm.default


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _size_args(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


def abs(self):
    return _abs(self)


def abs_(self):
    return _abs_(self)


def add(self, other, *, alpha=1):
    return _add_t(self, other, alpha=alpha) if _is_tensor(other) else _add_s(self, other, alpha)


def add_(self, other, *, alpha=1):
    return _add_t_(self, other, alpha=alpha) if _is_tensor(other) else _add_s_(self, other, alpha)


def __radd__(self, other):
    return _add_s(self, other, 1)


def sum(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return _sum(self, dtype=dtype) if not keepdim else _sum_dim(self, None, True, dtype=dtype)
    return _sum_dim(self, dim, keepdim, dtype=dtype)


def mm(self, mat2):
    return _mm(self, mat2)


# view, as_strided, copy_, fill_, zero_, to, cpu, clone, contiguous, detach: see _tensor_methods_views.py


_METHODS = {
    "abs": abs, "abs_": abs_, "add": add, "add_": add_, "__add__": add, "__radd__": __radd__,
    "__iadd__": add_, "sum": sum, "mm": mm,
}


def install(methods: dict | None = None) -> None:
    """Attach methods to Tensor (also used by later modules that add more)."""
    for name, fn in (methods or _METHODS).items():
        setattr(Tensor, name, fn)


install()
