"""Convolutions of ``nn.functional``: ``conv1d``, ``conv2d``, ``conv_transpose1d`` and ``conv_transpose2d``
(over ``aten::convolution``: im2col + one GEMM per group; the transposed form is its input gradient).

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.conv2d(openreg.ones(1, 2, 4, 4), openreg.ones(3, 2, 3, 3), padding="same").shape
openreg.Size([1, 3, 4, 4])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def _list(v, n: int) -> list:
    return [v] * n if isinstance(v, int) else list(v)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-d convolution of ``(N, C, L)`` or ``(C, L)`` inputs with ``weight`` ``(O, C/groups, K)``;
    ``padding`` may be an int, a 1-tuple, ``"valid"`` or ``"same"``.

    >>> import openreg
    >>> openreg.nn.functional.conv1d(openreg.ones(1, 1, 5), openreg.ones(1, 1, 3)).tolist()
    [[[3.0, 3.0, 3.0]]]
    """
    if isinstance(padding, str):
        return A.conv1d__padding(input, weight, bias, _list(stride, 1), padding, _list(dilation, 1), groups)
    return A.conv1d(input, weight, bias, _list(stride, 1), _list(padding, 1), _list(dilation, 1),
                                   groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-d convolution of ``(N, C, H, W)`` or ``(C, H, W)`` inputs with ``weight`` ``(O, C/groups, kH, kW)``;
    ``padding`` may be an int, a pair, ``"valid"`` or ``"same"``.

    >>> import openreg
    >>> openreg.nn.functional.conv2d(openreg.ones(1, 1, 3, 3), openreg.ones(1, 1, 2, 2), stride=2).tolist()
    [[[[4.0]]]]
    """
    if isinstance(padding, str):
        return A.conv2d__padding(input, weight, bias, _list(stride, 2), padding, _list(dilation, 2), groups)
    return A.conv2d(input, weight, bias, _list(stride, 2), _list(padding, 2), _list(dilation, 2),
                                   groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """1-d transposed convolution ("deconvolution") of ``(N, C_in, L)`` or ``(C_in, L)`` inputs with ``weight``
    ``(C_in, C_out/groups, K)``: the gradient of ``conv1d`` with respect to its input.

    >>> import openreg
    >>> openreg.nn.functional.conv_transpose1d(openreg.ones(1, 1, 2), openreg.ones(1, 1, 3), stride=2).tolist()
    [[[1.0, 1.0, 2.0, 1.0, 1.0]]]
    """
    return A.conv_transpose1d(input, weight, bias, _list(stride, 1), _list(padding, 1),
                                             _list(output_padding, 1), groups, _list(dilation, 1))


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """2-d transposed convolution of ``(N, C_in, H, W)`` or ``(C_in, H, W)`` inputs with ``weight``
    ``(C_in, C_out/groups, kH, kW)``; ``output_padding`` adds rows/columns at the bottom/right.

    >>> import openreg
    >>> openreg.nn.functional.conv_transpose2d(openreg.ones(1, 1, 2, 2), openreg.ones(1, 1, 2, 2)).shape
    openreg.Size([1, 1, 3, 3])
    """
    return A.conv_transpose2d__input(input, weight, bias, _list(stride, 2), _list(padding, 2),
                                           _list(output_padding, 2), groups, _list(dilation, 2))
