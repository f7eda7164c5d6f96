"""RAdam (Liu et al.): Adam with a rectified adaptive learning rate, which falls back to momentum SGD while the
variance estimate is unreliable (the first steps). PyTorch's single-tensor update rule step for step, with L2 or
decoupled (``decoupled_weight_decay=True``) weight decay and ``maximize``.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.RAdam([p], lr=0.1)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 4)  # rho_t <= 5 on step 1: p -= lr * bias-corrected exp_avg
0.8
>>> sorted(opt.state[p])
['exp_avg', 'exp_avg_sq', 'step']
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._checks import check_betas_eps_wd, check_lr, grads_of, new_step, scalar, set_defaults
from ._pointwise import addcmul_, lerp_
from .adam import _check_flags
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Rectified Adam."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "differentiable": differentiable})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        set_defaults(self, (("decoupled_weight_decay", False),))

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = scalar(group["lr"]), group["betas"], group["eps"]
            wd, decoupled = group["weight_decay"], group["decoupled_weight_decay"]
            for p, grad in grads_of("RAdam", group):
                state = self.state[p]
                if not state:
                    state["step"] = new_step()
                    state["exp_avg"] = p.detach().new_zeros(p.shape)
                    state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                step = self._state_step(p).item()
                if group["maximize"]:
                    grad = -grad
                if wd != 0:
                    if decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        grad = grad.add(p, alpha=wd)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                lerp_(exp_avg, grad, 1 - beta1)
                addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                update = (exp_avg / bias_correction1).mul_(lr)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = exp_avg_sq.sqrt().add_(eps).reciprocal_().mul_(bias_correction2 ** 0.5)
                    update = update.mul_(adaptive).mul_(rect)
                p.sub_(update)
        return loss
