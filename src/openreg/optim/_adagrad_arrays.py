"""Adagrad's update run straight on host arrays: the arithmetic of ``Adagrad.step``'s operator calls for one
parameter, op for op in the same dtype and order (so results are bitwise the same), without a dispatcher call per
operation.

It applies as ``_host_arrays.applies`` says (a contiguous float32/float64 host tensor, Python-number
hyper-parameters) when the state holds its ``sum`` and a float32 CPU step counter; otherwise ``update`` returns
False having written nothing, and the optimizer runs its operator calls. Every tensor written gets its version
bumped.

>>> import openreg
>>> from openreg.optim._adagrad_arrays import update
>>> p = openreg.ones(1); p.grad = openreg.full((1,), 2.0)
>>> update(p, {"sum": openreg.zeros(1)}, lr=0.5, lr_decay=0, eps=1e-10, weight_decay=0, maximize=False)
True
>>> round(p.item(), 4)  # 1 - 0.5 * 2 / sqrt(4)
0.5
"""
from __future__ import annotations

import numpy as np

from ._host_arrays import addcdiv_, addcmul_, applies, grad_of, next_step, steps_apply, temp


def update(p, state: dict, *, lr: float, lr_decay: float, eps: float, weight_decay: float, maximize: bool) -> bool:
    """One Adagrad step of ``p`` on its arrays; False, with nothing written, when the arrays path does not apply
    (or the state has no ``sum``: the operator path reports it)."""
    if "sum" not in state or not applies([p], [state], ("sum",), lr, lr_decay, eps, weight_decay) \
            or not steps_apply([state]):
        return False
    kind = p._dtype.numpy.type
    step = next_step(state)
    g = grad_of(p, maximize, weight_decay, kind)
    clr = lr / (1 + (step - 1) * lr_decay)
    sum_t = state["sum"]
    s = addcmul_(kind, sum_t._array(), g, g, 1)             # state_sum.addcmul_(g, g, 1)
    std = temp(np.sqrt(s))                                  # .sqrt().add_(eps)
    np.add(std, kind(eps), out=std)
    x = p._array()
    addcdiv_(kind, x, g, std, -clr)                         # p.addcdiv_(g, std, -clr)
    for t in (p, sum_t):
        t._vc.value += 1
    return True
