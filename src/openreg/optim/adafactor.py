"""Adafactor (Shazeer & Stern): second moments kept factored for matrices (a row and a column mean of the squared
gradient per matrix, their outer product over the row mean's mean as the estimate), a decaying ``beta2`` of
``step ** beta2_decay``, a relative step size ``max(eps2, RMS(param)) * min(lr, 1 / sqrt(step))`` and update
clipping by ``d``. PyTorch's single-tensor update rule step for step (``torch.optim.Adafactor``).

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.ones(2, 3))
>>> opt = openreg.optim.Adafactor([p])
>>> p.grad = openreg.ones(2, 3); opt.step()
>>> sorted(opt.state[p]), round(p[0, 0].item(), 4)
(['col_var', 'row_var', 'step'], 0.99)
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ..type_info import finfo
from ._checks import grads_of, new_step, scalar, set_defaults
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor with factored second moments for tensors of two or more dimensions."""

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8, eps: tuple = (None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        set_defaults(self)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss if one is given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (eps1, eps2) = scalar(group["lr"]), group["eps"]
            decay, d, wd = group["beta2_decay"], group["d"], group["weight_decay"]
            for p, grad in grads_of("Adafactor", group):
                if p.dtype.is_complex:
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                if not state:
                    state["step"] = new_step()
                    if grad.dim() > 1:
                        state["row_var"] = grad.new_zeros(list(grad.shape[:-1]) + [1])
                        state["col_var"] = grad.new_zeros(list(grad.shape[:-2]) + [1, grad.shape[-1]])
                    else:
                        state["variance"] = grad.new_zeros(grad.shape)
                if group["maximize"]:
                    grad = -grad
                e1 = finfo(p.dtype).eps if eps1 is None else eps1
                state["step"] += 1
                step = state["step"].item()
                one_minus_beta2 = step ** decay
                rho = min(lr, 1 / step ** 0.5)
                alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho
                if wd != 0:
                    p.mul_(1 - lr * wd)
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.shape[-1]), one_minus_beta2)
                    col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.shape[-2]), one_minus_beta2)
                    estimate = row_var @ col_var
                    estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, one_minus_beta2)
                    estimate = variance.clone()
                update = estimate.clamp_(min=e1 * e1).rsqrt_().mul_(grad)
                denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
                p.add_(update, alpha=-alpha / denom)
        return loss
