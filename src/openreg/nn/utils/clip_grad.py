"""Gradient clipping as ``torch.nn.utils.clip_grad``: ``clip_grad_norm_`` scales all gradients together so that
their total ``norm_type``-norm is at most ``max_norm`` and returns that total norm (a tensor); ``clip_grad_value_``
clamps each gradient element. Gradients are grouped by device and dtype. ``foreach`` is accepted for PyTorch's
signature: every openreg device (CPU included, as in PyTorch) supports it, and both settings compute the same.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.zeros(2))
>>> p.grad = openreg.tensor([3.0, 4.0])
>>> openreg.nn.utils.clip_grad_norm_([p], max_norm=1.0).item()
5.0
>>> [round(v, 4) for v in p.grad.tolist()]
[0.6, 0.8]
"""
from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

from ... import dtypes
from ..._dispatch.ops import A
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]



def _as_list(tensors: Tensor | Iterable[Tensor], warn_empty: bool = False) -> list[Tensor]:
    if isinstance(tensors, Tensor):
        return [tensors]
    is_generator = isinstance(tensors, types.GeneratorType)
    tensors = list(tensors)
    if warn_empty and is_generator and not tensors:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    return tensors


def _group_by_device_and_dtype(tensors: list[Tensor]) -> dict:
    groups: dict = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _stack_scalars(norms: list[Tensor], device, stack) -> Tensor:
    """``stack([n.to(device) for n in norms])``; 0-d norms of one dtype already on ``device`` (one device, the
    common case) are stacked as arrays at once: the same values without a ``to``, an ``unsqueeze`` and a view
    per norm (28 of each for a small GPT's gradients)."""
    first = norms[0]
    dtype, storage_device = first._dtype, first._storage.device
    if first.device == device and all(n._dtype is dtype and n._storage.device == storage_device and not n._size
                                      for n in norms):
        from ..._array_bridge import wrap_array
        xp = first._storage._backend.array_module
        return wrap_array(xp.stack([n._array() for n in norms]), dtype, first.device)
    return stack([n.to(device) for n in norms])


def _vector_norm(t: Tensor, ord: float) -> Tensor:
    """``linalg.vector_norm(t, ord)`` from elementwise ops and reductions (accumulated in float32 for 16-bit
    inputs, result in the input's dtype)."""
    x = t.to(dtypes.float32) if t.dtype.itemsize < 4 and t.dtype.is_floating_point else t
    if ord == 2 and not x.dtype.is_complex:
        return (x * x).sum().sqrt().to(t.dtype)
    a = x.abs()
    if ord == math.inf:
        n = a.amax() if a.numel() else a.sum()
    elif ord == -math.inf:
        n = a.amin()
    elif ord == 0:
        n = (a != 0).sum().to(x.dtype)
    elif ord == 1:
        n = a.sum()
    elif ord == 2:
        n = (a * a).sum().sqrt()
    else:
        n = (a ** ord).sum() ** (1.0 / ord)
    return n.to(t.dtype)


@no_grad()
def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of the norms of ``tensors`` (a 0-d tensor on the first tensor's device).

    >>> import openreg
    >>> openreg.nn.utils.get_total_norm([openreg.tensor([3.0]), openreg.tensor([4.0])]).item()
    5.0
    """
    from ... import stack
    from ...tensor_from_data import tensor as make_tensor
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return make_tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for (_device, dtype), group in _group_by_device_and_dtype(tensors).items():
        if foreach is not False and dtype in (dtypes.float32, dtypes.float64):
            norms.extend(A._foreach_norm__Scalar(group, norm_type))     # one call per device and dtype
        else:
            norms.extend(_vector_norm(g, norm_type) for g in group)
    total = _vector_norm(_stack_scalars(norms, first_device, stack), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           f"cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           f"anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale the gradients of ``parameters`` by ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for (device, dtype), group in _group_by_device_and_dtype(grads).items():
        scale = coef.to(device)
        if foreach is not False and dtype is scale.dtype:
            A._foreach_mul___Tensor(group, scale)      # one call per device and dtype
        else:
            for g in group:
                g.mul_(scale)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradients' total norm to ``max_norm`` in place; returns the total norm before clipping.
    ``error_if_nonfinite=True`` raises ``RuntimeError`` (and clips nothing) when that norm is nan or inf."""
    parameters = _as_list(parameters, warn_empty=True)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place.

    >>> import openreg
    >>> p = openreg.nn.Parameter(openreg.zeros(3)); p.grad = openreg.tensor([-5.0, 0.5, 5.0])
    >>> openreg.nn.utils.clip_grad_value_([p], 1.0); p.grad.tolist()
    [-1.0, 0.5, 1.0]
    """
    clip_value = float(clip_value)
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    for g in grads:
        g.clamp_(min=-clip_value, max=clip_value)
