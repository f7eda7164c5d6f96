"""Argument forms of hand-written Tensor methods that PyTorch's Python binding accepts and the schemas do not,
and the ``openreg.<fn>`` form of such a method.

>>> size_args((2, 3)), size_args(([2, 3],))
((2, 3), (2, 3))
"""
from __future__ import annotations

from ..tensor import TensorBase  # importable while the Tensor class is built


def size_args(size: tuple) -> tuple:
    """``t.view(2, 3)`` and ``t.view((2, 3))`` alike: varargs sizes, or one tuple/list of them."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


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
