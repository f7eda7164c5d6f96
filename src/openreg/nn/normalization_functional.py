"""Normalization of ``nn.functional``: ``layer_norm``, ``group_norm``, ``batch_norm`` and ``normalize``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> [round(v, 4) for v in F.layer_norm(openreg.tensor([[1.0, 3.0]]), (2,))[0].tolist()]
[-1.0, 1.0]
"""
from __future__ import annotations

from .. import dtypes
from .._dispatch.ops import A
from ..amp.composite import autocast_composite
from ..tensor import Tensor

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "normalize", "rms_norm"]


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the trailing ``normalized_shape`` dims (mean 0, variance 1), then scale and shift."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return A.layer_norm(input, shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize each of ``num_groups`` channel groups of ``(N, C, *)`` inputs, then scale and shift per channel.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.group_norm(openreg.tensor([[[1.0], [3.0]]]), 1).flatten().tolist()]
    [-1.0, 1.0]
    """
    return A.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each channel (dim 1) by the batch statistics (``training``, updating the running ones in place)
    or by ``running_mean``/``running_var``.

    >>> import openreg
    >>> x = openreg.tensor([[1.0], [3.0]])
    >>> rm, rv = openreg.zeros(1), openreg.ones(1)
    >>> [round(v, 4) for v in openreg.nn.functional.batch_norm(x, rm, rv, training=True).flatten().tolist()]
    [-1.0, 1.0]
    >>> [round(v, 4) for v in rm.tolist()], [round(v, 4) for v in rv.tolist()]
    ([0.2], [1.1])
    """
    if training:
        size = list(input.shape)
        count = 1
        for i, s in enumerate(size):
            if i != 1:
                count *= s
        if count == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    return A.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                                       False)


def normalize(input: Tensor, p: float = 2.0, dim=1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p over dim, eps)``.

    >>> import openreg
    >>> openreg.nn.functional.normalize(openreg.tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return out.copy_(input / denom)


_MACHINE_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each ``(sample, channel)`` over its spatial dims, as PyTorch: batch normalization of the input
    viewed as one sample with ``N * C`` channels (running statistics averaged over the batch).

    >>> import openreg
    >>> y = openreg.nn.functional.instance_norm(openreg.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
    >>> [[round(v, 3) for v in row] for row in y[0].tolist()]
    [[-1.0, 1.0], [-1.0, 1.0]]
    """
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    b, c = input.shape[0], input.shape[1]
    flat = input.reshape([1, b * c] + list(input.shape[2:]))

    def tiled(t):
        return None if t is None else t.repeat(b)
    mean, var = tiled(running_mean), tiled(running_var)
    out = batch_norm(flat, mean, var, tiled(weight), tiled(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        from ..autograd.grad_mode import no_grad
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(mean.reshape(b, c).mean(0))
            if running_var is not None:
                running_var.copy_(var.reshape(b, c).mean(0))
    return out.reshape(input.shape)


@autocast_composite("rms_norm")
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x**2) + eps) * weight`` over the trailing ``normalized_shape`` dims; ``eps`` defaults to
    the machine epsilon of the dtype computed in (float32 for float16/bfloat16 inputs, rounded back at the end).

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.rms_norm(openreg.tensor([3.0, 4.0]), [2]).tolist()]
    [0.8485, 1.1314]
    """
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if list(input.shape[input.dim() - len(shape):]) != shape or len(shape) > input.dim():
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*"
                           f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {shape}")
    # as PyTorch: float16/bfloat16 inputs are normalized in float32 (their "opmath" type), whose epsilon is then
    # the default eps, and the result is rounded back to the input's dtype once, after the weight
    low = input.dtype in (dtypes.float16, dtypes.bfloat16)
    x = input.float() if low else input
    if eps is None:
        eps = _MACHINE_EPS.get(str(x.dtype).split(".")[-1], 2.0 ** -23)
    dims = list(range(-len(shape), 0))
    out = x * (x * x).mean(dims, keepdim=True).add(eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out.to(input.dtype) if low else out
