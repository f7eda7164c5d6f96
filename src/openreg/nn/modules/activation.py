"""Activation modules (``ReLU``, ...): each applies the ``nn.functional`` form of the same name.

>>> import openreg
>>> openreg.nn.modules.activation.ReLU()(openreg.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ReLU"]


class ReLU(Module):
    """Elementwise ``max(x, 0)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""
