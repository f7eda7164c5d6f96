"""``openreg.autograd``: reverse-mode (``backward``, ``grad``), custom ``Function``s, forward mode
(``forward_ad``) and ``gradcheck``/``gradgradcheck``.

>>> import openreg
>>> x = openreg.tensor([1.0, 2.0], requires_grad=True)
>>> (g,) = openreg.autograd.grad((x * x).sum(), x)
>>> g.tolist(), x.grad is None
([2.0, 4.0], True)
"""
from __future__ import annotations

import numpy as np

from .._array_bridge import wrap_array, wrap_known_cpu
from .._dispatch.keys import with_autograd
from .._dispatch.ops import A
from .._dispatch.tls import state as _tls
from ..memory_format import contiguous_format
from ..tensor import TensorBase
from . import forward_ad, functional  # noqa: F401
from .engine import run_backward
from .grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .graph import Node


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, TensorBase):
        return [x]
    return list(x)


def _make_grads(outputs: list, grads: list, *, is_grads_batched: bool = False) -> list:
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if getattr(o, "_rg", False) or o.requires_grad:
                if o._size and o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not (o._dtype.is_floating_point or o._dtype.is_complex):
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                       f"{o.dtype}")
                g = _implicit_grad(o)
            out.append(g)
            continue
        if not isinstance(g, TensorBase):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if tuple(g.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] "
                               f"has a shape of {o.shape!r}.")
        if o.dtype.is_complex != g.dtype.is_complex:
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and "
                               f"output[{i}] has a dtype of {o.dtype}.")
        if g.device != o.device:
            raise RuntimeError(f"invalid gradient at index {i} - expected device {o.device} but got {g.device}")
        if g.dtype is not o.dtype:
            g = g.to(o.dtype)
        out.append(g)
    return out


_ONES_LIKE = None         # the kernel of aten::ones_like, once looked up, and its resolved-kernel cache
_PLAIN_KS: dict = {}      # device type -> key sets of a call on a tensor of it that requires grad, default thread-local
                          # state: (at the autograd key, below it)


def _implicit_grad(o):
    """``ones_like(o, memory_format=contiguous_format)``, the gradient of a scalar output nobody gave. When that
    call would reach openreg's own ``ones_like`` kernel (no dispatch mode, autocast, library override), the ones
    are made here, on the CPU and on a device (from host ones, as a kernel's host result is taken there): the call
    costs more than the rest of a small backward's bookkeeping."""
    global _ONES_LIKE
    dt = o._dtype
    device = o._storage.device
    if not dt.is_narrow_float:
        keysets = _PLAIN_KS.get(device._type)
        if keysets is None:
            keysets = _plain_keysets(device._type)
        if keysets and (o._ks | _tls.include) & ~_tls.exclude == keysets[0]:
            if _ONES_LIKE is None:
                from ..operators.factories import _ones_like
                _ONES_LIKE = (_ones_like, A.ones_like._entry.cache)
            fn, cache = _ONES_LIKE
            hit = cache.get(keysets[1])
            if hit is not None and hit[0] is fn:
                arr = np.empty(tuple(o._size), dt.numpy)   # np.ones, without its two Python frames
                arr.fill(1)
                if not o._size and device._type == "cpu":   # a scalar loss: its geometry is known
                    return wrap_known_cpu(arr, dt, device, o._size, (), arr.nbytes)
                return wrap_array(arr, dt, device)
    return A.ones_like(o, memory_format=contiguous_format)


def _plain_keysets(device_type: str) -> tuple:
    """``_PLAIN_KS``'s entry of a device type: () where no such shortcut applies (meta tensors hold no data)."""
    from .._dispatch.keys import AFTER_AUTOGRAD_MASK
    from ..tensor import _KEYSETS
    plain = _KEYSETS.get(device_type) if device_type != "meta" else None
    if plain is None:
        keysets = ()
    else:
        default = _tls.__class__
        full = (with_autograd(plain) | default.include) & ~default.exclude
        keysets = (full, full & AFTER_AUTOGRAD_MASK)
    _PLAIN_KS[device_type] = keysets
    return keysets


def _check_roots(tensors: list) -> None:
    for i, t in enumerate(tensors):
        if not (getattr(t, "_rg", False) or t.requires_grad):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``).

    >>> import openreg
    >>> x = openreg.ones(2, requires_grad=True)
    >>> openreg.autograd.backward([(x * 3).sum()])
    >>> x.grad.tolist()
    [3.0, 3.0]
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_list(tensors)
    if inputs is not None:
        inputs = _as_list(inputs)
        if len(inputs) == 0:
            raise RuntimeError("inputs argument to backward() cannot be empty.")
    grads = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if grad_tensors is not None:
        grads = [g if g is None or hasattr(g, "_ks") else _scalar_grad(g, t) for g, t in zip(grads, tensors)]
    _check_roots(tensors)
    grads = _make_grads(tensors, grads)
    run_backward(tensors, grads, keep_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                 accumulate=True)


def _scalar_grad(value, like):
    from ..operators.factories import full
    return full(tuple(like.shape), value, dtype=like.dtype, device=like.device)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """Gradients of ``outputs`` with respect to ``inputs``, returned (no ``.grad`` is touched).

    >>> import openreg
    >>> x = openreg.tensor(3.0, requires_grad=True)
    >>> (dx,) = openreg.autograd.grad(x * x, x, create_graph=True)
    >>> (ddx,) = openreg.autograd.grad(dx, x)
    >>> dx.item(), ddx.item()
    (6.0, 2.0)
    """
    from .engine import run_backward
    single = hasattr(inputs, "_ks")
    outputs = _as_list(outputs)
    inputs_l = _as_list(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got "
                         "allow_unused=False.")
    grads = _as_list(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grads)} grad_outputs and "
                           f"{len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs_l:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    _check_roots(outputs)
    grads = _make_grads(outputs, grads)
    result = run_backward(outputs, grads, keep_graph=retain_graph, create_graph=create_graph, inputs=inputs_l,
                          accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs_l, result)):
        if g is None:
            if materialize_grads:
                from ..operators.factories import zeros
                g = zeros(tuple(t.shape), dtype=t.dtype, device=t.device)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        out.append(g)
    del single
    return tuple(out)


from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "forward_ad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]
