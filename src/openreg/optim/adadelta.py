"""Adadelta (Zeiler) with ``rho`` smoothing, weight decay and ``maximize``: PyTorch's update rule step for step.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.Adadelta([p], lr=1.0, rho=0.9, eps=1e-6)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 6)  # 1 - sqrt(1e-6) / sqrt(0.1 * 4 + 1e-6) * 2
0.996838
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._pointwise import addcmul_
from .adam import _check_flags
from .optimizer import Optimizer


class Adadelta(Optimizer):
    """Steps sized by the ratio of running RMS of updates and of gradients."""

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, rho, eps, wd, maximize = group["lr"], group["rho"], group["eps"], group["weight_decay"], \
                group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if grad.is_sparse:
                    raise RuntimeError("Adadelta does not support sparse gradients")
                state = self.state[p]
                if not state:
                    state["square_avg"] = p.detach().new_zeros(p.shape)
                    state["acc_delta"] = p.detach().new_zeros(p.shape)
                self._state_step(p)
                if maximize:
                    grad = -grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
