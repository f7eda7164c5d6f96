"""Python numbers where PyTorch's functions take tensors: ``openreg.add(x, 2, out=o)``, ``openreg.div(1, x)``.

A number is wrapped into a zero-dim CPU tensor marked as a *wrapped number*, whose dtype follows PyTorch's rule
for scalars, so type promotion is the same as with the number itself.

>>> import openreg
>>> t = wrap_scalar(2)
>>> t.dtype, (openreg.ones(1, dtype=openreg.int8) + t).dtype
(openreg.int64, openreg.int8)
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_compute, wrap_array
from ..tensor import TensorBase

_NUMBER_TYPES = (int, float, bool, complex)


def is_number(x) -> bool:
    """True for Python/NumPy scalars (what a ``Scalar`` argument accepts)."""
    return type(x) in _NUMBER_TYPES or isinstance(x, (numbers.Number, np.generic))


def wrap_scalar(value, like=None):
    """A zero-dim CPU tensor holding the Python number ``value``, marked as a *wrapped number*.

    Like PyTorch's wrapped numbers it promotes as the Python scalar would (``int8_tensor + wrapped(1)`` stays
    int8) and holds the exact value (int64, float64, or complex). ``like`` is unused and kept
    for call sites that pass the other operand.
    """
    if isinstance(value, np.generic):
        value = value.item()
    d = _dt.default_dtype_for_category(_dt.scalar_category(value))
    if isinstance(value, float):
        d = _dt.float64          # PyTorch's wrapped numbers are double: ``math.pi / float64_tensor`` exactly
    if isinstance(value, complex) and _dt.get_default_dtype() is _dt.float64:
        d = _dt.complex128
    arr = np.asarray(value, dtype=d.compute_numpy)
    t = wrap_array(from_compute(arr, d), d)
    t._wrapped_number = True
    return t


def as_tensor_operand(value, like):
    """``value`` itself when it is a tensor, else its wrapped number."""
    return value if isinstance(value, TensorBase) else wrap_scalar(value, like)


def check_input(op: str, value) -> None:
    """PyTorch's error for a first argument that is not a tensor."""
    if not isinstance(value, TensorBase):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")


def binary_operator(tensor_overload: str, scalar_overload: str):
    """A Python operator (``__add__``) over two overloads named as ``ops.A`` attributes (``"add__Tensor"``):
    ``NotImplemented`` for operands that are neither tensors nor numbers, so Python raises its TypeError.

    The method is that call itself: the tensor overload's generated call, which answers a non-tensor through
    the Scalar overload (no type test and no wrapper frame per call). The operator records give this function,
    whose ``_openreg_build()`` makes that call once the overloads are defined (``_loader._variants``, while the
    Tensor class statement runs: the class itself is never patched, #11); called directly, it builds it on
    first use."""
    call = None

    def build():
        from .._dispatch.ops import A
        scalar = getattr(A, scalar_overload)._call

        def non_tensor(self, other):
            return scalar(self, other) if is_number(other) else NotImplemented
        return getattr(A, tensor_overload)._operator(non_tensor, scalar)

    def op(self, other):
        nonlocal call
        if call is None:
            call = build()
        return call(self, other)
    op._openreg_build = build
    return op


def _calls(*overloads: str) -> list:
    from .._dispatch.ops import A
    return [getattr(A, name)._call for name in overloads]


def reflected_operator(scalar_overload: str):
    """A reflected Python operator (``__radd__``: ``number + tensor``) through a Scalar overload."""
    calls: list = []

    def op(self, other):
        if not calls:
            calls.extend(_calls(scalar_overload))
        return calls[0](self, other) if is_number(other) else NotImplemented
    return op


def python_operators(symbol: str, overloads: tuple, inplace: tuple, reflected) -> dict:
    """``__<symbol>__``, ``__i<symbol>__`` (each over a (Tensor, Scalar) pair of ``ops.A`` overload names) and
    ``__r<symbol>__`` (``reflected``)."""
    return {f"__{symbol}__": binary_operator(*overloads), f"__i{symbol}__": binary_operator(*inplace),
            f"__r{symbol}__": reflected}


__all__ = ["as_tensor_operand", "binary_operator", "check_input", "is_number", "python_operators",
           "reflected_operator", "wrap_scalar"]
