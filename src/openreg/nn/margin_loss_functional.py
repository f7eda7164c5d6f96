"""Margin, embedding and likelihood losses of ``nn.functional``: ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``multilabel_soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``.

Compositions of differentiable tensor ops with PyTorch's formulas, reductions and argument checks.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.margin_ranking_loss(openreg.tensor([1.0]), openreg.tensor([2.0]), openreg.tensor([1.0])).item()
1.0
"""
from __future__ import annotations

import math

from ..amp.composite import autocast_composite
from ..tensor import Tensor
from .activation_functional import logsigmoid
from .distance_functional import pairwise_distance
from .loss_functional import legacy_reduction, reduce_loss

__all__ = ["cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "multilabel_soft_margin_loss", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]


@autocast_composite("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``.

    >>> import openreg
    >>> openreg.nn.functional.margin_ranking_loss(openreg.tensor([3.0]), openreg.tensor([1.0]),
    ...                                           openreg.tensor([-1.0]), reduction="none").tolist()
    [2.0]
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return reduce_loss((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@autocast_composite("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``.

    >>> import openreg
    >>> openreg.nn.functional.hinge_embedding_loss(openreg.tensor([0.5, 2.0]), openreg.tensor([-1.0, 1.0]),
    ...                                            reduction="sum").item()
    2.5
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    zeros = input.new_zeros(())
    margin_term = (margin - input).clamp_min(0).where(target != 1, zeros)
    self_term = input.where(target != -1, zeros)
    return reduce_loss(margin_term + self_term, reduction)


@autocast_composite("soft_margin_loss")
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))``.

    >>> import openreg
    >>> round(openreg.nn.functional.soft_margin_loss(openreg.tensor([0.0]), openreg.tensor([1.0])).item(), 4)
    0.6931
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    return reduce_loss((-target * input).exp().log1p(), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of the logits ``input`` against the 0/1 ``target``, averaged over the classes.

    >>> import openreg
    >>> round(openreg.nn.functional.multilabel_soft_margin_loss(openreg.zeros(1, 2), openreg.ones(1, 2)).item(), 4)
    0.6931
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.dim() - 1) / input.shape[input.dim() - 1]
    return reduce_loss(loss, reduction)


@autocast_composite("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` where ``target == 1``, ``max(0, cos - margin)`` where ``target == -1``.

    >>> import openreg
    >>> openreg.nn.functional.cosine_embedding_loss(openreg.tensor([[1.0, 0.0]]), openreg.tensor([[0.0, 1.0]]),
    ...                                             openreg.tensor([1.0])).item()
    1.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.shape != input2.shape:
        raise RuntimeError(f"cosine_embedding_loss: Input1 and Input2 should have the same size, but got "
                           f"{list(input1.shape)} and {list(input2.shape)}")
    if input1.dim() not in (1, 2):
        raise RuntimeError(f"cosine_embedding_loss: 1D target tensor expected, multi-target not supported; "
                           f"inputs must be 1D or 2D, got {input1.dim()}D")
    dim = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = cos.new_zeros(())
    pos = (1 - cos).where(target == 1, zeros)
    neg = (cos - margin).clamp_min(0).where(target == -1, zeros)
    return reduce_loss(pos + neg, reduction)


@autocast_composite("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with the ``p``-norm pairwise distance;
    ``swap`` uses the smaller of ``d(anchor, negative)`` and ``d(positive, negative)``.

    >>> import openreg
    >>> a, p, n = openreg.tensor([[0.0, 0.0]]), openreg.tensor([[0.0, 1.0]]), openreg.tensor([[0.0, 3.0]])
    >>> round(openreg.nn.functional.triplet_margin_loss(a, p, n, margin=3.0).item(), 4)
    1.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           f"inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return reduce_loss((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """:func:`triplet_margin_loss` with any ``distance_function`` (default: :func:`pairwise_distance`).

    >>> import openreg
    >>> a, p, n = openreg.tensor([[0.0]]), openreg.tensor([[1.0]]), openreg.tensor([[3.0]])
    >>> openreg.nn.functional.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: (x - y).abs().sum(-1),
    ...                                                        margin=3.0).item()
    1.0
    """
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance(positive, negative))
    return reduce_loss((margin + d_pos - d_neg).clamp_min(0), reduction)


@autocast_composite("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """Poisson negative log-likelihood: ``exp(input) - target * input`` for log-rates, ``input - target *
    log(input + eps)`` otherwise; ``full`` adds Stirling's approximation of ``log(target!)`` where ``target > 1``.

    >>> import openreg
    >>> openreg.nn.functional.poisson_nll_loss(openreg.tensor([0.0]), openreg.tensor([2.0])).item()
    1.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0.0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log-likelihood ``0.5 * (log(var) + (input - target)**2 / var)`` (``var`` clamped to
    ``eps`` without gradient through the clamp; ``full`` adds ``0.5 * log(2 pi)``).

    >>> import openreg
    >>> openreg.nn.functional.gaussian_nll_loss(openreg.tensor([1.0]), openreg.tensor([3.0]), openreg.tensor([1.0])).item()
    2.0
    """
    if not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_full(tuple(input.shape), float(var))
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() != var.dim() or sum(y for x, y in zip(input.shape, var.shape) if x != y) != 1:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    from ..autograd.grad_mode import no_grad
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)
