"""``torch._assert``, ``torch._assert_async`` and the ``torch._check*`` family: the condition checks that library
code (torchvision's ViT and Swin, ...) writes in a form tracers understand. openreg runs eagerly, so they are plain
checks raising PyTorch's error types and messages.

>>> import openreg
>>> openreg._assert(3 == 3, "sizes differ")
>>> openreg._check(2 > 1, lambda: "never shown")
>>> openreg._check_index(False, lambda: "index 5 is out of bounds")
Traceback (most recent call last):
    ...
IndexError: index 5 is out of bounds
"""
from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable

from .tensor import Tensor

__all__ = ["_assert", "_assert_async", "_check", "_check_index", "_check_is_size", "_check_not_implemented",
           "_check_tensor_all", "_check_tensor_all_with", "_check_type", "_check_value", "_check_with"]


def _assert(condition, message) -> None:
    """``assert condition, message`` (a tensor condition must hold one value)."""
    if not condition:
        raise AssertionError(message)


def _assert_async(tensor: Tensor, assert_msg: str | None = None) -> None:
    """Raise unless the one-element ``tensor`` is nonzero (checked at once: openreg's devices run in order)."""
    if tensor.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if tensor.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not tensor.item():
        raise RuntimeError(assert_msg if assert_msg is not None
                           else "Expected Tensor with single nonzero value, but got zero")


def _check_with(error_type: type, cond: bool, message: Callable[[], str] | None) -> None:
    """Raise ``error_type(message())`` unless the Python bool ``cond`` is True."""
    if not isinstance(cond, builtins.bool):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError(f"error_type must be a subclass of Exception but not Warning, got {error_type}")
    if message is None:
        text = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
                "report an enhancement request to PyTorch.)")
    else:
        if not callable(message):
            raise TypeError("message must be a callable")
        text = str(message())
    raise error_type(text)


def _check(cond: bool, message: Callable[[], str] | None = None) -> None:
    """``_check_with(RuntimeError, cond, message)``."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond: bool, message: Callable[[], str] | None = None) -> None:
    """``_check_with(IndexError, cond, message)``."""
    _check_with(IndexError, cond, message)


def _check_value(cond: bool, message: Callable[[], str] | None = None) -> None:
    """``_check_with(ValueError, cond, message)``."""
    _check_with(ValueError, cond, message)


def _check_type(cond: bool, message: Callable[[], str] | None = None) -> None:
    """``_check_with(TypeError, cond, message)``."""
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond: bool, message: Callable[[], str] | None = None) -> None:
    """``_check_with(NotImplementedError, cond, message)``."""
    _check_with(NotImplementedError, cond, message)


def _check_is_size(i, message: Callable[[], str] | None = None, *, max=None) -> None:
    """``_check(i >= 0)`` (and ``i <= max``); deprecated in PyTorch, which warns the same way."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with guard_size_oblivious.     "
                  "Use _check(i >= 0) instead.", FutureWarning, stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_tensor_all_with(error_type: type, cond: Tensor, message: Callable[[], str] | None = None) -> None:
    """Raise ``error_type(message())`` unless every element of the bool tensor ``cond`` is True."""
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    from . import dtypes
    if cond.dtype is not dtypes.bool:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


def _check_tensor_all(cond: Tensor, message: Callable[[], str] | None = None) -> None:
    """``_check_tensor_all_with(RuntimeError, cond, message)``."""
    _check_tensor_all_with(RuntimeError, cond, message)
