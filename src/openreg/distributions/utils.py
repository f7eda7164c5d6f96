"""Helpers shared by the distributions: ``broadcast_all``, ``lazy_property``, and the conversions between
probabilities and logits (PyTorch's ``torch.distributions.utils``).

>>> import openreg
>>> [t.shape for t in broadcast_all(openreg.zeros(2, 1), 1.0)]
[openreg.Size([2, 1]), openreg.Size([2, 1])]
>>> logits_to_probs(openreg.tensor([0.0]), is_binary=True).tolist()
[0.5]
"""
from __future__ import annotations

import operator

import numpy as np

import openreg

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def _forwarded(path: str) -> property:
    """A read-only property reading ``self.<path>`` (a dotted path, e.g. ``"base_dist.scale"``): the parameter
    of an inner distribution or transform that the outer one exposes as its own."""
    return property(operator.attrgetter(path), doc=f"``self.{path}``")


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape; numbers become tensors of the default dtype (or of the
    first tensor's dtype and device)."""
    if not all(isinstance(v, (openreg.Tensor, int, float)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, openreg.Tensor)), None)
    options = {"dtype": like.dtype, "device": like.device} if like is not None else \
        {"dtype": openreg.get_default_dtype()}
    tensors = [v if isinstance(v, openreg.Tensor) else openreg.tensor(v, **options) for v in values]
    return openreg.broadcast_tensors(*tensors)


def _batch_shape_of(broadcast, *given) -> openreg.Size:
    """The batch shape of a distribution built from the parameters ``given``: ``Size()`` when all of them are
    Python numbers (as PyTorch), else the shape of ``broadcast``, the parameters broadcast together."""
    return openreg.Size() if all(isinstance(v, (int, float)) for v in given) else broadcast.size()


def _support_over_batch(values, batch_shape, expand: bool):
    """The 1-D tensor of support ``values`` as ``enumerate_support`` returns it: along a new leading dim,
    expanded over ``batch_shape`` (or with size-1 batch dims if not ``expand``)."""
    values = values.view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + tuple(batch_shape)) if expand else values


def _sum_rightmost(value, dims: int):
    """``value`` summed over its ``dims`` rightmost dimensions."""
    return value.reshape(tuple(value.shape[:value.dim() - dims]) + (-1,)).sum(-1) if dims > 0 else value


def _standard_normal(shape, dtype, device):
    return openreg.randn(tuple(shape), dtype=dtype, device=device)


class lazy_property:
    """A property computed on first access and then stored on the instance (PyTorch's lazy_property)."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with openreg.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _eps(dtype) -> float:
    return float(np.finfo({openreg.float16: np.float16, openreg.float64: np.float64}.get(dtype, np.float32)).eps)


def clamp_probs(probs):
    """Probabilities clamped to ``[eps, 1 - eps]`` of their dtype."""
    eps = _eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary: bool = False):
    return openreg.sigmoid(logits) if is_binary else openreg.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary: bool = False):
    p = clamp_probs(probs)
    return openreg.log(p) - openreg.log1p(-p) if is_binary else openreg.log(p)
