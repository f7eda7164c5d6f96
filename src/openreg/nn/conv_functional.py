"""Convolutions of ``nn.functional``: ``conv1d/2d/3d`` and ``conv_transpose1d/2d/3d``
(over ``aten::convolution``: im2col + one GEMM per group; the transposed form is its input gradient).

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.conv2d(openreg.ones(1, 2, 4, 4), openreg.ones(3, 2, 3, 3), padding="same").shape
openreg.Size([1, 3, 4, 4])
"""
from __future__ import annotations

from ..operators import convolution as _conv

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


# torch.nn.functional.conv1d is torch.conv1d: one function, written with its record (operators/convolution.py).
conv1d, conv2d, conv3d = _conv.conv1d.function, _conv.conv2d.function, _conv.conv3d.function
conv_transpose1d, conv_transpose2d = _conv.conv_transpose1d.function, _conv.conv_transpose2d.function
conv_transpose3d = _conv.conv_transpose3d.function
