"""Rprop (Riedmiller & Braun): per-element step sizes that grow by ``etas[1]`` while the gradient keeps its sign
and shrink by ``etas[0]`` when it flips (that step is skipped), clamped to ``step_sizes``; only the gradient's
sign is used. PyTorch's single-tensor update rule step for step.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0, 1.0]))
>>> opt = openreg.optim.Rprop([p], lr=0.1)
>>> p.grad = openreg.tensor([2.0, -3.0]); opt.step()
>>> [round(v, 4) for v in p.tolist()]
[0.9, 1.1]
>>> sorted(opt.state[p])
['prev', 'step', 'step_size']
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._checks import check_lr, grads_of, new_step, scalar, set_defaults
from ._pointwise import addcmul_
from .adam import _check_flags
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation."""

    def __init__(self, params, lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "capturable": capturable})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        set_defaults(self)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        from ..operators.factories import full_like
        loss = self._run_closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p, grad in grads_of("Rprop", group):
                state = self.state[p]
                if not state:
                    state["step"] = new_step()
                    state["prev"] = p.detach().new_zeros(p.shape)
                    state["step_size"] = full_like(grad, scalar(group["lr"]))
                state["step"].add_(1)
                if group["maximize"]:
                    grad = -grad
                prev, step_size = state["prev"], state["step_size"]
                sign = grad.mul(prev).sign()
                factor = sign.new_ones(sign.shape)
                factor = factor.masked_fill(sign > 0, etaplus).masked_fill(sign < 0, etaminus)
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                grad = grad.masked_fill(sign < 0, 0)
                addcmul_(p, grad.sign(), step_size, -1)
                prev.copy_(grad)
        return loss
