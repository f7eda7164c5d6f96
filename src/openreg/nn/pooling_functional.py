"""Pooling of ``nn.functional``: ``max_pool1d/2d`` (``return_indices``), ``avg_pool1d/2d``,
``adaptive_avg_pool1d/2d``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.max_pool2d(openreg.arange(16.0).reshape(1, 1, 4, 4), 2).flatten().tolist()
[5.0, 7.0, 13.0, 15.0]
"""
from __future__ import annotations

from .._dispatch.ops import ops
from ..tensor import Tensor

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d"]


def _pair(v) -> list:
    if v is None:
        return []
    return [v, v] if isinstance(v, int) else list(v)


def _one(v) -> int:
    return v if isinstance(v, int) else v[0]


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """2-d max pooling; with ``return_indices`` also the flat ``h * W + w`` positions of the maxima.

    >>> import openreg
    >>> out, idx = openreg.nn.functional.max_pool2d(openreg.arange(4.0).reshape(1, 2, 2), 2, return_indices=True)
    >>> out.tolist(), idx.tolist()
    ([[[3.0]]], [[[3]]])
    """
    out, idx = ops.aten.max_pool2d_with_indices.default(input, _pair(kernel_size), _pair(stride), _pair(padding),
                                                        _pair(dilation), ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """1-d max pooling of ``(N, C, L)`` or ``(C, L)`` inputs (2-d pooling over a height of one).

    >>> import openreg
    >>> openreg.nn.functional.max_pool1d(openreg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[3.0, 2.0]]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    s = None if stride is None or (not isinstance(stride, int) and len(stride) == 0) else [1, _one(stride)]
    out, idx = ops.aten.max_pool2d_with_indices.default(input.unsqueeze(-2), [1, _one(kernel_size)], s or [],
                                                        [0, _one(padding)], [1, _one(dilation)], ceil_mode)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """2-d average pooling.

    >>> import openreg
    >>> openreg.nn.functional.avg_pool2d(openreg.arange(4.0).reshape(1, 2, 2), 2).tolist()
    [[[1.5]]]
    """
    return ops.aten.avg_pool2d.default(input, _pair(kernel_size), _pair(stride), _pair(padding), ceil_mode,
                                       count_include_pad, divisor_override)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-d average pooling of ``(N, C, L)`` or ``(C, L)`` inputs.

    >>> import openreg
    >>> openreg.nn.functional.avg_pool1d(openreg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[2.0, 1.0]]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    s = [] if stride is None or (not isinstance(stride, int) and len(stride) == 0) else [1, _one(stride)]
    return ops.aten.avg_pool2d.default(input.unsqueeze(-2), [1, _one(kernel_size)], s, [0, _one(padding)],
                                       ceil_mode, count_include_pad, None).squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a fixed ``output_size`` (an int, a pair; ``None`` keeps that input size).

    >>> import openreg
    >>> openreg.nn.functional.adaptive_avg_pool2d(openreg.arange(16.0).reshape(1, 4, 4), 2).tolist()
    [[[2.5, 4.5], [10.5, 12.5]]]
    """
    size = [output_size, output_size] if isinstance(output_size, int) else list(output_size)
    size = [input.shape[-2 + i] if s is None else s for i, s in enumerate(size)]
    return ops.aten.adaptive_avg_pool2d.default(input, size)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` inputs to length ``output_size``.

    >>> import openreg
    >>> openreg.nn.functional.adaptive_avg_pool1d(openreg.tensor([[1.0, 3.0, 2.0, 0.0]]), 1).tolist()
    [[1.5]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    return ops.aten.adaptive_avg_pool2d.default(input.unsqueeze(-2), [1, _one(output_size)]).squeeze(-2)
