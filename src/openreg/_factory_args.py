"""The Python-level arguments of factory functions (``openreg.zeros(2, 3)``, ``requires_grad=``, ``out=``),
shared by the factory records' functions (``operators/factories.py``, ``operators/random.py``).
Importable while ``Tensor`` is built.

>>> size_args(((2, 3),)), size_args((2, 3))
((2, 3), (2, 3))
"""
from __future__ import annotations

import numpy as np

from .tensor import Size


def size_args(size) -> tuple:
    """Sizes given as ``2, 3`` or ``(2, 3)`` as a tuple of ints (PyTorch's error for other elements)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) and not hasattr(s, "__index__"):
            raise TypeError(f"empty(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
        out.append(int(s))
    return tuple(out)


def sizes_or_keyword(name: str, sizes: tuple, size) -> tuple:
    """The ``*size`` of a factory, which PyTorch also accepts as the keyword ``size=`` (``empty(size=(2, 3))``)."""
    if size is None:
        return size_args(sizes)
    if sizes:
        raise TypeError(f"{name}() received an invalid combination of arguments: size given both positionally "
                        f"and as the keyword 'size'")
    return size_args((size,) if isinstance(size, (int, np.integer)) else (tuple(size),))


def finish(t, requires_grad: bool):
    """``t`` made a leaf that requires grad when asked (``requires_grad=True``)."""
    if requires_grad:
        t.requires_grad_(True)
    return t


def into(t, out):
    """``t`` itself, or copied into ``out`` (resized as PyTorch's ``out=`` rules say)."""
    if out is None:
        return t
    from .aten.structured import resize_out
    resize_out("out", out, t._size)
    return out.copy_(t)


__all__ = ["finish", "into", "size_args"]
