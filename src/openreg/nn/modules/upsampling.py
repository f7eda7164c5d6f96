"""Upsampling modules: ``Upsample`` (any ``F.interpolate`` mode), ``UpsamplingNearest2d`` and
``UpsamplingBilinear2d`` (``align_corners=True``).

>>> import openreg
>>> openreg.nn.Upsample(scale_factor=2, mode="nearest")(openreg.ones(1, 1, 2, 2)).shape
openreg.Size([1, 1, 4, 4])
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]


class Upsample(Module):
    """Resize ``(N, C, *spatial)`` inputs to ``size`` or by ``scale_factor`` (``F.interpolate``)."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state: dict) -> None:
        if "recompute_scale_factor" not in state:
            state["recompute_scale_factor"] = True
        super().__setstate__(state)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-d upsampling.

    >>> import openreg
    >>> openreg.nn.UpsamplingNearest2d(size=(3, 2))(openreg.ones(1, 1, 1, 1)).shape
    openreg.Size([1, 1, 3, 2])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-d upsampling with ``align_corners=True``.

    >>> import openreg
    >>> openreg.nn.UpsamplingBilinear2d(scale_factor=2)(openreg.ones(1, 1, 2, 2)).shape
    openreg.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
