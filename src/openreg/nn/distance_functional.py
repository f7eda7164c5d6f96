"""Distances of ``nn.functional``: ``cosine_similarity``, ``pairwise_distance`` and ``pdist``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.pairwise_distance(openreg.tensor([[0.0, 0.0]]), openreg.tensor([[3.0, 4.0]]), eps=0.0).tolist()
[5.0]
"""
from __future__ import annotations

from ..amp.composite import autocast_composite
from ..tensor import Tensor

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


@autocast_composite("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim`` (the operands broadcast), each operand
    divided by its norm first as PyTorch does.

    >>> import openreg
    >>> openreg.nn.functional.cosine_similarity(openreg.tensor([[1.0, 0.0]]), openreg.tensor([[1.0, 1.0]])).tolist()
    [0.7071067690849304]
    """
    shape = _broadcast_shape(x1, x2)
    x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _broadcast_shape(a: Tensor, b: Tensor) -> list:
    n = max(a.dim(), b.dim())
    sa, sb = [1] * (n - a.dim()) + list(a.shape), [1] * (n - b.dim()) + list(b.shape)
    out = []
    for i, (p, q) in enumerate(zip(sa, sb)):
        if p != q and 1 not in (p, q):
            raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) at non-singleton "
                               f"dimension {i}")
        out.append(max(p, q))
    return out


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dim.

    >>> import openreg
    >>> openreg.nn.functional.pairwise_distance(openreg.tensor([1.0, 1.0]), openreg.zeros(2), p=1.0, eps=0).item()
    2.0
    """
    if max(x1.dim(), x2.dim()) == 0:
        raise RuntimeError("pairwise_distance expects at least one of x1, x2 to have a dimension")
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


@autocast_composite("pdist")
def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distances between every pair of rows of ``(N, M)`` ``input``: the upper triangle of
    the distance matrix, row by row.

    >>> import openreg
    >>> d = openreg.nn.functional.pdist(openreg.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    >>> [round(v, 4) for v in d.tolist()]
    [5.0, 1.0, 4.2426]
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    rows = [i for i in range(n) for j in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    from ..tensor_from_data import tensor
    index = tensor(rows, device=input.device), tensor(cols, device=input.device)
    return (input.index_select(0, index[0]) - input.index_select(0, index[1])).norm(p, -1)

