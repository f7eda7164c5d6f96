"""Meta rules shared by the elementwise families: broadcasting, type promotion (wrapped numbers count as the
Python scalars they hold), common device, and the dtype checks PyTorch's kernels make.

>>> import openreg
>>> spec = binary_spec("add", openreg.ones(2, 1, dtype=openreg.int8), openreg.ones(3))
>>> tuple(spec.size), spec.dtype
((2, 3), openreg.float32)
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..aten.meta_rules import Spec, broadcast_shapes, common_device, result_type, scalar_type_name
from ..tensor import TensorBase

_SCALAR_CATEGORY = {bool: _dt.BOOL, int: _dt.INTEGRAL, float: _dt.FLOATING, complex: _dt.COMPLEX}


def unwrap_number(x):
    """A wrapped-number tensor (``functions_math.wrap_scalar``) as its Python scalar, for promotion."""
    if isinstance(x, TensorBase) and x.__dict__.get("_wrapped_number"):
        return x.item()
    return x


def promote(*operands):
    """``result_type`` where wrapped numbers count as the Python scalars they hold."""
    return result_type(*(unwrap_number(x) for x in operands))


def binary_spec(op: str, self, other, out_dtype=None) -> Spec:
    """Broadcast size, promoted dtype and common device of ``self <op> other`` (tensor or Python scalar).

    The result dtype is ``out_dtype`` when given (comparisons give bool); the compute dtype is always the
    promoted one.
    """
    dev = self._storage.device
    d1 = self._dtype
    if isinstance(other, TensorBase):
        s1, s2 = self._size, other._size
        size = s1 if s1 == s2 else broadcast_shapes(s1, s2)
        odev = other._storage.device
        if odev is not dev and odev != dev:
            dev = common_device(op, self, other)
        dtype = d1 if other._dtype is d1 else promote(self, other)
    else:
        size = self._size
        cat = _SCALAR_CATEGORY.get(type(other))
        dtype = d1 if cat is not None and cat <= d1.category else result_type(self, other)
    return Spec(size, out_dtype or dtype, dev, dtype)


def float_spec(op: str, self, other) -> Spec:
    """``binary_spec`` for ops defined on floating types only (``hypot``, ``atan2`` ...): integer and complex
    operands raise PyTorch's "not implemented" error naming the kernel."""
    spec = binary_spec(op, self, other)
    if not spec.compute.is_floating_point:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
    return spec


def check_tensor(op: str, name: str, value) -> None:
    if not isinstance(value, TensorBase):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def is_integral(d, include_bool: bool = True) -> bool:
    return d.category == _dt.INTEGRAL or (include_bool and d.category == _dt.BOOL)


def not_for_bool(op: str, spec: Spec, kernel: str | None = None) -> None:
    if spec.compute is _dt.bool:
        raise NotImplementedError(f"\"{kernel or op}\" not implemented for 'Bool'")


def not_for_complex_kernel(spec: Spec, kernel: str) -> None:
    if spec.compute.is_complex:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(spec.compute)}'")


def not_for_complex(op: str, spec: Spec, what: str) -> None:
    if spec.compute.is_complex:
        raise RuntimeError(f"{op}{what}")


__all__ = ["binary_spec", "check_tensor", "float_spec", "is_integral", "not_for_bool", "not_for_complex",
           "not_for_complex_kernel", "promote", "unwrap_number"]
