"""Activation functions of ``nn.functional`` beyond ``relu``/``softmax``: ``tanh``, ``sigmoid``, ``softmin``,
``gelu``, ``silu``, ``softplus``, ``leaky_relu``, ``elu`` over their operators; ``hardtanh``, ``relu6``,
``hardsigmoid``, ``hardswish``, ``mish``, ``selu``, ``celu``, ``logsigmoid``, ``softsign``, ``tanhshrink``,
``softshrink``, ``hardshrink``, ``threshold``, ``glu``, ``prelu``, ``rrelu`` and the in-place ``*_`` forms as
compositions of pointwise operators.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.tanh(openreg.zeros(2)).tolist(), F.sigmoid(openreg.zeros(1)).tolist()
([0.0, 0.0], [0.5])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..amp.composite import autocast_composite
from ..tensor import Tensor
from .functional_core import softmax

__all__ = ["celu", "celu_", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
           "hardtanh_", "leaky_relu", "leaky_relu_", "logsigmoid", "mish", "prelu", "relu6", "relu_", "rrelu", "rrelu_",
           "selu", "selu_", "sigmoid", "silu", "softmin", "softplus", "softshrink", "softsign", "tanh", "tanhshrink",
           "threshold", "threshold_"]


def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic function ``1 / (1 + exp(-x))``."""
    return input.sigmoid()


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-input)`` along ``dim``.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.softmin(openreg.tensor([0.0, 1.0]), dim=0).tolist()]
    [0.7311, 0.2689]
    """
    from .functional_core import _dim
    return softmax(-input, _dim(dim, input.dim(), "softmin", _stacklevel), _stacklevel, dtype)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit ``x * Phi(x)`` (``approximate="tanh"``: the tanh approximation).

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.gelu(openreg.tensor([-1.0, 1.0])).tolist()]
    [-0.1587, 0.8413]
    """
    return A.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)``.

    >>> import openreg
    >>> round(openreg.nn.functional.silu(openreg.tensor([1.0])).item(), 4)
    0.7311
    """
    return A.silu_(input) if inplace else A.silu(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, the identity where ``beta * x > threshold``.

    >>> import openreg
    >>> round(openreg.nn.functional.softplus(openreg.tensor([0.0])).item(), 4)
    0.6931
    """
    return A.softplus(input, beta, threshold)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    >>> import openreg
    >>> openreg.nn.functional.leaky_relu(openreg.tensor([-2.0, 3.0]), 0.5).tolist()
    [-1.0, 3.0]
    """
    return A.leaky_relu_(input, negative_slope) if inplace else A.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.elu(openreg.tensor([-1.0, 2.0])).tolist()]
    [-0.6321, 2.0]
    """
    return A.elu_(input, alpha) if inplace else A.elu(input, alpha)


# -- composites over the pointwise operators (their gradients come from those operators) -------------------

def _in_opmath(input: Tensor, fn) -> Tensor:
    """``fn(input)``; a float16/bfloat16 ``input`` is computed in float32 and rounded once to its type, as
    PyTorch's CPU kernels evaluate these activations (rounding every step of the composite to 16 bits differs
    from them in about a quarter of the values).

    >>> import openreg
    >>> _in_opmath(openreg.ones(2, dtype=openreg.float16), lambda t: t * 3).dtype
    openreg.float16
    """
    if input.dtype.is_reduced_float:
        return fn(input.float()).to(input.dtype)
    return fn(input)


def _maybe_inplace(input: Tensor, inplace: bool, fn) -> Tensor:
    """``_in_opmath(input, fn)``, written into ``input`` when ``inplace``. ``fn``'s gradient reads its argument, so
    an in-place call that autograd records runs ``fn`` on a copy of ``input`` (PyTorch's in-place kernels keep the
    original the same way): overwriting the saved input would fail in backward.

    >>> import openreg
    >>> x = openreg.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 1
    >>> _maybe_inplace(y, True, lambda t: t * t).sum().backward()
    >>> x.grad.tolist()
    [2.0, 4.0]
    """
    if not inplace:
        return _in_opmath(input, fn)
    return input.copy_(_in_opmath(input.clone() if input.requires_grad else input, fn))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``."""
    return input.relu_()


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``."""
    return elu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``."""
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``; the gradient is zero at the bounds (``clamp``'s passes there).

    >>> import openreg
    >>> openreg.nn.functional.hardtanh(openreg.tensor([-3.0, 0.5, 2.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return A.hardtanh_(input, min_val, max_val) if inplace else A.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place ``hardtanh``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``.

    >>> import openreg
    >>> openreg.nn.functional.relu6(openreg.tensor([-1.0, 3.0, 9.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``.

    >>> import openreg
    >>> openreg.nn.functional.hardsigmoid(openreg.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    if not inplace:
        return A.hardsigmoid(input)   # PyTorch's operator and HardsigmoidBackward0 (aten.hardsigmoid_backward)
    return input.copy_(A.hardsigmoid(input.clone() if input.requires_grad else input))


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``.

    >>> import openreg
    >>> openreg.nn.functional.hardswish(openreg.tensor([1.0, 4.0])).tolist()
    [0.6666666865348816, 4.0]
    """
    if not inplace:
        return A.hardswish(input)     # PyTorch's operator and HardswishBackward0 (aten.hardswish_backward)
    return input.copy_(A.hardswish(input.clone() if input.requires_grad else input))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    >>> import openreg
    >>> round(openreg.nn.functional.mish(openreg.tensor([1.0])).item(), 4)
    0.8651
    """
    return _maybe_inplace(input, inplace, lambda t: t * softplus(t).tanh())


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalizing constants.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.selu(openreg.tensor([-1.0, 1.0])).tolist()]
    [-1.1113, 1.0507]
    """
    if input.dtype.is_reduced_float:   # PyTorch: one elu kernel with the scale (float32 inside, one rounding)
        out = A.elu(input, _SELU_ALPHA, _SELU_SCALE)
    else:
        out = elu(input, _SELU_ALPHA) * _SELU_SCALE
    return input.copy_(out) if inplace else out


