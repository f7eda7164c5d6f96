"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay (PyTorch's update rule).

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.SGD([p], lr=0.1, momentum=0.9)
>>> for _ in range(2):
...     opt.zero_grad(); (p * 2).sum().backward(); opt.step()
>>> round(p.item(), 4)  # 1 - 0.2 - (0.9 * 2 + 2) * 0.1
0.42
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, required


class SGD(Optimizer):
    """``p -= lr * (momentum buffer or gradient)``."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize})

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if maximize:
                    g = -g
                if wd != 0:
                    g = g.add(p, alpha=wd)
                if mom != 0:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = g.clone()
                    else:
                        buf.mul_(mom).add_(g, alpha=1 - damp)
                    g = g.add(buf, alpha=mom) if nesterov else buf
                p.add_(g, alpha=-lr)
        return loss
