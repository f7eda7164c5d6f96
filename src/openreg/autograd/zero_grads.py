"""Resetting parameters' gradients, shared by ``Module.zero_grad`` and ``Optimizer.zero_grad``.

>>> import openreg
>>> w = openreg.ones(2, requires_grad=True)
>>> (w * 3).sum().backward()
>>> zero_grads([w], set_to_none=False); w.grad.tolist()
[0.0, 0.0]
>>> zero_grads([w]); w.grad is None
True
"""
from __future__ import annotations

from collections.abc import Iterable


def zero_grads(params: Iterable, set_to_none: bool = True) -> None:
    """Set each parameter's ``.grad`` to None, or (``set_to_none=False``) detach it in place and fill it with zeros."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if g.grad_fn is not None:
            g.detach_()
        else:
            g.requires_grad_(False)
        g.zero_()