def selu_(input: Tensor) -> Tensor:
    """In-place ``selu``."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.celu(openreg.tensor([-1.0, 1.0]), 2.0).tolist()]
    [-0.7869, 1.0]
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if input.dtype.is_reduced_float:   # PyTorch: elu(x, alpha, 1, 1 / alpha) (float32 inside, one rounding)
        out = A.elu(input, alpha, 1.0, 1.0 / alpha)
    else:
        out = elu(input / alpha) * alpha
    return input.copy_(out) if inplace else out


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``."""
    return celu(input, alpha, inplace=True)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.logsigmoid(openreg.tensor([0.0, -200.0])).tolist()]
    [-0.6931, -200.0]
    """
    return -softplus(-input)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``.

    >>> import openreg
    >>> openreg.nn.functional.softsign(openreg.tensor([-1.0, 3.0])).tolist()
    [-0.5, 0.75]
    """
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``.

    >>> import openreg
    >>> openreg.nn.functional.tanhshrink(openreg.tensor([0.0])).tolist()
    [0.0]
    """
    return input - input.tanh()


def _check_lambd(input: Tensor, lambd: float) -> None:
    if lambd < 0:
        from ..aten.meta_rules import scalar_type_name
        raise RuntimeError(f"lambda must be in range [0, 3.40282e+38] for input dtype "
                           f"{scalar_type_name(input.dtype)}, but found {lambd:g}")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    >>> import openreg
    >>> openreg.nn.functional.softshrink(openreg.tensor([-2.0, 0.25, 1.5]), 1.0).tolist()
    [-1.0, 0.0, 0.5]
    """
    _check_lambd(input, lambd)
    return _in_opmath(input, lambda t: t - t.clamp(-lambd, lambd))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, 0 elsewhere.

    >>> import openreg
    >>> openreg.nn.functional.hardshrink(openreg.tensor([-2.0, 0.25, 1.5]), 1.0).tolist()
    [-2.0, 0.0, 1.5]
    """
    return input.masked_fill(input.abs() <= lambd, 0.0)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere.

    >>> import openreg
    >>> openreg.nn.functional.threshold(openreg.tensor([0.5, 2.0]), 1.0, -1.0).tolist()
    [-1.0, 2.0]
    """
    keep = input > threshold
    if inplace:
        return input.masked_fill_(~keep, value)
    return input.masked_fill(~keep, value)


def threshold_(input: Tensor, threshold_value: float, value: float) -> Tensor:
    """In-place ``threshold``."""
    return threshold(input, threshold_value, value, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second half.

    >>> import openreg
    >>> openreg.nn.functional.glu(openreg.tensor([2.0, 0.0])).tolist()
    [1.0]
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


@autocast_composite("prelu")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one value or one per channel (dim 1).

    >>> import openreg
    >>> openreg.nn.functional.prelu(openreg.tensor([[-2.0, 3.0]]), openreg.tensor([0.25])).tolist()
    [[-0.5, 3.0]]
    """
    n = weight.numel()
    if n != 1:
        channels = input.shape[1] if input.dim() >= 2 else 1
        if input.dim() == 0 or n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                               f"and channel size = {channels}.")
        weight = weight.reshape([n] + [1] * (input.dim() - 2))
    return input.where(input > 0, weight * input)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: negative inputs times a slope drawn uniformly from ``[lower, upper]`` per element
    in training, times ``(lower + upper) / 2`` in evaluation.

    >>> import openreg
    >>> openreg.nn.functional.rrelu(openreg.tensor([-2.0, 1.0]), 0.25, 0.75).tolist()
    [-1.0, 1.0]
    """
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    from ..autograd.grad_mode import no_grad
    with no_grad():
        slope = input.new_empty(input.shape).uniform_(lower, upper).masked_fill_(input >= 0, 1.0)
    out = input * slope
    return input.copy_(out) if inplace else out


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)
