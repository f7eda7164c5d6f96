"""``F.relu`` (not in place) of a row-major host tensor on its array: ``aten::relu``'s computation
(``operators/unary._relu``: the same NumPy calls, so the same bits) with its ``ReluBackward0`` node recorded
directly (``_direct_record``), instead of a dispatcher call, when that call would do nothing else.

>>> import openreg
>>> from openreg.nn._relu_arrays import relu_host
>>> y = relu_host(openreg.tensor([[-1.0, 2.0]], requires_grad=True))
>>> y.tolist(), y.grad_fn.name()
([[0.0, 2.0]], 'ReluBackward0')
"""
from __future__ import annotations

from .._array_bridge import wrap_array
from .._dispatch.ops import A
from ..autograd import grad_mode as _grad_mode
from ..operators.unary import _relu
from ._direct_record import autograd_info, edge, host_call, record, tmeta

_gm = _grad_mode.state


def relu_host(input):
    """``aten::relu(input)`` when the arrays path applies (a row-major host tensor of at least one dimension,
    see ``_direct_record``), else None (nothing was computed or recorded)."""
    if not input._size or not host_call(A.relu, input):
        return None
    x = input._array()
    if not x.flags.c_contiguous:
        return None     # the dispatched call gives the result the input's layout (TensorIterator's rule)
    out = wrap_array(_relu(None, input), input._dtype)
    if not _gm.enabled:
        return out
    e = edge(input)
    if e is not None:
        record(autograd_info(A.relu), [out], [e], {"self": tmeta(input)}, {"result": ("output", 0)})
    return out
