"""Elementwise losses of ``nn.functional``: ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``,
``binary_cross_entropy``, ``binary_cross_entropy_with_logits`` and ``kl_div``.

Each is a composition of differentiable tensor ops (PyTorch's CompositeImplicitAutograd style): autograd and
forward-mode AD come from the ops it is built of, and it runs wherever they run (CPU, the device, Meta).

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.l1_loss(openreg.tensor([1.0, -1.0]), openreg.zeros(2)).item()
1.0
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..amp.composite import autocast_composite
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss", "kl_div", "l1_loss",
           "legacy_reduction", "reduce_loss", "smooth_l1_loss"]


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """``reduction`` after PyTorch's deprecated ``size_average``/``reduce`` flags (when either is given)."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                  f"{_legacy(size_average, reduce)}' instead.", stacklevel=3)
    return _legacy(size_average, reduce)


def _legacy(size_average, reduce) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}     # at::Reduction


def reduction_enum(reduction: str) -> int:
    """PyTorch's ``_Reduction.get_enum``: the operator's integer for a reduction name."""
    value = _REDUCTION_ENUM.get(reduction)
    if value is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return value


def fused_loss_applies(*tensors) -> bool:
    """Whether a loss runs as PyTorch's one operator: float32/float64 tensors of one dtype. 16-bit and mixed
    dtypes keep the step-by-step composite, each step rounding in the promoted dtype."""
    dt = tensors[0].dtype
    return dt in (_dt.float32, _dt.float64) and all(t is None or t.dtype is dt for t in tensors)


def refuse_grad(function: str, **tensors) -> None:
    """PyTorch's error for an argument its loss operator does not differentiate (a weight)."""
    if is_grad_enabled():
        for name, t in tensors.items():
            if t is not None and t.requires_grad:
                raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument "
                                   f"'{name}'. This input cannot have requires_grad True.")


def broadcast_pair(input: Tensor, target: Tensor) -> tuple:
    """``torch.broadcast_tensors(input, target)``, as PyTorch's loss functions call it before the operator."""
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    return tuple(A.broadcast_tensors([input, target]))


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """``loss`` averaged, summed or kept elementwise."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_size(input: Tensor, target: Tensor) -> None:
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      f"This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      f"same size.", stacklevel=3)


def _weighted(loss: Tensor, weight: Tensor | None) -> Tensor:
    return loss if weight is None else loss * weight


@autocast_composite("l1_loss")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error ``|input - target|`` (optionally weighted elementwise).

    >>> import openreg
    >>> openreg.nn.functional.l1_loss(openreg.tensor([1.0, 3.0]), openreg.zeros(2), reduction="sum").item()
    4.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    input, target = broadcast_pair(input, target)
    if weight is None:
        return reduce_loss((input - target).abs(), reduction)
    return weighted_reduce((input - target).abs(), input, weight, reduction)


def weighted_reduce(loss: Tensor, input: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """PyTorch's weighted ``l1_loss``/``mse_loss``: ``loss * weight``, its mean taken over the summed weights."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


