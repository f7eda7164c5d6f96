"""AdamW (Loshchilov & Hutter): Adam whose weight decay shrinks the parameters directly
(``p *= 1 - lr * weight_decay``) instead of entering the gradient; default ``weight_decay=1e-2``.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.tensor([1.0]))
>>> opt = openreg.optim.AdamW([p], lr=0.1, weight_decay=0.5)
>>> p.grad = openreg.tensor([0.0]); opt.step()
>>> round(p.item(), 4)  # decay only: 1 * (1 - 0.1 * 0.5)
0.95
"""
from __future__ import annotations

from .adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
