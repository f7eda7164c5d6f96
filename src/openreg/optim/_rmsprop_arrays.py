"""RMSprop's update run straight on host arrays: the arithmetic of ``RMSprop.step``'s operator calls for one
parameter, op for op in the same dtype and order (so results are bitwise the same), without a dispatcher call per
operation.

It applies as ``_host_arrays.applies`` says (a contiguous float32/float64 host tensor, Python-number
hyper-parameters) and when the step counter is a float32 CPU scalar; otherwise ``update`` returns False having
written nothing, and the optimizer runs its operator calls. Every tensor written gets its version bumped once per
in-place operator call it stands for.

>>> import openreg
>>> from openreg.optim._rmsprop_arrays import update
>>> p = openreg.ones(1); p.grad = openreg.full((1,), 2.0)
>>> update(p, {"square_avg": openreg.zeros(1)}, lr=0.01, alpha=0.9, eps=1e-8, weight_decay=0, momentum=0, centered=False, maximize=False)
True
>>> round(p.item(), 4)  # 1 - 0.01 * 2 / sqrt(0.1 * 4)
0.9684
"""
from __future__ import annotations

import numpy as np

from ._host_arrays import addcdiv_, addcmul_, applies, factor, grad_of, lerp_, next_step, steps_apply, temp


def update(p, state: dict, *, lr: float, alpha: float, eps: float, weight_decay: float, momentum: float,
           centered: bool, maximize: bool) -> bool:
    """One RMSprop step of ``p`` on its arrays (its ``state`` holding the buffers ``RMSprop.step`` makes on the
    first step); False, with nothing written, when the arrays path does not apply."""
    needs = ("square_avg",) + (("momentum_buffer",) if momentum > 0 else ()) + (("grad_avg",) if centered else ())
    if not all(k in state for k in needs) or not steps_apply([state]) \
            or not applies([p], [state], needs, lr, alpha, eps, weight_decay, momentum):
        return False      # (a state without a buffer its options now need: the operator path reports it)
    kind = p._dtype.numpy.type
    next_step(state)
    g = grad_of(p, maximize, weight_decay, kind)
    sq_t = state["square_avg"]
    sq = sq_t._array()
    np.multiply(sq, kind(alpha), out=sq)                    # square_avg.mul_(alpha).addcmul_(g, g, 1 - alpha)
    addcmul_(kind, sq, g, g, 1 - alpha)
    sq_t._vc.value += 2
    if centered:
        ga_t = state["grad_avg"]
        ga = lerp_(kind, ga_t._array(), g, 1 - alpha)
        ga_t._vc.value += 1
        avg = addcmul_(kind, sq.copy(), ga, ga, -1)         # square_avg.clone().addcmul_(ga, ga, -1).sqrt_()
        np.sqrt(avg, out=avg)
    else:
        avg = temp(np.sqrt(sq))
    np.add(avg, kind(eps), out=avg)                         # .add_(eps)
    x = p._array()
    if momentum > 0:
        buf_t = state["momentum_buffer"]
        buf = buf_t._array()
        np.multiply(buf, kind(momentum), out=buf)           # buf.mul_(momentum).addcdiv_(g, avg)
        addcdiv_(kind, buf, g, avg, 1)
        buf_t._vc.value += 2
        f = factor(kind, -lr)                              # p.add_(buf, alpha=-lr)
        np.add(x, buf if f is None else buf * f, out=x)
    else:
        addcdiv_(kind, x, g, avg, -lr)
    p._vc.value += 1
    return True
