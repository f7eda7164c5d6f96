"""SGD's update run straight on host arrays: the arithmetic of ``SGD._update``'s operator calls, op for op in the
same dtype and order (so results are bitwise the same), without a dispatcher call per operation.

It applies as ``_host_arrays.applies`` says (contiguous host tensors of one dtype, float32 or float64,
Python-number hyper-parameters); otherwise ``update`` returns False having written nothing, and the optimizer
runs its operator calls. Every tensor written gets its version bumped once per in-place operator call it stands
for.

>>> import openreg
>>> from openreg.optim._sgd_arrays import update
>>> p = openreg.ones(2); p.grad = openreg.ones(2)
>>> state = {}
>>> update([p], [state], lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False)
True
>>> [round(x, 4) for x in p.tolist()], state["momentum_buffer"].tolist()
([0.9, 0.9], [1.0, 1.0])
"""
from __future__ import annotations

import numpy as np

from .._array_bridge import wrap_array
from ._host_arrays import applies, factor, grad_of, temp


def update(params: list, states: list, *, lr: float, momentum: float, dampening: float, weight_decay: float,
           nesterov: bool, maximize: bool) -> bool:
    """One SGD step of ``params`` (whose ``states`` hold ``momentum_buffer``, made here from the gradient on the
    first step with momentum) on their arrays; False, with nothing written, when the arrays path does not apply."""
    if not applies(params, states, ("momentum_buffer",), lr, momentum, dampening, weight_decay):
        return False
    kind = params[0]._dtype.numpy.type            # one dtype: applies checked it
    # one pass per parameter: each parameter's arithmetic is in the operator calls' order, and no parameter's
    # update reads another's arrays, so the bits are those of the op-by-op passes over all parameters
    f_mom, keep, f_lr = kind(momentum), factor(kind, 1 - dampening), factor(kind, -lr)
    f_nest = factor(kind, momentum) if nesterov else None
    plain = not maximize and weight_decay == 0
    for p, state in zip(params, states):
        g = p._grad._array() if plain else grad_of(p, maximize, weight_decay, kind)   # -grad, + p * weight_decay
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:                        # grad.clone().detach()
                b = g.copy()
                state["momentum_buffer"] = wrap_array(b, p._dtype, p._storage.device)
            else:
                b = buf._array()
                np.multiply(b, f_mom, out=b)       # _foreach_mul_(bufs, momentum)
                np.add(b, g if keep is None else g * keep, out=b)   # _foreach_add_(bufs, grads, alpha=1 - damp.)
                buf._vc.value += 2
            # _foreach_add(grads, bufs, alpha=momentum) with nesterov, else the buffers
            g = temp(np.add(g, b if f_nest is None else b * f_nest)) if nesterov else b
        x = p._array()
        np.add(x, g if f_lr is None else g * f_lr, out=x)   # _foreach_add_(params, grads, alpha=-lr)
        p._vc.value += 1
    return True
