"""Adam (Kingma & Ba), with optional weight decay and AMSGrad, PyTorch's update rule.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.Adam([p], lr=0.1)
>>> opt.zero_grad(); (p * p).sum().backward(); opt.step()
>>> round(p.item(), 4)  # the first Adam step moves by lr
0.9
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer


class Adam(Optimizer):
    """Adaptive moment estimation."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize})

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if maximize:
                    g = -g
                if wd != 0:
                    g = g.add(p, alpha=wd)
                state = self._state(p)
                if not state:
                    from ..factories import zeros
                    state["step"] = 0
                    state["exp_avg"] = zeros(tuple(p.shape), dtype=p.dtype, device=p.device)
                    state["exp_avg_sq"] = zeros(tuple(p.shape), dtype=p.dtype, device=p.device)
                    if amsgrad:
                        state["max_exp_avg_sq"] = zeros(tuple(p.shape), dtype=p.dtype, device=p.device)
                state["step"] += 1
                step = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).add_(g * g, alpha=1 - b2)
                bc1 = 1 - b1 ** step
                bc2 = 1 - b2 ** step
                if amsgrad:
                    mx = state["max_exp_avg_sq"]
                    mx.copy_(mx.maximum(v))
                    denom = (mx / bc2).sqrt().add_(eps)
                else:
                    denom = (v / bc2).sqrt().add_(eps)
                p.add_(m / denom, alpha=-lr / bc1)
        return loss
