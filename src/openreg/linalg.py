"""``openreg.linalg``: vector and matrix norms (``vector_norm``, ``norm``, ``matrix_norm`` for the Frobenius norm).

>>> import openreg
>>> openreg.linalg.vector_norm(openreg.tensor([3.0, 4.0])).item()
5.0
"""
from __future__ import annotations

from ._dispatch.ops import A
from .tensor import Tensor

__all__ = ["matrix_norm", "norm", "vector_norm"]


def vector_norm(x: Tensor, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None,
                out: Tensor | None = None) -> Tensor:
    """The ``ord``-norm of the elements of ``x`` over ``dim`` (all elements by default).

    >>> import openreg
    >>> openreg.linalg.vector_norm(openreg.tensor([[1.0, -2.0]]), float("inf"), dim=1).tolist()
    [2.0]
    """
    if isinstance(dim, int):
        dim = [dim]
    result = A.linalg_vector_norm(x, ord, None if dim is None else list(dim), keepdim, dtype=dtype)
    return result if out is None else out.copy_(result)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """The Frobenius norm of the matrices in the last two dims (other orders raise NotImplementedError).

    >>> import openreg
    >>> openreg.linalg.matrix_norm(openreg.ones(2, 2)).item()
    2.0
    """
    if ord != "fro":
        raise NotImplementedError(f"openreg: linalg.matrix_norm(ord={ord!r}) is not implemented (only 'fro')")
    return vector_norm(A, 2, list(dim), keepdim, dtype=dtype)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out: Tensor | None = None) -> Tensor:
    """``vector_norm`` for vectors (or with an int ``dim``), the Frobenius norm for ``ord="fro"``.

    >>> import openreg
    >>> openreg.linalg.norm(openreg.tensor([[3.0, 4.0]])).item()
    5.0
    """
    if isinstance(ord, str):
        result = matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    elif ord is None:
        result = vector_norm(A, 2, dim, keepdim, dtype=dtype)
    elif dim is not None and not isinstance(dim, int) and len(dim) == 2 or dim is None and A.dim() == 2:
        raise NotImplementedError(f"openreg: linalg.norm with a numeric ord={ord} over two dims (a matrix norm) is "
                                  f"not implemented")
    else:
        result = vector_norm(A, ord, dim, keepdim, dtype=dtype)
    return result if out is None else out.copy_(result)
