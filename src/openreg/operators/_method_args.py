"""Argument forms of hand-written Tensor methods that PyTorch's Python binding accepts and the schemas do not,
and the ``openreg.<fn>`` form of such a method.

>>> size_args((2, 3)), size_args(([2, 3],)), sizes_or_keyword("reshape", (), {"shape": [2, 3]}, "shape")
((2, 3), (2, 3), (2, 3))
"""
from __future__ import annotations

from ..tensor import TensorBase  # importable while the Tensor class is built


def size_args(size: tuple) -> tuple:
    """``t.view(2, 3)`` and ``t.view((2, 3))`` alike: varargs sizes, or one tuple/list of them."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


def sizes_or_keyword(method: str, args: tuple, kwargs: dict, keyword: str) -> tuple:
    """The sizes of a varargs method given positionally (``t.reshape(2, 3)``, ``t.reshape((2, 3))``) or by the
    keyword PyTorch's binding names them (``t.reshape(shape=(2, 3))``, ``t.view(size=...)``, ``t.permute(dims=...)``)."""
    if not kwargs:
        return size_args(args)
    unexpected = [k for k in kwargs if k != keyword]
    if unexpected:
        raise TypeError(f"{method}() got an unexpected keyword argument '{unexpected[0]}'")
    if args:
        raise TypeError(f"{method}() got multiple values for argument '{keyword}'")
    value = kwargs[keyword]
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{method}(): argument '{keyword}' must be tuple of ints, not {type(value).__name__}")
    return tuple(value)


def method_as_function(name: str, example: str, shape: list):
    """``openreg.<name>(input, ...)`` calling ``input.<name>(...)``: the function form of a Tensor method whose
    argument forms (varargs sizes, optional dims) merge overloads, as PyTorch's binding of both does; its
    docstring carries a doctested ``example`` call giving ``shape``."""
    def fn(input, *args, **kwargs):
        if not isinstance(input, TensorBase):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``openreg.{name}(input, ...)`` is ``input.{name}(...)``.\n\n"
                  f">>> import openreg\n>>> openreg.{name}({example}).shape\nopenreg.Size({shape})\n")
    return fn


__all__ = ["method_as_function", "size_args"]
