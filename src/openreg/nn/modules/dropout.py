"""Dropout modules.

>>> import openreg
>>> openreg.nn.modules.dropout.Dropout(0.5).eval()(openreg.ones(3)).tolist()
[1.0, 1.0, 1.0]
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero elements with probability ``p`` during training (scaled by ``1/(1-p)``); identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` inputs during training (``F.dropout1d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` inputs during training (``F.dropout2d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` inputs during training (``F.dropout3d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks while training (``F.alpha_dropout``): keeps zero mean and unit variance.

    >>> import openreg
    >>> openreg.nn.AlphaDropout(0.2).eval()(openreg.ones(2)).tolist()
    [1.0, 1.0]
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels while training (``F.feature_alpha_dropout``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
