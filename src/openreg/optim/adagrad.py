"""Adagrad (Duchi et al.) with learning-rate decay, weight decay, an initial accumulator value and ``maximize``:
PyTorch's update rule step for step. The state is created when the optimizer is built, as in PyTorch.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.Adagrad([p], lr=0.5)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 4)  # 1 - 0.5 * 2 / sqrt(4)
0.5
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import _adagrad_arrays
from ._pointwise import addcdiv_, addcmul_
from .adam import _check_flags
from .optimizer import Optimizer


class Adagrad(Optimizer):
    """Per-element learning rates from the sum of squared gradients."""

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_flags(fused, foreach, differentiable)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "fused": fused})
        from ..dtypes import float32
        from ..operators.factories import full_like, zeros
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = zeros((), dtype=float32)
                state["sum"] = full_like(p.detach(), group["initial_accumulator_value"])

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, wd, maximize = (group["lr"], group["lr_decay"], group["eps"], group["weight_decay"],
                                               group["maximize"])
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if _adagrad_arrays.update(p, self.state[p], lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=wd,
                                          maximize=maximize):
                    continue    # the same arithmetic on host arrays (_adagrad_arrays.py)
                step = self._state_step(p).item()
                if maximize:
                    grad = -grad
                if wd != 0:
                    if grad.is_sparse:
                        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
                    grad = grad.add(p, alpha=wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                if grad.is_sparse:
                    _sparse_update(p, self.state[p]["sum"], grad, clr, eps)
                    continue
                state_sum = addcmul_(self.state[p]["sum"], grad, grad, 1)
                std = state_sum.sqrt().add_(eps)
                addcdiv_(p, grad, std, -clr)
        return loss


def _sparse_update(p, state_sum, grad, clr, eps) -> None:
    """PyTorch's Adagrad step for a sparse gradient: the sum and the parameter change only at its (coalesced)
    indices."""
    grad = grad.coalesce()       # the update is not linear: each index once
    values = grad._values()
    if values.numel() == 0:
        return
    where = tuple(grad._indices())
    state_sum.index_put_(where, values.pow(2), accumulate=True)
    std = state_sum[where].sqrt_().add_(eps)
    p.index_put_(where, (values / std) * -clr, accumulate=True)
