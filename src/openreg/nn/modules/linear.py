"""Linear modules: ``Identity`` and ``Linear``.

>>> import openreg
>>> openreg.nn.modules.linear.Linear is openreg.nn.Linear
True
>>> openreg.nn.Linear(4, 3)(openreg.ones(2, 4)).shape
openreg.Size([2, 3])
"""
from __future__ import annotations

import math

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input unchanged; accepts and ignores any constructor arguments (as PyTorch).

    >>> import openreg
    >>> x = openreg.ones(2)
    >>> openreg.nn.Identity(54, unused="x")(x) is x
    True
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``; weight and bias are initialised uniformly in ``±1/sqrt(in_features)``
    (PyTorch's ``kaiming_uniform_(a=sqrt(5))`` bound for the weight, same bound for the bias)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        from ...operators.factories import empty
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        from ...autograd.grad_mode import no_grad
        bound = 1.0 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
        with no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.uniform_(-bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """The ``Linear`` of ``MultiheadAttention.out_proj`` (PyTorch marks it so quantization leaves it alone);
    kept under its own name so pickles and ``isinstance`` checks written against PyTorch's path still work."""


class Bilinear(Module):
    """``y = x1 @ weight @ x2 + bias`` with ``weight`` ``(out, in1, in2)``, initialised uniformly in
    ``±1/sqrt(in1_features)`` (weight and bias).

    >>> import openreg
    >>> openreg.nn.Bilinear(2, 3, 4)
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        from ...operators.factories import empty
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(empty(out_features, in1_features, in2_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        from ...autograd.grad_mode import no_grad
        bound = 1.0 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] > 0 else 0.0
        with no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.uniform_(-bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is taken from the first input: until then its parameters are
    ``UninitializedParameter`` placeholders; the first ``forward`` materializes and initialises them and the
    module becomes a ``Linear``.

    >>> import openreg
    >>> m = openreg.nn.LazyLinear(3)
    >>> type(m.weight).__name__
    'UninitializedParameter'
    >>> m(openreg.ones(2, 5)).shape, type(m).__name__, tuple(m.weight.shape)
    (openreg.Size([2, 3]), 'Linear', (3, 5))
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
