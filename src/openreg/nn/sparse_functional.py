"""``nn.functional.embedding`` and ``one_hot``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.embedding(openreg.tensor([1]), openreg.eye(3)).tolist()
[[0.0, 1.0, 0.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor

__all__ = ["embedding", "embedding_renorm_", "one_hot"]


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the integer indices ``input``; the row ``padding_idx`` gets no gradient.

    >>> import openreg
    >>> openreg.nn.functional.embedding(openreg.tensor([0]), openreg.ones(2, 2), padding_idx=5)
    Traceback (most recent call last):
    ...
    AssertionError: Padding_idx must be within num_embeddings
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        from ..autograd.grad_mode import no_grad
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    return A.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Scale, in place, each row of ``weight`` named in ``indices`` whose ``norm_type``-norm exceeds ``max_norm``
    to norm ``max_norm`` (times ``max_norm / (norm + 1e-7)``, as PyTorch), as ``embedding(max_norm=...)`` does
    before looking the rows up. Returns ``weight``.

    >>> import openreg
    >>> w = openreg.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> [round(v, 4) for v in openreg.embedding_renorm_(w, openreg.tensor([0, 1, 0]), 1.0, 2.0).flatten().tolist()]
    [0.6, 0.8, 0.3, 0.4]
    """
    if weight.dim() != 2:
        raise RuntimeError(f"embedding_renorm_: weight must be 2-D, but got {weight.dim()}-D")
    if indices.dtype.is_floating_point or indices.dtype.is_complex:
        raise RuntimeError(f"Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.dtype} instead (while checking arguments for "
                           f"embedding_renorm_)")
    rows = indices.reshape(-1).unique()
    if rows.numel() == 0:
        return weight
    picked = weight.index_select(0, rows)
    norms = picked.norm(p=norm_type, dim=1, keepdim=True)
    scale = (max_norm / (norms + 1e-7)).where(norms > max_norm, 1.0)
    weight.index_copy_(0, rows, picked * scale.to(picked.dtype))
    return weight


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``int64`` one-hot encoding of class indices (``num_classes`` inferred as max + 1 when -1).

    >>> import openreg
    >>> openreg.nn.functional.one_hot(openreg.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    return A.one_hot(tensor, num_classes)
