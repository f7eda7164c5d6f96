"""``nn.functional.embedding`` and ``one_hot``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.embedding(openreg.tensor([1]), openreg.eye(3)).tolist()
[[0.0, 1.0, 0.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor

__all__ = ["embedding", "one_hot"]


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
        raise NotImplementedError("openreg: embedding with max_norm (renormalizing rows in place) is not implemented")
    if sparse:
        raise NotImplementedError("openreg: embedding with sparse=True (sparse gradients) is not implemented")
    return A.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``int64`` one-hot encoding of class indices (``num_classes`` inferred as max + 1 when -1).

    >>> import openreg
    >>> openreg.nn.functional.one_hot(openreg.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    return A.one_hot(tensor, num_classes)
