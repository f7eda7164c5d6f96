"""Convolution modules: ``Conv1d``, ``Conv2d`` (PyTorch's parameters ``weight``/``bias``, init and
``padding_mode`` zeros/reflect/replicate/circular), ``ConvTranspose1d`` and ``ConvTranspose2d``.

>>> import openreg
>>> conv = openreg.nn.Conv2d(3, 8, 3, padding=1)
>>> conv(openreg.ones(2, 3, 5, 5)).shape, sorted(conv.state_dict())
(openreg.Size([2, 8, 5, 5]), ['bias', 'weight'])
"""
from __future__ import annotations

import math

from ...tensor import Tensor
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(v, n: int) -> tuple:
    return (v,) * n if isinstance(v, int) else tuple(v)


class _ConvNd(Module):
    _nd = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
                 transposed: bool = False, output_padding=0) -> None:
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, nd)
        self.stride = _tuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, nd)
        self.dilation = _tuple(dilation, nd)
        self.transposed = transposed
        self.output_padding = _tuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            pads = [0, 0] * nd
            if padding == "same":
                for d, t in zip(range(nd - 1, -1, -1), total):
                    left = t // 2
                    pads[2 * d], pads[2 * d + 1] = left, t - left
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        from ...operators.factories import empty
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty(*shape, *self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's init: ``kaiming_uniform_(weight, a=sqrt(5))`` and the bias uniform in ``±1/sqrt(fan_in)``
        (both bounds are ``1/sqrt(fan_in)``)."""
        from ...autograd.grad_mode import no_grad
        fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        with no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.uniform_(-bound, bound)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            mode = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}[self.padding_mode]
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self._nd:
            s += f", padding={self.padding}"
        if self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-d convolution over ``(N, C_in, L)`` inputs: weight ``(C_out, C_in/groups, K)``."""

    _nd = 1


class Conv2d(_ConvNd):
    """2-d convolution over ``(N, C_in, H, W)`` inputs: weight ``(C_out, C_in/groups, kH, kW)``."""

    _nd = 2


class Conv3d(_ConvNd):
    """3-d convolution over ``(N, C_in, D, H, W)`` inputs: weight ``(C_out, C_in/groups, kD, kH, kW)``.

    >>> import openreg
    >>> openreg.nn.Conv3d(2, 4, 3, padding=1)(openreg.ones(1, 2, 4, 4, 4)).shape
    openreg.Size([1, 4, 4, 4, 4])
    """

    _nd = 3


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, transposed=True, output_padding=output_padding)

    def _output_padding(self, input: Tensor, output_size, stride, padding, kernel_size, num_spatial_dims: int,
                        dilation=None) -> list:
        """The ``output_padding`` that makes the output ``output_size`` (PyTorch's rule and error)."""
        if output_size is None:
            return list(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        output_size = list(output_size)
        if len(output_size) == num_spatial_dims + (2 if has_batch else 1):
            output_size = output_size[-num_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_spatial_dims + (2 if has_batch else 1)} elements (got "
                             f"{len(output_size)})")
        dilation = self.dilation if dilation is None else dilation
        spatial = input.shape[-num_spatial_dims:]
        smallest = [(spatial[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1
                    for d in range(num_spatial_dims)]
        largest = [smallest[d] + stride[d] - 1 for d in range(num_spatial_dims)]
        for d in range(num_spatial_dims):
            if not smallest[d] <= output_size[d] <= largest[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} "
                                 f"to {largest} (for an input of {spatial})")
        return [output_size[d] - smallest[d] for d in range(num_spatial_dims)]

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        nd = self._nd
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, nd,
                                              self.dilation)
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution over ``(N, C_in, L)`` inputs: weight ``(C_in, C_out/groups, K)``.

    >>> import openreg
    >>> openreg.nn.ConvTranspose1d(4, 2, 3, stride=2)(openreg.ones(1, 4, 5)).shape
    openreg.Size([1, 2, 11])
    """

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution over ``(N, C_in, H, W)`` inputs: weight ``(C_in, C_out/groups, kH, kW)``;
    ``forward(input, output_size)`` picks the ``output_padding`` that gives ``output_size``.

    >>> import openreg
    >>> up = openreg.nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)
    >>> up(openreg.ones(2, 8, 5, 5)).shape, tuple(up.weight.shape)
    (openreg.Size([2, 3, 10, 10]), (8, 3, 4, 4))
    """

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution over ``(N, C_in, D, H, W)`` inputs: weight ``(C_in, C_out/groups, kD, kH, kW)``.

    >>> import openreg
    >>> openreg.nn.ConvTranspose3d(4, 2, 2, stride=2)(openreg.ones(1, 4, 2, 3, 3)).shape
    openreg.Size([1, 2, 4, 6, 6])
    """

    _nd = 3


class _LazyConvMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` is taken from the first input (dimension 1, or 0 for an
    unbatched input), then the ``UninitializedParameter`` weight and bias are materialized and initialised and
    the module becomes the ``Conv*d``/``ConvTranspose*d`` of ``cls_to_become``."""

    def _lazy_parameters(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups)
        else:
            shape = (self.out_channels, self.in_channels // self.groups)
        self.weight.materialize((*shape, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._nd + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConvNd(_LazyConvMixin, _ConvNd):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd):
    """A ``Conv1d`` whose ``in_channels`` is inferred from the first input.

    >>> import openreg
    >>> m = openreg.nn.LazyConv1d(4, 3)
    >>> m(openreg.ones(2, 5, 8)).shape, type(m).__name__, tuple(m.weight.shape)
    (openreg.Size([2, 4, 6]), 'Conv1d', (4, 5, 3))
    """

    _nd = 1
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd):
    """A ``Conv2d`` whose ``in_channels`` is inferred from the first input."""

    _nd = 2
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd):
    """A ``Conv3d`` whose ``in_channels`` is inferred from the first input."""

    _nd = 3
    cls_to_become = Conv3d


class _LazyConvTransposeNd(_LazyConvMixin, _ConvTransposeNd):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                         padding_mode, device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvTransposeNd):
    """A ``ConvTranspose1d`` whose ``in_channels`` is inferred from the first input.

    >>> import openreg
    >>> m = openreg.nn.LazyConvTranspose1d(2, 3, stride=2)
    >>> m(openreg.ones(1, 4, 5)).shape, type(m).__name__, tuple(m.weight.shape)
    (openreg.Size([1, 2, 11]), 'ConvTranspose1d', (4, 2, 3))
    """

    _nd = 1
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd):
    """A ``ConvTranspose2d`` whose ``in_channels`` is inferred from the first input."""

    _nd = 2
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd):
    """A ``ConvTranspose3d`` whose ``in_channels`` is inferred from the first input."""

    _nd = 3
    cls_to_become = ConvTranspose3d
