"""``F.linear`` of a 2-d input with a bias on host arrays: the ``t`` + ``addmm`` that PyTorch's ``aten::linear``
decomposes into, with the ``addmm`` computed straight on the arrays and its ``AddmmBackward0`` node recorded
directly, instead of a dispatcher call (binding, structured meta rule, kernel lookup, autograd kernel).

It applies when that call would do nothing else: plain ``Tensor``/``Parameter`` instances on the CPU in one
dtype (float32 or float64), shapes that fit (otherwise the dispatched call raises PyTorch's error), the thread's
default dispatch state (no autocast, no modes, no profiler), no forward-mode AD level, and ``aten::addmm``'s own
CPU and Autograd kernels. The result is the array ``addmm_compute`` makes (same NumPy calls: the same bits) and
the recorded graph is the dispatched call's: ``AddmmBackward0`` with the edges of the bias, the input and the
``TBackward0`` of the transposed weight, saving ``mat1`` and ``mat2`` with their versions.

>>> import openreg
>>> from openreg.nn._linear_arrays import linear_2d
>>> w = openreg.nn.Parameter(openreg.ones(3, 2))
>>> y = linear_2d(openreg.ones(4, 2), w, openreg.zeros(3))
>>> y.grad_fn.name(), y.grad_fn.next_functions[2][0].name(), y.tolist()[0]
('AddmmBackward0', 'TBackward0', [2.0, 2.0, 2.0])
"""
from __future__ import annotations

import numpy as np

from .._array_bridge import wrap_array
from .._dispatch.ops import A
from ..autograd import grad_mode as _grad_mode
from ..autograd.inference import InferenceVersion
from ..operators.linalg import _matmul
from ._direct_record import autograd_info, edge, host_call, record, tmeta

_gm = _grad_mode.state


def linear_2d(input, weight, bias):
    """``addmm(bias, input, weight.t())`` when the arrays path applies (see the module docstring), else None
    (nothing was computed or recorded)."""
    xs, ws, bs = input._size, weight._size, bias._size
    if len(xs) != 2 or len(ws) != 2 or len(bs) != 1 or xs[1] != ws[1] or bs[0] != ws[0]:
        return None     # the dispatched call broadcasts a bias of one element, or raises PyTorch's error
    if not host_call(A.addmm, input, weight, bias):
        return None
    record_graph = _gm.enabled
    if record_graph and (input._vc.__class__ is InferenceVersion or weight._vc.__class__ is InferenceVersion):
        return None     # the dispatched call knows whether to raise PyTorch's error about saving them
    wt = A.t(weight)        # the TBackward0 node and the view, as the decomposition makes them
    out = wrap_array(_matmul(np, input._array(), wt._array(), bias._array()), input._dtype)
    if not record_graph:
        return out
    edges = [edge(bias), edge(input), edge(wt)]
    if edges[0] is None and edges[1] is None and edges[2] is None:
        return out
    record(autograd_info(A.addmm), [out], edges, {"self": tmeta(bias), "mat1": tmeta(input), "mat2": tmeta(wt)},
           {"mat1": ("input", input), "mat2": ("input", wt), "beta": 1, "alpha": 1})
    return out
