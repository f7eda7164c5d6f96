"""``openreg.sparse``: sparse COO tensors (``coo_tensor``) and the functions PyTorch's ``torch.sparse`` offers
for them.

>>> import openreg
>>> a = openreg.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
>>> openreg.sparse.mm(a, openreg.ones(2, 1)).tolist()
[[2.0], [3.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A


def mm(mat1, mat2):
    """``mat1 @ mat2`` with a sparse ``mat1`` (or ``mat2``): a dense result, gradients to the dense operand."""
    return A.mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse ``mat1``.

    >>> import openreg
    >>> s = openreg.eye(2).to_sparse()
    >>> openreg.sparse.addmm(openreg.ones(2, 2), s, openreg.ones(2, 2), alpha=2).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    return A.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def __getattr__(name: str):
    from .legacy_types import CPU_SPARSE_TYPES
    if name in CPU_SPARSE_TYPES:   # openreg.sparse.FloatTensor & co.: PyTorch's legacy sparse constructors
        return CPU_SPARSE_TYPES[name]
    raise AttributeError(f"module 'openreg.sparse' has no attribute '{name}'")


__all__ = ["addmm", "mm"]
