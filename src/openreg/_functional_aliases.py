"""The ``nn.functional`` operations PyTorch also publishes on the ``torch`` namespace, with the ``torch.*``
signatures (which differ from ``F.*``: losses take ``reduction`` as an int, 0 = none, 1 = mean, 2 = sum,
defaulting to 0 as PyTorch's Python bindings do -- its schemas say ``Mean``, but the binding reads that default as
0 --, and several take every option positionally; ``torch.max_pool1d`` never returns indices, ``torch.adaptive_max_pool1d``
always does), plus ``torch.positive`` and ``torch.negative_``. Each calls the ``nn.functional`` implementation.

>>> import openreg
>>> x = openreg.tensor([-1.0, 0.25, 2.0])
>>> openreg.hardshrink(x).tolist(), x.hardshrink(0.1).tolist()
([-1.0, 0.0, 2.0], [-1.0, 0.25, 2.0])
>>> openreg.kl_div(openreg.zeros(2), openreg.tensor([0.5, 0.5]), 2).item() < 0
True
"""
from __future__ import annotations

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _F():
    from .nn import functional
    return functional


def _reduction(name: str, reduction) -> str:
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' must be int, not {type(reduction).__name__}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}(): {reduction} is not a valid value for reduction (0: none, 1: mean, 2: sum)")
    return _REDUCTIONS[reduction]


def selu(input):
    """``torch.selu(input)``: ``nn.functional.selu``."""
    return _F().selu(input)


def celu(input, alpha=1.0):
    """``torch.celu(input, alpha=1.0)``: ``nn.functional.celu``."""
    return _F().celu(input, alpha)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """``torch.rrelu(input, lower, upper, training=False, generator=None)``: ``nn.functional.rrelu``."""
    if generator is not None:
        raise NotImplementedError("rrelu: an explicit generator= is not supported by openreg; seed the default "
                                  "generator (openreg.manual_seed) instead")
    return _F().rrelu(input, lower, upper, training)


def threshold(input, threshold, value):
    """``torch.threshold(input, threshold, value)``: ``value`` where ``input <= threshold``."""
    return _F().threshold(input, threshold, value)


def prelu(input, weight):
    """``torch.prelu(input, weight)``: ``nn.functional.prelu`` (also ``Tensor.prelu``)."""
    return _F().prelu(input, weight)


def hardshrink(input, lambd=0.5):
    """``torch.hardshrink(input, lambd=0.5)``: zero where ``|input| <= lambd`` (also ``Tensor.hardshrink``)."""
    return _F().hardshrink(input, lambd)


def pixel_shuffle(input, upscale_factor):
    """``torch.pixel_shuffle(input, upscale_factor)``: ``nn.functional.pixel_shuffle``."""
    return _F().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """``torch.pixel_unshuffle(input, downscale_factor)``: ``nn.functional.pixel_unshuffle``."""
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):
    """``torch.channel_shuffle(input, groups)``: ``nn.functional.channel_shuffle``."""
    return _F().channel_shuffle(input, groups)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``torch.cosine_similarity(x1, x2, dim=1, eps=1e-8)``: ``nn.functional.cosine_similarity``."""
    return _F().cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``torch.pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False)``."""
    return _F().pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input, p=2.0):
    """``torch.pdist(input, p=2.0)``: the distances between the rows of a matrix, upper triangle."""
    return _F().pdist(input, p)


