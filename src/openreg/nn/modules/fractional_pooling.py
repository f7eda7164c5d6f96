"""``FractionalMaxPool2d``: max pooling to a given output size or ratio over windows at pseudo-random positions
(``F.fractional_max_pool2d``).

>>> import openreg
>>> openreg.nn.FractionalMaxPool2d(3, output_ratio=0.5)(openreg.randn(2, 4, 10, 12)).shape
openreg.Size([2, 4, 5, 6])
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _pair(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


class FractionalMaxPool2d(Module):
    """Fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _pair(output_size) if output_size is not None else None
        self.output_ratio = _pair(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool2d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(Module):
    """Fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)`` inputs.

    >>> import openreg
    >>> openreg.nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))(openreg.randn(1, 2, 5, 6, 6)).shape
    openreg.Size([1, 2, 2, 3, 3])
    """

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        triple = (lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v, v, v))
        self.kernel_size = triple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = triple(output_size) if output_size is not None else None
        self.output_ratio = triple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool3d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)
