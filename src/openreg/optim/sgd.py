"""Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and ``maximize`` (PyTorch's update
rule), run as multi-tensor ``_foreach`` ops per device and dtype.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.SGD([p], lr=0.1, momentum=0.9)
>>> for _ in range(2):
...     opt.zero_grad(); (p * 2).sum().backward(); opt.step()
>>> round(p.item(), 4)  # 1 - 0.2 - (0.9 * 2 + 2) * 0.1
0.42
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..autograd.grad_mode import no_grad
from . import _sgd_arrays
from .adam import _check_flags
from .optimizer import Optimizer, required


class SGD(Optimizer):
    """``p -= lr * (momentum buffer or gradient)``."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_flags(fused, foreach, differentiable)
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                                  "foreach": foreach, "differentiable": differentiable, "fused": fused})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("nesterov", False), ("maximize", False), ("foreach", None),
                                 ("differentiable", False), ("fused", False)):
                group.setdefault(key, default)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        return self._step_by_device(closure)

    def _update(self, group: dict, params: list) -> None:
        lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
        wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        if any(p.grad.is_sparse for p in params):
            for p in params:
                self._update_one(p, lr, mom, damp, wd, nesterov, maximize)
            return
        # without momentum SGD keeps no state (none is made for the parameters, as in PyTorch)
        states = [self.state[p] for p in params] if mom != 0 else [{}] * len(params)
        if _sgd_arrays.update(params, states, lr=lr, momentum=mom, dampening=damp, weight_decay=wd,
                              nesterov=nesterov, maximize=maximize):
            return    # the same arithmetic on host arrays (_sgd_arrays.py)
        grads = [p.grad for p in params]
        if maximize:
            grads = [-g for g in grads]
        if wd != 0:
            grads = [g.add(p, alpha=wd) for g, p in zip(grads, params)]
        if mom != 0:
            bufs, old_bufs, old_grads = [], [], []
            for p, g in zip(params, grads):
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = g.clone().detach()
                else:
                    old_bufs.append(buf)
                    old_grads.append(g)
                bufs.append(buf)
            if old_bufs:
                A._foreach_mul___Scalar(old_bufs, mom)
                A._foreach_add___List(old_bufs, old_grads, alpha=1 - damp)
            grads = A._foreach_add__List(grads, bufs, alpha=mom) if nesterov else bufs
        A._foreach_add___List(params, grads, alpha=-lr)

    def _update_one(self, p, lr, mom, damp, wd, nesterov, maximize) -> None:
        """PyTorch's single-tensor update, which sparse gradients take (a sparse momentum buffer included)."""
        grad = -p.grad if maximize else p.grad
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        if mom != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.clone().detach()
            else:
                buf.mul_(mom).add_(grad, alpha=1 - damp)
            grad = grad.add(buf, alpha=mom) if nesterov else buf
        p.add_(grad, alpha=-lr)
