"""What the optimizers' host-array paths (``_adam_arrays.py``, ``_sgd_arrays.py``) share: when an update may run
straight on the NumPy arrays of its tensors, and the ``alpha`` factor of the ``add`` kernels.

An update runs on the arrays when the parameters are contiguous tensors of one dtype, float32 or float64, in host
memory (the CPU backend, or the emulated device whose memory is host memory), each with a gradient of its dtype,
size and device, and every state tensor it reads is one like its parameter; the hyper-parameters must be Python
numbers (a tensor ``lr`` goes the operator way). Otherwise the optimizer runs its operator calls.

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
from ..tensor import TensorBase

_HOST_DTYPES = (_dt.float32, _dt.float64)


def _like(t, p) -> bool:
    """``t`` is a tensor of the row-major host tensor ``p``'s dtype, size, device and strides."""
    return (isinstance(t, TensorBase) and t._dtype is p._dtype and t._size == p._size and t._stride == p._stride
            and t._storage.device is p._storage.device)     # devices are interned: identity is equality


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


def factor(params: list, alpha):
    """What the ``add`` kernels scale their second operand by for ``alpha``, for the arrays of ``params`` (one
    dtype: ``applies`` checked it): None for 1 (no scaling), else ``alpha`` as a scalar of that dtype."""
    return None if alpha == 1 else params[0]._dtype.numpy.type(alpha)
