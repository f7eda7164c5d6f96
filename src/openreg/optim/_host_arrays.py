"""What the optimizers' host-array paths (``_sgd_arrays``, ``_adam_arrays``, ``_rmsprop_arrays``,
``_adagrad_arrays``) share: when an update may run straight on the NumPy arrays of its tensors, and the pieces of
arithmetic several optimizers' operator calls have in common, each written as those operators compute it.

An update runs on the arrays when the parameters are contiguous tensors of one dtype, float32 or float64, in host
memory (the CPU backend, or the emulated device whose memory is host memory), each with a dense gradient of its
dtype, size and device, and every state tensor it reads is one like its parameter; the hyper-parameters must be
Python numbers (a tensor ``lr`` goes the operator way). Otherwise the optimizer runs its operator calls.

>>> import openreg
>>> from openreg.optim._host_arrays import applies
>>> p = openreg.ones(2); p.grad = openreg.ones(2)
>>> applies([p], [{}], ("momentum_buffer",), 0.1), applies([p], [{}], (), openreg.tensor(0.1))
(True, False)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import _contiguous_strides
from .._dispatch.keys import BACKEND_MASK
from ..tensor import TensorBase

_HOST_DTYPES = (_dt.float32, _dt.float64)


def _like(t, p) -> bool:
    """``t`` is a dense tensor of the row-major host tensor ``p``'s dtype, size, device and strides."""
    return (isinstance(t, TensorBase) and t._dtype is p._dtype and t._size == p._size and t._stride == p._stride
            and t._storage.device is p._storage.device       # devices are interned: identity is equality
            and not (t._ks ^ p._ks) & BACKEND_MASK)          # not sparse where p is dense


def applies(params: list, states: list, keys: tuple, *numbers) -> bool:
    """Whether an update of ``params`` may run on host arrays: see the module's docstring (``keys``: the state
    entries it reads when present; ``numbers``: its hyper-parameters)."""
    for n in numbers:
        if n.__class__ is not float and n.__class__ is not int:
            return False
    dtype = params[0]._dtype if params else None
    if dtype not in _HOST_DTYPES:
        return False
    for p, state in zip(params, states):
        # row-major: the strides a contiguous tensor of its size has (a size-1 dimension's odd stride declines)
        if not isinstance(p, TensorBase) or p._dtype is not dtype or p._storage._backend.array_module \
                is not np or p._stride != _contiguous_strides(p._size) or not _like(p._grad, p):
            return False
        for key in keys:
            if key in state and not _like(state[key], p):
                return False
    return True


def steps_apply(states: list) -> bool:
    """Every step counter present is a float32 CPU scalar (``next_step`` counts in it as ``add_(1)`` does)."""
    for state in states:
        step = state.get("step")
        if step is not None and not (isinstance(step, TensorBase) and step._dtype is _dt.float32 and not step._size
                                     and step._storage.device._type == "cpu"):
            return False
    return True


def next_step(state: dict) -> float:
    """The parameter's step counter incremented in place (a float32 CPU scalar, created at 0 as PyTorch's)."""
    step = state.get("step")
    if step is None:
        from ..operators.factories import zeros
        step = state["step"] = zeros((), dtype=_dt.float32)
    arr = step._array()
    arr += np.float32(1)
    step._vc.value += 1
    return float(arr)


def temp(x):
    """``x`` as an array: a NumPy ufunc of 0-d arrays (a scalar parameter's) returns a scalar, which a later
    ``out=`` cannot take and ``.copy()`` does not make an array."""
    return x if x.__class__ is np.ndarray else np.asarray(x)


def factor(kind, alpha):
    """What the ``add`` kernels scale their second operand by for ``alpha``, for arrays of the scalar type
    ``kind`` (``np.float32``/``np.float64``): None for 1 (no scaling), else ``alpha`` as a ``kind`` scalar."""
    return None if alpha == 1 else kind(alpha)


def grad_of(p, maximize: bool, weight_decay, kind):
    """``p``'s gradient as the optimizers prepare it: ``-grad`` with ``maximize``, then
    ``grad.add(p, alpha=weight_decay)`` (new arrays; the gradient's own array when neither applies)."""
    g = p._grad._array()
    if maximize:
        g = np.negative(g)
    if weight_decay != 0:
        x, f = p._array(), factor(kind, weight_decay)
        g = np.add(g, x if f is None else x * f)
    return temp(g)


def lerp_(kind, start, end, weight):
    """``_pointwise.lerp_(start, end, weight)`` on arrays: ``start += (end - start) * weight`` for weights below
    0.5, else ``start = end - (end - start) * (1 - weight)``."""
    d = temp(np.subtract(end, start))
    if weight < 0.5:
        np.multiply(d, kind(weight), out=d)
        np.add(start, d, out=start)
    else:
        np.multiply(d, kind(1 - weight), out=d)
        np.subtract(end, d, out=start)
    return start


def _addc_(op, kind, t, a, b, value):
    """``t += op(a * value, b)`` (``op(a, b)`` for value 1) in place, as ``_pointwise.addcmul_``/``addcdiv_``
    compute it with ``op`` ``np.multiply``/``np.true_divide``."""
    if value == 1:
        r = op(a, b)
    else:
        r = temp(np.multiply(a, kind(value)))
        op(r, b, out=r)
    np.add(t, r, out=t)
    return t


def addcmul_(kind, t, a, b, value):
    """``_pointwise.addcmul_(t, a, b, value)`` on arrays: ``t += (a * value) * b``."""
    return _addc_(np.multiply, kind, t, a, b, value)


def addcdiv_(kind, t, a, b, value):
    """``_pointwise.addcdiv_(t, a, b, value)`` on arrays: ``t += (a * value) / b``."""
    return _addc_(np.true_divide, kind, t, a, b, value)
