"""Adam (Kingma & Ba) with L2 weight decay, AMSGrad and ``maximize``; ``decoupled_weight_decay=True`` is AdamW.
PyTorch's update rule step for step.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.Adam([p], lr=0.1)
>>> opt.zero_grad(); (p * p).sum().backward(); opt.step()
>>> round(p.item(), 4)  # the first Adam step moves by lr
0.9
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._pointwise import addcdiv_, addcmul_, lerp_
from .optimizer import Optimizer


def _check_adam_args(lr: float, betas: tuple, eps: float, weight_decay: float) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _check_flags(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    """PyTorch's checks of the implementation flags. ``foreach``, ``fused`` and ``capturable`` choose how PyTorch
    computes the same update; openreg computes it one way for all of them. Differentiating through ``step`` is not
    available."""
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if differentiable:
        raise NotImplementedError("differentiable=True (autograd through optimizer.step) is not supported by openreg "
                                  "yet")


class Adam(Optimizer):
    """Adaptive moment estimation."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_flags(fused, foreach, differentiable)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable, "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                                 ("differentiable", False), ("fused", None), ("decoupled_weight_decay", False)):
                group.setdefault(key, default)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
            decoupled = group["decoupled_weight_decay"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if maximize:
                    grad = -grad
                state = self.state[p]
                if not state:
                    state["exp_avg"] = p.detach().new_zeros(p.shape)
                    state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                    if amsgrad:
                        state["max_exp_avg_sq"] = p.detach().new_zeros(p.shape)
                step = self._state_step(p).item()
                if weight_decay != 0:
                    if decoupled:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                lerp_(exp_avg, grad, 1 - beta1)
                addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                if amsgrad:
                    max_sq = state["max_exp_avg_sq"]
                    max_sq.copy_(max_sq.maximum(exp_avg_sq))
                    denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                addcdiv_(p, exp_avg, denom, -(lr / bias_correction1))
        return loss
