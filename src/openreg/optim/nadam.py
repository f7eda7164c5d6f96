"""NAdam (Dozat): Adam with Nesterov momentum and a momentum schedule (``momentum_decay``); L2 or decoupled
(``decoupled_weight_decay=True``, NAdamW) weight decay and ``maximize``. PyTorch's single-tensor update rule step
for step; the running product of the momentum coefficients is the float32 ``mu_product`` state, as in PyTorch.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.NAdam([p], lr=0.1)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 4)  # Nesterov: the gradient and the momentum each take a share of lr
0.8944
>>> sorted(opt.state[p])
['exp_avg', 'exp_avg_sq', 'mu_product', 'step']
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._checks import check_betas_eps_wd, check_lr, grads_of, new_step, scalar, set_defaults
from ._pointwise import addcdiv_, addcmul_, lerp_
from .adam import _check_flags
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Nesterov-accelerated Adam."""

    def __init__(self, params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
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
            wd, decoupled, momentum_decay = group["weight_decay"], group["decoupled_weight_decay"], \
                group["momentum_decay"]
            for p, grad in grads_of("NAdam", group):
                state = self.state[p]
                if not state:
                    state["step"] = new_step()
                    state["mu_product"] = new_step(1.0)
                    state["exp_avg"] = p.detach().new_zeros(p.shape)
                    state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                step = self._state_step(p).item()
                if group["maximize"]:
                    grad = -grad
                bias_correction2 = 1 - beta2 ** step
                if wd != 0:
                    if decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        grad = grad.add(p, alpha=wd)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product = state["mu_product"].mul_(mu).item()
                mu_product_next = mu_product * mu_next
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                lerp_(exp_avg, grad, 1 - beta1)
                addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
                addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
                addcdiv_(p, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        return loss