def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div(input, target, reduction=0, *, log_target=False)`` (reduction 0/1/2: none/mean/sum; the
    mean is over every element, without ``nn.functional``'s warning about it)."""
    mode = _reduction("kl_div", reduction)
    if mode == "mean":
        return _F().kl_div(input, target, reduction="none", log_target=log_target).mean()
    return _F().kl_div(input, target, reduction=mode, log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0)``."""
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits", reduction),
        pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0)``."""
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction("cosine_embedding_loss", reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0)``."""
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_reduction("margin_ranking_loss", reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss(input, target, margin=1.0, reduction=0)``."""
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss(input, target, log_input, full, eps, reduction)``: every argument required."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction("poisson_nll_loss", reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=0):
    """``torch.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
    reduction=0)``."""
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction("triplet_margin_loss", reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """``torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
    zero_infinity=False)``."""
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction("ctc_loss", reduction), zero_infinity)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """``torch.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
    cudnn_enabled)``: ``nn.functional.instance_norm`` (whose arguments come in another order)."""
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)`` (no
    indices; an empty stride means ``kernel_size``)."""
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool3d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)``."""
    return _F().max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    """``torch.avg_pool1d(input, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True)``."""
    return _F().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    """``torch.adaptive_avg_pool1d(input, output_size)``."""
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d(input, output_size)``: ``(values, indices)``."""
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def bilinear(input1, input2, weight, bias=None):
    """``torch.bilinear(input1, input2, weight, bias=None)``: ``nn.functional.bilinear``."""
    return _F().bilinear(input1, input2, weight, bias)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout(input, p, train)``: ``nn.functional.alpha_dropout``."""
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_(input, p, train)``: in place, returning ``input``."""
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout(input, p, train)``: ``nn.functional.feature_alpha_dropout``."""
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_(input, p, train)``: in place, returning ``input``."""
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def dropout_(input, p, train):
    """``torch.dropout_(input, p, train)``: ``nn.functional.dropout`` in place, returning ``input``."""
    return _F().dropout(input, p, train, inplace=True)


def _feature_mask(input, p, train):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not train or p == 0:
        return None
    import openreg
    shape = [input.shape[0], input.shape[1]] + [1] * (input.dim() - 2)
    return _F().dropout(openreg.ones(shape, dtype=input.dtype, device=input.device), p, True)


def feature_dropout(input, p, train):
    """``torch.feature_dropout(input, p, train)``: zero whole channels ``input[n, c]`` with probability ``p`` and
    scale the rest by ``1 / (1 - p)`` (``input`` itself when not training).

    >>> import openreg
    >>> y = openreg.feature_dropout(openreg.ones(2, 3, 4), 0.5, True)
    >>> sorted({tuple(row) for row in y.reshape(6, 4).tolist()}) <= [(0.0,) * 4, (2.0,) * 4]
    True
    """
    mask = _feature_mask(input, p, train)
    return input if mask is None else input * mask


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_(input, p, train)``: ``feature_dropout`` in place, returning ``input``."""
    mask = _feature_mask(input, p, train)
    return input if mask is None else input.mul_(mask)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm(input, normalized_shape, weight=None, eps=None)``: ``nn.functional.rms_norm``."""
    return _F().rms_norm(input, normalized_shape, weight, eps)


def positive(input):
    """``torch.positive(input)``: ``input`` itself (unary ``+``); bool tensors are refused as in PyTorch.

    >>> import openreg
    >>> x = openreg.tensor([1.0, -2.0])
    >>> openreg.positive(x) is x
    True
    """
    from . import bool as bool_dtype
    if input.dtype == bool_dtype:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def negative_(input):
    """``torch.negative_(input)``: ``input.neg_()``, returning ``input``."""
    return input.neg_()


_NAMES = (
    "selu", "celu", "rrelu", "threshold", "prelu", "hardshrink", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "cosine_similarity", "pairwise_distance", "pdist", "kl_div",
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "poisson_nll_loss", "triplet_margin_loss", "ctc_loss", "instance_norm", "max_pool1d", "max_pool3d",
    "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "bilinear", "alpha_dropout", "alpha_dropout_",
    "feature_alpha_dropout", "feature_alpha_dropout_", "dropout_", "feature_dropout", "feature_dropout_", "rms_norm", "positive", "negative_",
    "embedding_bag", "embedding_renorm_",
)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag``: ``(output, offset2bag, bag_size, max_indices)``; see ``nn.functional.embedding_bag``
    for the reduction itself."""
    from .nn.embedding_bag_functional import embedding_bag_aten
    return embedding_bag_aten(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                              include_last_offset, padding_idx)


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """``torch.embedding_renorm_(weight, indices, max_norm, norm_type)``: what ``embedding(max_norm=...)`` does."""
    from .nn.sparse_functional import embedding_renorm_ as renorm
    return renorm(weight, indices, max_norm, norm_type)


def tensor_hardshrink(self, lambd=0.5):
    """``Tensor.hardshrink(lambd=0.5)``."""
    return _F().hardshrink(self, lambd)


def tensor_prelu(self, weight):
    """``Tensor.prelu(weight)``."""
    return _F().prelu(self, weight)


def tensor_positive(self):
    """``Tensor.positive()``: ``self``."""
    return positive(self)


def publish(namespace) -> None:
    """Set the functions on ``namespace`` (the ``openreg`` module) where it has no attribute of that name."""
    for name in _NAMES:
        if not hasattr(namespace, name):
            setattr(namespace, name, globals()[name])
