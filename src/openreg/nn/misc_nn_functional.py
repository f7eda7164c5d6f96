"""``nn.functional.local_response_norm`` (AlexNet's cross-channel normalization), ``gumbel_softmax`` (a
differentiable sample of a categorical distribution, optionally straight-through one-hot), ``multi_margin_loss``
(the multi-class hinge loss) and ``channel_shuffle`` (ShuffleNet), as PyTorch computes them, written with
differentiable tensor ops.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.channel_shuffle(openreg.arange(4.0).reshape(1, 4, 1, 1), 2).flatten().tolist()
[0.0, 2.0, 1.0, 3.0]
"""
from __future__ import annotations

import warnings

from ..amp.composite import autocast_composite
from ..tensor import Tensor

__all__ = ["channel_shuffle", "gumbel_softmax", "local_response_norm", "multi_margin_loss"]


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``x / (k + alpha / size * sum of x^2 over the size neighbouring channels)^beta`` over dim 1 (the window
    runs from ``c - size // 2`` to ``c + (size - 1) // 2``, zero-padded).

    >>> import openreg
    >>> y = local_response_norm(openreg.full((1, 3, 1), 2.0), size=3, alpha=3.0, beta=1.0, k=0.0)
    >>> [round(v, 4) for v in y.flatten().tolist()]
    [0.25, 0.1667, 0.25]
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    from .padding_functional import pad
    sq = input * input
    c = input.size(1)
    flat = sq.reshape(input.size(0), c, -1)
    padded = pad(flat, (0, 0, size // 2, (size - 1) // 2))
    total = padded[:, 0:c]
    for j in range(1, size):
        total = total + padded[:, j:j + c]
    div = (total / size).reshape(input.shape)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """``softmax((logits + Gumbel noise) / tau)``; with ``hard`` the one-hot of its argmax in the forward pass and
    the soft sample's gradient in the backward pass (straight-through).

    >>> import openreg
    >>> y = gumbel_softmax(openreg.zeros(2, 5), tau=0.5, hard=True)
    >>> y.sum(-1).tolist(), sorted(set(y.flatten().tolist()))
    ([1.0, 1.0], [0.0, 1.0])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -logits.new_empty(logits.shape).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    from ..operators.factories import zeros_like
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


@autocast_composite("multi_margin_loss")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: bool | None = None, reduce: bool | None = None,
                      reduction: str = "mean") -> Tensor:
    """Per sample ``sum over i != y of max(0, margin - x[y] + x[i])^p / C`` (times ``weight[y]``), reduced by
    ``reduction``.

    >>> import openreg
    >>> x = openreg.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> round(multi_margin_loss(x, openreg.tensor([3])).item(), 4)
    0.325
    """
    from .loss_functional import legacy_reduction
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.dim() > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    y = target.reshape(-1)
    n, c = x.shape
    if y.numel() != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got {list(target.shape)}")
    from ..dtypes import int64
    y = y.to(int64)
    picked = x.gather(1, y.unsqueeze(1))
    terms = (x - picked + margin).clamp_min(0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight.gather(0, y).unsqueeze(1)
    from ..operators.factories import arange
    not_target = arange(c, device=x.device).unsqueeze(0) != y.unsqueeze(1)
    loss = (terms * not_target.to(terms.dtype)).sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(target.shape) if target.dim() else loss.reshape(())
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels (dim 1) of ``groups`` groups: ``(N, g * k, ...)`` read as ``(N, g, k, ...)`` and
    transposed to ``(N, k, g, ...)``."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.size(1)
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.size(0), list(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)
