"""RMSprop (Hinton) with ``alpha`` smoothing, ``centered`` variance, ``momentum``, weight decay and ``maximize``:
PyTorch's update rule step for step.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.RMSprop([p], lr=0.01, alpha=0.9)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 4)  # 1 - 0.01 * 2 / sqrt(0.1 * 4)
0.9684
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import _rmsprop_arrays
from ._pointwise import addcdiv_, addcmul_, lerp_
from .adam import _check_flags
from .optimizer import Optimizer


class RMSprop(Optimizer):
    """Divide the gradient by a running root mean square of recent gradients."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                                  "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable})

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if grad.is_sparse:
                    raise RuntimeError("RMSprop does not support sparse gradients")
                state = self.state[p]
                if not state:
                    state["square_avg"] = p.detach().new_zeros(p.shape)
                    if momentum > 0:
                        state["momentum_buffer"] = p.detach().new_zeros(p.shape)
                    if centered:
                        state["grad_avg"] = p.detach().new_zeros(p.shape)
                if _rmsprop_arrays.update(p, state, lr=lr, alpha=alpha, eps=eps, weight_decay=wd, momentum=momentum,
                                          centered=centered, maximize=maximize):
                    continue    # the same arithmetic on host arrays (_rmsprop_arrays.py)
                self._state_step(p)
                if maximize:
                    grad = -grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                square_avg = state["square_avg"]
                addcmul_(square_avg.mul_(alpha), grad, grad, 1 - alpha)
                if centered:
                    grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
                    avg = addcmul_(square_avg.clone(), grad_avg, grad_avg, -1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = addcdiv_(state["momentum_buffer"].mul_(momentum), grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    addcdiv_(p, grad, avg, -lr)
        return loss
