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
from ._host_arrays import applies, factor, grad_of


def update(params: list, states: list, *, lr: float, momentum: float, dampening: float, weight_decay: float,
           nesterov: bool, maximize: bool) -> bool:
    """One SGD step of ``params`` (whose ``states`` hold ``momentum_buffer``, made here from the gradient on the
    first step with momentum) on their arrays; False, with nothing written, when the arrays path does not apply."""
    if not applies(params, states, ("momentum_buffer",), lr, momentum, dampening, weight_decay):
        return False
    kind = params[0]._dtype.numpy.type            # one dtype: applies checked it
    grads = [grad_of(p, maximize, weight_decay, kind) for p in params]   # -grad, + param * weight_decay
    if momentum != 0:
        bufs, old_bufs, old_grads = [], [], []
        for p, g, state in zip(params, grads, states):
            buf = state.get("momentum_buffer")
            if buf is None:                        # grad.clone().detach()
                buf = state["momentum_buffer"] = wrap_array(g.copy(), p._dtype, p._storage.device)
            else:
                old_bufs.append(buf)
                old_grads.append(g)
            bufs.append(buf)
        f, keep = kind(momentum), factor(kind, 1 - dampening)
        for buf in old_bufs:                       # _foreach_mul_(bufs, momentum)
            b = buf._array()
            np.multiply(b, f, out=b)
        for buf, g in zip(old_bufs, old_grads):    # _foreach_add_(bufs, grads, alpha=1 - dampening)
            b = buf._array()
            np.add(b, g if keep is None else g * keep, out=b)
            buf._vc.value += 2
        bufs = [b._array() for b in bufs]
        if nesterov:                               # _foreach_add(grads, bufs, alpha=momentum)
            f = factor(kind, momentum)
            grads = [np.add(g, b if f is None else b * f) for g, b in zip(grads, bufs)]
        else:
            grads = bufs
    f = factor(kind, -lr)
    for p, g in zip(params, grads):                # _foreach_add_(params, grads, alpha=-lr)
        x = p._array()
        np.add(x, g if f is None else g * f, out=x)
        p._vc.value += 1
    return True