@autocast_composite("smooth_l1_loss")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta`` (``d = input - target``).

    >>> import openreg
    >>> openreg.nn.functional.smooth_l1_loss(openreg.tensor([0.5, 3.0]), openreg.zeros(2), reduction="none").tolist()
    [0.125, 2.5]
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _warn_size(input, target)
    input, target = broadcast_pair(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if fused_loss_applies(input, target):
        return A.smooth_l1_loss(input, target, reduction_enum(reduction), beta)
    d = (input - target).abs()
    loss = A.where__self(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return reduce_loss(loss, reduction)


@autocast_composite("huber_loss")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 * d**2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 * delta)``.

    >>> import openreg
    >>> openreg.nn.functional.huber_loss(openreg.tensor([0.5, 3.0]), openreg.zeros(2), reduction="none").tolist()
    [0.125, 2.5]
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _warn_size(input, target)
    input, target = broadcast_pair(input, target)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if fused_loss_applies(input, target):
        if weight is None:
            return A.huber_loss(input, target, reduction_enum(reduction), delta)
        return reduce_loss(A.huber_loss(input, target, 0, delta) * weight, reduction)
    d = (input - target).abs()
    loss = A.where__self(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return reduce_loss(_weighted(loss, weight), reduction)


@autocast_composite("binary_cross_entropy")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """``-(target * log(input) + (1 - target) * log(1 - input))`` of probabilities ``input``; each log is
    clamped at -100 (as PyTorch), so probabilities 0 and 1 give finite losses.

    >>> import openreg
    >>> p = openreg.tensor([0.5, 1.0])
    >>> [round(v, 4) for v in openreg.nn.functional.binary_cross_entropy(p, openreg.ones(2), reduction="none").tolist()]
    [0.6931, -0.0]
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if fused_loss_applies(input, target, weight):
        refuse_grad("binary_cross_entropy", weight=weight)
        if weight is not None and tuple(weight.shape) != tuple(input.shape):
            weight = weight.expand(tuple(input.shape))
        return A.binary_cross_entropy(input, target, weight, reduction_enum(reduction))
    return reduce_loss(_weighted(_BinaryCrossEntropy.apply(input, target), weight), reduction)


def _bce_logs(input: Tensor):
    return input.log().clamp_min(-100.0), (1 - input).log().clamp_min(-100.0)


class _BinaryCrossEntropy(Function):
    """The elementwise loss with PyTorch's gradients: ``(x - y) / max(x * (1 - x), 1e-12)`` for the input (finite
    where a probability is 0 or 1, where the clamped logs' chain rule gives 0 * inf = nan) and
    ``log(1 - x) - log(x)`` for the target."""

    @staticmethod
    def forward(ctx, input, target):
        ctx.save_for_backward(input, target)
        ctx.save_for_forward(input, target)
        log_p, log_q = _bce_logs(input)
        return (target - 1) * log_q - target * log_p

    @staticmethod
    def jvp(ctx, input_t, target_t):
        """Forward mode (jvp, jacfwd, hessian): the same two derivatives times the tangents."""
        input, target = ctx.saved_tensors
        out = None
        if input_t is not None:
            out = input_t * (input - target) / (input * (1 - input)).clamp_min(1e-12)
        if target_t is not None:
            term = target_t * ((1 - input).log() - input.log())
            out = term if out is None else out + term
        return out

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * (input - target) / (input * (1 - input)).clamp_min(1e-12)
        if ctx.needs_input_grad[1]:
            grad_target = grad * ((1 - input).log() - input.log())
        return grad_input, grad_target


@autocast_composite("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits:
    ``(1 - t) * x + lw * (log(1 + exp(-|x|)) + max(-x, 0))`` with ``lw = 1 + (pos_weight - 1) * t``.

    >>> import openreg
    >>> round(openreg.nn.functional.binary_cross_entropy_with_logits(openreg.zeros(1), openreg.ones(1)).item(), 4)
    0.6931
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    enum = reduction_enum(reduction)
    refuse_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    if fused_loss_applies(input, target, weight, pos_weight):
        return A.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)
    softplus_neg = (-input.abs()).exp().add(1).log() + (-input).clamp_min(0)   # log(1 + exp(-x)), stably
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    return reduce_loss(_weighted(loss, weight), reduction)


@autocast_composite("kl_div")
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence ``target * (log(target) - input)`` of log-probabilities ``input``
    (``target`` as probabilities, or log-probabilities with ``log_target=True``); ``"batchmean"`` divides
    the sum by the batch size, as the KL definition wants (``"mean"`` divides by every element, with a warning).

    >>> import openreg
    >>> t = openreg.tensor([[0.5, 0.5]])
    >>> round(openreg.nn.functional.kl_div(t.log(), t, reduction="batchmean").item(), 6)
    0.0
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # 0 * log(0) is 0 (xlogy), so zero probabilities contribute nothing
        pos = target > 0
        safe = A.where__ScalarOther(pos, target, 1.0)
        loss = A.where__self(pos, target * (safe.log() - input), 0.0 * input)
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() else 1)
    return reduce_loss(loss, reduction)


