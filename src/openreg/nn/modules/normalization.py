"""Normalization modules: ``LayerNorm`` and ``GroupNorm``.

>>> import openreg
>>> ln = openreg.nn.LayerNorm(4)
>>> ln(openreg.ones(2, 4)).shape, sorted(ln.state_dict())
(openreg.Size([2, 4]), ['bias', 'weight'])
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` dims; ``elementwise_affine`` adds ``weight`` (ones) and
    ``bias`` (zeros, unless ``bias=False``)."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalize ``num_groups`` groups of channels of ``(N, C, *)`` inputs; ``affine`` adds per-channel ``weight``
    (ones) and ``bias`` (zeros)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine_parameters(self, (num_channels,), affine, bias, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


def _affine_parameters(module: Module, shape, affine: bool, bias: bool, device, dtype) -> None:
    """``weight`` (and ``bias`` unless ``bias=False``) of ``shape`` when ``affine``, else both registered as None;
    then ``reset_parameters``: the shared layout of LayerNorm's and GroupNorm's parameters."""
    from ...operators.factories import empty
    weight = Parameter(empty(*shape, device=device, dtype=dtype)) if affine else None
    module.register_parameter("weight", weight)
    module.register_parameter("bias", Parameter(empty(*shape, device=device, dtype=dtype)) if affine and bias
                              else None)
    module.reset_parameters()


def _reset_affine(module: Module) -> None:
    """Weight to ones, bias to zeros (where present)."""
    from ...autograd.grad_mode import no_grad
    with no_grad():
        if module.weight is not None:
            module.weight.fill_(1.0)
        if module.bias is not None:
            module.bias.zero_()


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims, with a learned ``weight``
    (ones) when ``elementwise_affine``.

    >>> import openreg
    >>> openreg.nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        from ...operators.factories import empty
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(*self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` set to ones."""
        from ...autograd.grad_mode import no_grad
        if self.weight is not None:
            with no_grad():
                self.weight.fill_(1.0)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Cross-channel local response normalization (AlexNet; ``F.local_response_norm``).

    >>> import openreg
    >>> openreg.nn.LocalResponseNorm(2)(openreg.ones(1, 3, 2)).shape
    openreg.Size([1, 3, 2])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
