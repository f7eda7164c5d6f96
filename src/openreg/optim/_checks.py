"""Argument checks shared by the optimizers added after Adam (PyTorch's wording).

>>> from openreg.optim._checks import check_lr
>>> check_lr(0.1)
>>> check_lr(-1.0)
Traceback (most recent call last):
...
ValueError: Invalid learning rate: -1.0
"""
from __future__ import annotations

from typing import Any

from ..tensor import Tensor


def check_lr(lr: Any) -> None:
    """A learning rate is a non-negative number or a one-element tensor."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas_eps_wd(betas: tuple, eps: float, weight_decay: float) -> None:
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def scalar(value: Any) -> Any:
    """A tensor learning rate as a Python number (PyTorch's ``_to_scalar``)."""
    return value.item() if isinstance(value, Tensor) else value


def grads_of(optimizer_name: str, group: dict) -> list:
    """``(param, grad)`` of the group's parameters that have a gradient; sparse gradients are refused."""
    out = []
    for p in group["params"]:
        g = p.grad
        if g is None:
            continue
        if getattr(g, "is_sparse", False):
            raise RuntimeError(f"{optimizer_name} does not support sparse gradients")
        out.append((p, g))
    return out


# The implementation flags every optimizer after Adam takes, with their defaults.
FLAG_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))


def set_defaults(optimizer: Any, extra: tuple = ()) -> None:
    """Fill options missing from groups loaded from an older state dict: ``FLAG_DEFAULTS`` and ``extra``
    (``(key, default)`` pairs of the optimizer's own)."""
    for group in optimizer.param_groups:
        for key, default in FLAG_DEFAULTS + extra:
            group.setdefault(key, default)


def new_step(value: float = 0.0) -> Tensor:
    """A float32 CPU scalar tensor (the ``step`` counter, NAdam's ``mu_product``), as PyTorch's state holds."""
    from ..dtypes import float32
    from ..operators.factories import full
    return full((), value, dtype=float32)
