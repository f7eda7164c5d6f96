"""Adam's update run straight on host arrays: the arithmetic of ``Adam._update``'s operator calls, op for op in
the same dtype and order (so results are bitwise the same), without a dispatcher call per operation.

It applies as ``_host_arrays.applies`` says (contiguous host tensors of one dtype, float32 or float64,
Python-number hyper-parameters) and when the step counters are float32 CPU scalars; otherwise ``update`` returns
False having written nothing, and the optimizer runs its operator calls. Every tensor written gets its version
bumped, as the in-place operators would.

>>> import numpy as np, openreg
>>> from openreg.optim._adam_arrays import update
>>> p = openreg.ones(2); p.grad = openreg.ones(2)
>>> state = {"exp_avg": openreg.zeros(2), "exp_avg_sq": openreg.zeros(2), "step": openreg.zeros(())}
>>> update([p], [state], lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, amsgrad=False,
...        decoupled=False, maximize=False)
True
>>> [round(x, 4) for x in p.tolist()]
[0.9, 0.9]
"""
from __future__ import annotations

import numpy as np

from ._host_arrays import addcmul_, applies, grad_of, lerp_, next_step, steps_apply, temp


def update(params: list, states: list, *, lr: float, beta1: float, beta2: float, eps: float, weight_decay: float,
           amsgrad: bool, decoupled: bool, maximize: bool) -> bool:
    """One Adam/AdamW step of ``params`` (whose ``states`` hold ``exp_avg``/``exp_avg_sq``/``step``, made here
    when missing) on their arrays; False, with nothing written, when the arrays path does not apply."""
    keys = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if amsgrad else ("exp_avg", "exp_avg_sq")
    if not applies(params, states, keys, lr, beta1, beta2, eps, weight_decay) or not steps_apply(states):
        return False
    scalar = params[0]._dtype.numpy.type     # one dtype: applies checked it
    for p, state in zip(params, states):
        x = p._array()
        if "exp_avg" not in state:
            state["exp_avg"] = p.detach().new_zeros(p.shape)
            state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
            if amsgrad:
                state["max_exp_avg_sq"] = p.detach().new_zeros(p.shape)
        step = next_step(state)
        g = grad_of(p, maximize, 0 if decoupled else weight_decay, scalar)   # -grad, + p * weight_decay (L2)
        if weight_decay != 0 and decoupled:
            np.multiply(x, scalar(1 - lr * weight_decay), out=x)
        m_t, v_t = state["exp_avg"], state["exp_avg_sq"]
        m, v = m_t._array(), v_t._array()
        lerp_(scalar, m, g, 1 - beta1)
        np.multiply(v, scalar(beta2), out=v)    # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
        addcmul_(scalar, v, g, g, 1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if amsgrad:
            mx_t = state["max_exp_avg_sq"]
            mx = mx_t._array()
            np.maximum(mx, v, out=mx)
            mx_t._vc.value += 1
            v = mx
        denom = temp(np.true_divide(np.sqrt(v), scalar(bias_correction2_sqrt)))
        np.add(denom, scalar(eps), out=denom)
        upd = temp(np.multiply(m, scalar(-(lr / bias_correction1))))
        np.true_divide(upd, denom, out=upd)
        np.add(x, upd, out=x)
        for t in (p, m_t, v_t):
            t._vc.value += 1
    return True
