"""Loss modules: each holds its options and applies the ``nn.functional`` loss of the same name.

>>> import openreg
>>> openreg.nn.MSELoss(reduction="sum")(openreg.tensor([1.0, 3.0]), openreg.tensor([0.0, 0.0])).item()
10.0
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ..loss_functional import legacy_reduction
from .module import Module

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss", "L1Loss", "MSELoss",
           "NLLLoss", "SmoothL1Loss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.weight: Tensor | None


class MSELoss(_Loss):
    """Mean squared error (``F.mse_loss``)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices (``F.nll_loss``)."""

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or probabilities (``F.cross_entropy``).

    >>> import openreg
    >>> round(openreg.nn.CrossEntropyLoss()(openreg.zeros(1, 4), openreg.tensor([2])).item(), 4)
    1.3863
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class L1Loss(_Loss):
    """Mean absolute error (``F.l1_loss``)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above (``F.smooth_l1_loss``)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, scaled absolute error above (``F.huber_loss``)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities (``F.binary_cross_entropy``)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (``F.binary_cross_entropy_with_logits``); ``weight`` and
    ``pos_weight`` are buffers.

    >>> import openreg
    >>> sorted(openreg.nn.BCEWithLogitsLoss(pos_weight=openreg.ones(3)).state_dict())
    ['pos_weight']
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities (``F.kl_div``)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
