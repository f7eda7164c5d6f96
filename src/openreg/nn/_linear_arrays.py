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

from .. import dtypes as _dt
from .._array_bridge import wrap_array
from .._dispatch import tls as _tls_mod
from .._dispatch.keys import AUTOCAST_MASK, DispatchKey
from .._dispatch.ops import A
from ..autograd import grad_mode as _grad_mode
from ..autograd import forward_grad as _fg
from ..autograd.graph import WITH_AUTOGRAD, gradient_edge, requires_grad_of, with_autograd_memo
from ..autograd.inference import InferenceVersion
from ..autograd.kernel import Args, FormulaNode
from ..autograd.saved import SavedTensor
from ..operators.linalg import _matmul

_tls = _tls_mod.state
_DEFAULT_INCLUDE = _tls.include
_gm = _grad_mode.state
_level = _fg.current_level
_HOST = (_dt.float32, _dt.float64)
_CPU_KEYS = (DispatchKey.CPU, DispatchKey.AutogradCPU, DispatchKey.Autograd)
_PLAIN = None
_ADDMM = None      # (OpInfo of aten::addmm, its dispatcher entry)


def _setup():
    global _PLAIN, _ADDMM
    from ..tensor import Tensor
    from .parameter import Parameter
    _PLAIN = frozenset((Tensor, Parameter))
    op = A.addmm
    entry = op._entry
    fn = entry.kernels[DispatchKey.Autograd][-1].fn     # the generated lean kernel (autograd/kernel.py)
    info = getattr(fn, "__globals__", {}).get("_op_info")
    _ADDMM = (info, entry)


def _own_kernels(entry) -> bool:
    kernels = entry.kernels
    return len(kernels.get(DispatchKey.CPU, ())) == 1 and len(kernels.get(DispatchKey.Autograd, ())) == 1 \
        and not kernels.get(DispatchKey.AutogradCPU)


def linear_2d(input, weight, bias):
    """``addmm(bias, input, weight.t())`` when the arrays path applies (see the module docstring), else None
    (nothing was computed or recorded)."""
    if _PLAIN is None:
        _setup()
    if _level[0] >= 0 or _tls.include != _DEFAULT_INCLUDE or _tls.exclude != AUTOCAST_MASK:
        return None
    plain = _PLAIN
    d = input._dtype
    if d not in _HOST or weight._dtype is not d or bias._dtype is not d or input.__class__ not in plain or \
            weight.__class__ not in plain or bias.__class__ not in plain:
        return None
    dev = input._storage.device
    if dev._type != "cpu" or weight._storage.device is not dev or bias._storage.device is not dev:
        return None
    xs, ws, bs = input._size, weight._size, bias._size
    if len(xs) != 2 or len(ws) != 2 or len(bs) != 1 or xs[1] != ws[1] or bs[0] != ws[0]:
        return None     # the dispatched call broadcasts a bias of one element, or raises PyTorch's error
    if input._qparams is not None or weight._qparams is not None or bias._qparams is not None:
        return None
    info, entry = _ADDMM
    if info is None or not _own_kernels(entry):
        return None
    record = _gm.enabled
    if record and (input._vc.__class__ is InferenceVersion or weight._vc.__class__ is InferenceVersion):
        return None     # the dispatched call knows whether to raise PyTorch's error about saving them
    wt = A.t(weight)        # the TBackward0 node and the view, as the decomposition makes them
    out = wrap_array(_matmul(np, input._array(), wt._array(), bias._array()), d)
    if not record:
        return out
    e_b, e_x, e_w = _edge(bias), _edge(input), _edge(wt)
    if e_b is None and e_x is None and e_w is None:
        return out
    om = [(out._size, d, dev)]
    node = FormulaNode(info, [e_b, e_x, e_w], info.slots)
    node.input_meta = om
    out._grad_fn = node     # the _requires_grad setter, written out (as the autograd kernel does)
    out._output_nr = 0
    out._rg = True
    k = out._ks
    out._ks = WITH_AUTOGRAD.get(k) or with_autograd_memo(k)
    meta = {"self": (bs, d, dev, bias._stride, bias._offset), "mat1": (xs, d, dev, input._stride, input._offset),
            "mat2": (wt._size, d, dev, wt._stride, wt._offset)}
    node.args = Args({"mat1": SavedTensor(input), "mat2": SavedTensor(wt), "beta": 1, "alpha": 1,
                      "out_meta": om}, meta, node)
    return out


def _edge(t):
    """Where ``t``'s gradient goes, None when it needs none (the autograd kernel's rule for one input)."""
    base = t._base
    if t._rg:
        fn = t._grad_fn
        if fn is not None and base is None:
            return (fn, t._output_nr)
        return gradient_edge(t)
    if base is None:
        return None
    rg = requires_grad_of(t) if base._rg or base._grad_fn is not None else t._grad_fn is not None
    return gradient_edge(t) if rg else None
