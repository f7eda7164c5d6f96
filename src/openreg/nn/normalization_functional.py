"""Normalization of ``nn.functional``: ``layer_norm``, ``group_norm``, ``batch_norm`` and ``normalize``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> [round(v, 4) for v in F.layer_norm(openreg.tensor([[1.0, 3.0]]), (2,))[0].tolist()]
[-1.0, 1.0]
"""
from __future__ import annotations

from .._dispatch.ops import ops
from ..tensor import Tensor

__all__ = ["batch_norm", "group_norm", "layer_norm", "normalize"]


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the trailing ``normalized_shape`` dims (mean 0, variance 1), then scale and shift."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return ops.aten.layer_norm.default(input, shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize each of ``num_groups`` channel groups of ``(N, C, *)`` inputs, then scale and shift per channel.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.nn.functional.group_norm(openreg.tensor([[[1.0], [3.0]]]), 1).flatten().tolist()]
    [-1.0, 1.0]
    """
    return ops.aten.group_norm.default(input, num_groups, weight, bias, eps)


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
    return ops.aten.batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps,
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
