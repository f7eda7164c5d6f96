"""``ChannelShuffle`` (ShuffleNet): interleave the channels of ``groups`` groups (``F.channel_shuffle``).

>>> import openreg
>>> openreg.nn.ChannelShuffle(2)(openreg.arange(4.0).reshape(1, 4, 1)).flatten().tolist()
[0.0, 2.0, 1.0, 3.0]
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Divide the channels into ``groups`` groups and interleave them."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
