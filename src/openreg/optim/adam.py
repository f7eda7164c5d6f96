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

from .._dispatch.ops import A
from ..autograd.grad_mode import no_grad
from . import _adam_arrays
from ._checks import check_betas_eps_wd, check_lr
from ._pointwise import lerp_
from .optimizer import Optimizer


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
        check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
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
        return self._step_by_device(closure)

    def _update(self, group: dict, params: list) -> None:
        """PyTorch's single-tensor Adam arithmetic, with the steps that use one scalar for the whole group run as
        multi-tensor ``_foreach`` ops (the same arithmetic, fewer calls)."""
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad, decoupled = group["weight_decay"], group["amsgrad"], group["decoupled_weight_decay"]
        if any(p._grad.is_sparse for p in params):
            raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")
        if _adam_arrays.update(params, [self.state[p] for p in params], lr=lr, beta1=beta1, beta2=beta2, eps=eps,
                               weight_decay=weight_decay, amsgrad=amsgrad, decoupled=decoupled,
                               maximize=group["maximize"]):
            return    # the same arithmetic on host arrays (_adam_arrays.py)
        grads = [-p.grad for p in params] if group["maximize"] else [p.grad for p in params]
        states = []
        for p in params:
            state = self.state[p]
            if not state:
                state["exp_avg"] = p.detach().new_zeros(p.shape)
                state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                if amsgrad:
                    state["max_exp_avg_sq"] = p.detach().new_zeros(p.shape)
            states.append(state)
        steps = [self._state_step(p).item() for p in params]
        if weight_decay != 0:
            if decoupled:
                A._foreach_mul___Scalar(params, 1 - lr * weight_decay)
            else:
                grads = [g.add(p, alpha=weight_decay) for g, p in zip(grads, params)]
        exp_avgs = [s["exp_avg"] for s in states]
        exp_avg_sqs = [s["exp_avg_sq"] for s in states]
        if 1 - beta1 < 0.5:  # lerp_(exp_avg, grad, 1 - beta1), from the start as PyTorch for small weights
            diffs = [g - m for g, m in zip(grads, exp_avgs)]
            A._foreach_mul___Scalar(diffs, 1 - beta1)
            A._foreach_add___List(exp_avgs, diffs)
        else:
            for m, g in zip(exp_avgs, grads):
                lerp_(m, g, 1 - beta1)
        A._foreach_mul___Scalar(exp_avg_sqs, beta2)  # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        A._foreach_add___List(exp_avg_sqs, [(g * (1 - beta2)).mul_(g) for g in grads])
        updates = []
        for m, v, state, step in zip(exp_avgs, exp_avg_sqs, states, steps):
            bias_correction1 = 1 - beta1 ** step
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            if amsgrad:
                v = state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(v))
            denom = (v.sqrt() / bias_correction2_sqrt).add_(eps)
            updates.append((m * -(lr / bias_correction1)).div_(denom))  # addcdiv_(p, m, denom, -step_size)
        A._foreach_add___List(params, updates)
