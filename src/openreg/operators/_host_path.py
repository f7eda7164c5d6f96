"""The backward formulas' shortcut past the dispatcher: when an operator call would be exactly one NumPy
computation on plain CPU float32/float64 tensors with nothing else to do, a formula may compute it on the arrays
and wrap the result. Nothing else to do means: grad mode off (a backward pass without ``create_graph``), the
thread's default dispatch state (no autocast, no modes), ``Tensor``/``Parameter`` instances without forward-mode
tangents or quantization, and the operator's own CPU kernel (none registered over it). The formula must then
make the same NumPy calls as the kernel, so the bits are those of the dispatched call.

>>> import openreg
>>> from openreg._dispatch.ops import A
>>> x = openreg.ones(2, 3)
>>> plain_cpu_arrays(A.sum__dim_IntList, x) is None          # grad mode is on outside a backward pass
True
>>> with openreg.no_grad():
...     plain_cpu_arrays(A.sum__dim_IntList, x)[0].shape
(2, 3)
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch import tls as _tls
from .._dispatch.keys import AUTOCAST_MASK as _AUTOCAST_MASK
from .._dispatch.keys import DispatchKey
from ..autograd import grad_mode as _grad_mode

_DEFAULT_INCLUDE = _tls.state.include
_CPU_KEY = DispatchKey.CPU
_HOST_DTYPES = (_dt.float32, _dt.float64)
_PLAIN = None   # Tensor and Parameter (bound at first use: this module loads while they are being built)


def plain_cpu_arrays(overload, *tensors):
    """The arrays of ``tensors`` when a call of ``overload`` on them needs nothing but its CPU kernel's
    computation (see the module docstring), else None."""
    global _PLAIN
    if _grad_mode.state.enabled:
        return None
    state = _tls.state
    if state.include != _DEFAULT_INCLUDE or state.exclude != _AUTOCAST_MASK:
        return None
    if _PLAIN is None:
        _PLAIN = _plain_classes()
    d = tensors[0]._dtype
    if d not in _HOST_DTYPES:
        return None
    arrays = []
    for t in tensors:
        if t._dtype is not d or t.__class__ not in _PLAIN or t._storage.device._type != "cpu" \
                or t._qparams is not None:
            return None
        m = t._ameta
        if m is not None and m.fw_grads:
            return None
        x = t._arr      # TensorBase._array's cached view, read in place
        arrays.append(x if x is not None and t._arr_src is t._storage._data else t._array())
    if len(overload._entry.kernels[_CPU_KEY]) != 1:
        return None
    return tuple(arrays)


def _plain_classes() -> frozenset:
    from ..nn.parameter import Parameter
    from ..tensor import Tensor
    return frozenset((Tensor, Parameter))
