"""``openreg.nn.init``: PyTorch's parameter initialisers. Each fills its tensor in place under ``no_grad`` and
returns it; the random ones draw from ``generator`` (or the tensor's device's default generator).

>>> import openreg
>>> w = openreg.empty(3, 5)
>>> _ = openreg.nn.init.xavier_uniform_(w, generator=openreg.Generator().manual_seed(0))
>>> bound = (6 / (3 + 5)) ** 0.5
>>> all(-bound <= v <= bound for v in w.flatten().tolist())
True
>>> openreg.nn.init.calculate_gain("leaky_relu", 0.2) == (2 / (1 + 0.2 ** 2)) ** 0.5
True
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
    "orthogonal_", "sparse_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (``"relu"``: sqrt(2), ``"tanh"``: 5/3, ``"leaky_relu"`` with
    negative slope ``param`` (default 0.01), ``"selu"``: 3/4, linear and convolutions and ``"sigmoid"``: 1).

    >>> import openreg
    >>> openreg.nn.init.calculate_gain("tanh")
    1.6666666666666667
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: input and output feature maps times the receptive field (dims 2.. of a conv weight).

    >>> import openreg
    >>> openreg.nn.init._calculate_fan_in_and_fan_out(openreg.empty(8, 4, 3, 3))
    (36, 72)
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with values drawn uniformly from ``[a, b)``."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with values drawn from ``N(mean, std²)``."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


# Acklam's rational approximation of the standard normal quantile (relative error below 1.2e-9), evaluated with
# tensor ops so it runs where the tensor lives (openreg has no erfinv operator yet).
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def _horner(x: Tensor, coefs: tuple, last: float | None = None) -> Tensor:
    acc = x * coefs[0] + coefs[1]
    for c in coefs[2:]:
        acc = acc * x + c
    return acc if last is None else acc * x + last


def _normal_quantile_(p: Tensor) -> Tensor:
    """Replace probabilities ``p`` (in [0, 1]) by the standard normal quantiles, in place; 0 and 1 map to -inf/+inf.
    Evaluated in float64 (the polynomials cancel too much in float32) and cast back."""
    import openreg as fm

    from .. import dtypes
    out, p = p, p.to(dtypes.float64)
    q = p - 0.5
    r = q * q
    central = _horner(r, _A) * q / _horner(r, _B, 1.0)
    tail_p = fm.minimum(p, 1.0 - p).clamp(min=1e-300)
    t = (tail_p.log() * -2.0).sqrt()
    tail = _horner(t, _C) / _horner(t, _D, 1.0)  # the lower tail's quantile (negative)
    tail = fm.where(p > 0.5, -tail, tail)
    x = fm.where((p >= _P_LOW) & (p <= 1 - _P_LOW), central, tail)
    x = fm.where(p <= 0, float("-inf"), fm.where(p >= 1, float("inf"), x))
    return out.copy_(x)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with values drawn from ``N(mean, std²)`` truncated to ``[a, b]`` (inverse-CDF sampling, as PyTorch).

    >>> import openreg
    >>> w = openreg.nn.init.trunc_normal_(openreg.empty(1000), std=0.02, a=-0.04, b=0.04)
    >>> -0.04 <= min(w.tolist()) and max(w.tolist()) <= 0.04
    True
    """
    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        lo, hi = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
        tensor.uniform_(lo, hi, generator=generator)
        _normal_quantile_(tensor)
        tensor.mul_(std).add_(mean)
        return tensor.clamp_(min=a, max=b)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    with no_grad():
        return tensor.fill_(1)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the main diagonal).

    >>> import openreg
    >>> openreg.nn.init.eye_(openreg.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.zero_()
        tensor.diagonal().fill_(1)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta (the convolution keeps its input channels).

    >>> import openreg
    >>> openreg.nn.init.dirac_(openreg.empty(2, 2, 3)).tolist()
    [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: ``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: ``N(0, std²)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """He uniform: ``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)`` (``mode`` picks fan_in or fan_out;
    ``a`` is the negative slope of leaky_relu). ``nn.Linear`` initialises its weight with ``a=sqrt(5)``.

    >>> import openreg
    >>> w = openreg.nn.init.kaiming_uniform_(openreg.empty(4, 6), a=5 ** 0.5)
    >>> max(abs(v) for v in w.flatten().tolist()) <= 1 / 6 ** 0.5
    True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """He normal: ``N(0, std²)`` with ``std = gain / sqrt(fan)``."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (the trailing dims flattened), scaled by ``gain``: the Q factor of a
    Gaussian matrix with its signs fixed by R's diagonal (Saxe et al.), as PyTorch.

    >>> import openreg
    >>> q = openreg.nn.init.orthogonal_(openreg.empty(3, 3))
    >>> bool(((q @ q.T) - openreg.eye(3)).abs().amax() < 1e-5)
    True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        # openreg has no QR operator yet: factorise a float64 host copy with NumPy and copy Q back.
        a = flat.cpu().numpy().astype(np.float64)
        if rows < cols:
            a = a.T
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        from ..tensor_from_data import tensor as make_tensor
        result = make_tensor(np.ascontiguousarray(q), dtype=tensor.dtype, device=tensor.device)
        tensor.copy_(result.view(tensor.shape))
        tensor.mul_(gain)
    return tensor


def _deprecated(new: Callable) -> Callable:
    old_name = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of ``{new.__name__}``."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill a 2-D tensor from ``N(0, std)`` and zero ``ceil(sparsity * rows)`` random rows of every column.

    >>> import openreg
    >>> w = openreg.nn.init.sparse_(openreg.empty(4, 3), sparsity=0.5)
    >>> [int((w[:, c] == 0).sum()) for c in range(3)]
    [2, 2, 2]
    """
    import math

    import openreg
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = openreg.randperm(rows, device=tensor.device)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
