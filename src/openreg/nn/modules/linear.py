"""Linear modules: ``Identity`` and ``Linear``.

>>> import openreg
>>> openreg.nn.modules.linear.Linear is openreg.nn.Linear
True
>>> openreg.nn.Linear(4, 3)(openreg.ones(2, 4)).shape
openreg.Size([2, 3])
"""
from __future__ import annotations

import math

from ...tensor import Tensor
from .. import functional as F
from ..parameter import Parameter
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


class LazyLinear(Linear):
    """A ``Linear`` whose ``in_features`` is taken from the first input: until then its parameters are empty
    placeholders; the first ``forward`` creates and initialises them and the module becomes a ``Linear``.

    >>> import openreg
    >>> m = openreg.nn.LazyLinear(3)
    >>> m(openreg.ones(2, 5)).shape, type(m).__name__, tuple(m.weight.shape)
    (openreg.Size([2, 3]), 'Linear', (3, 5))
    """

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        Module.__init__(self)
        from ...operators.factories import empty
        self.in_features, self.out_features = 0, out_features
        self._factory = {"device": device, "dtype": dtype}
        self.weight = Parameter(empty(0, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(0, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.in_features != 0:
            super().reset_parameters()

    def forward(self, input: Tensor) -> Tensor:
        from ...operators.factories import empty
        self.in_features = input.shape[-1]
        factory = self.__dict__.pop("_factory")
        self.weight = Parameter(empty(self.out_features, self.in_features, **factory))
        if self.bias is not None:
            self.bias = Parameter(empty(self.out_features, **factory))
        Linear.reset_parameters(self)
        self.__class__ = Linear
        return Linear.forward(self, input)
