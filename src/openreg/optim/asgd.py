"""ASGD (Polyak & Juditsky averaged SGD, Bottou's schedule): SGD with a decaying step ``eta``, a decay term
``lambd`` and the running average ``ax`` of the iterates after step ``t0``. PyTorch's single-tensor update rule
step for step; ``step``, ``eta`` and ``mu`` are float32 scalar tensors on the parameter's device, as in PyTorch.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.ASGD([p], lr=0.1, lambd=0.0)
>>> p.grad = openreg.tensor([2.0]); opt.step()
>>> round(p.item(), 4), sorted(opt.state[p])
(0.8, ['ax', 'eta', 'mu', 'step'])
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ._checks import check_lr, grads_of, scalar, set_defaults
from .adam import _check_flags
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged stochastic gradient descent."""

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags(None, foreach, differentiable)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        set_defaults(self)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        from ..dtypes import float32
        from ..operators.factories import full
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0, wd = (scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"],
                                        group["weight_decay"])
            for p, grad in grads_of("ASGD", group):
                state = self.state[p]
                if not state:
                    state["step"] = full((), 0.0, dtype=float32, device=p.device)
                    state["eta"] = full((), lr, dtype=float32, device=p.device)
                    state["mu"] = full((), 1.0, dtype=float32, device=p.device)
                    state["ax"] = p.detach().new_zeros(p.shape)
                if group["maximize"]:
                    grad = -grad
                step = state["step"].add_(1).item()
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                eta = state["eta"].item()
                p.mul_(1 - lambd * eta)
                p.add_(grad, alpha=-eta)
                ax, mu = state["ax"], state["mu"]
                if mu.item() != 1:
                    ax.add_((p - ax).mul_(mu))
                else:
                    ax.copy_(p)
                state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
                mu.fill_(1 / max(1, step - t0))
        return loss
