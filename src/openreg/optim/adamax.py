"""Adamax (Kingma & Ba): Adam with the infinity norm, ``exp_inf = max(beta2 * exp_inf, |grad| + eps)``; L2
weight decay and ``maximize``. PyTorch's single-tensor update rule step for step.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.Adamax([p], lr=0.1)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 4)  # the first step moves by lr
0.9
>>> sorted(opt.state[p])
['exp_avg', 'exp_inf', 'step']
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._checks import check_betas_eps_wd, check_lr, grads_of, new_step, scalar, set_defaults
from ._pointwise import addcdiv_, lerp_
from .adam import _check_flags
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adam with the infinity norm of past gradients."""

    def __init__(self, params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        set_defaults(self)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps, wd = scalar(group["lr"]), group["betas"], group["eps"], group["weight_decay"]
            for p, grad in grads_of("Adamax", group):
                state = self.state[p]
                if not state:
                    state["step"] = new_step()
                    state["exp_avg"] = p.detach().new_zeros(p.shape)
                    state["exp_inf"] = p.detach().new_zeros(p.shape)
                step = self._state_step(p).item()
                if group["maximize"]:
                    grad = -grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                lerp_(exp_avg, grad, 1 - beta1)
                exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))
                addcdiv_(p, exp_avg, exp_inf, -(lr / (1 - beta1 ** step)))
        return loss
