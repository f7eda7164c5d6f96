"""Argument forms of hand-written Tensor methods that PyTorch's Python binding accepts and the schemas do not.

>>> size_args((2, 3)), size_args(([2, 3],))
((2, 3), (2, 3))
"""
from __future__ import annotations


def size_args(size: tuple) -> tuple:
    """``t.view(2, 3)`` and ``t.view((2, 3))`` alike: varargs sizes, or one tuple/list of them."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


__all__ = ["size_args"]
