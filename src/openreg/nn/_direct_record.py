"""What the layers' array paths (``_linear_arrays``, ``_relu_arrays``) share: whether an operator call would do
nothing but its CPU computation, and recording the node its Autograd kernel records, for a result computed on
the arrays instead of through the dispatcher.

A call does nothing else when: no forward-mode AD level is open; the thread's dispatch state is the default
(no autocast, no modes, no profiler); the tensors are plain ``Tensor``/``Parameter`` instances on the CPU in
one dtype, float32 or float64, not quantized; and the operator has its own CPU (or CompositeExplicitAutograd)
and Autograd kernels only. The recorded node is the one the generated autograd kernel makes
(``autograd/kernel.py``): a ``FormulaNode`` of the operator's ``OpInfo`` with the inputs' edges, the output's
metadata, the saved values with their versions, and the output's history.

>>> import openreg
>>> from openreg._dispatch.ops import A
>>> from openreg.nn._direct_record import host_call
>>> host_call(A.relu, openreg.ones(2))
True
>>> with openreg.autocast("cpu"):
...     host_call(A.relu, openreg.ones(2))
False
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch import tls as _tls_mod
from .._dispatch.keys import AUTOCAST_MASK, DispatchKey
from ..autograd import forward_grad as _fg
from ..autograd.graph import WITH_AUTOGRAD, gradient_edge, requires_grad_of, with_autograd_memo
from ..autograd.kernel import Args, FormulaNode
from ..autograd.saved import SavedTensor

_tls = _tls_mod.state
_DEFAULT_INCLUDE = _tls.include
_level = _fg.current_level
_HOST = (_dt.float32, _dt.float64)
_PLAIN = None
_INFOS: dict = {}


def _plain() -> frozenset:
    global _PLAIN
    from ..tensor import Tensor
    from .parameter import Parameter
    _PLAIN = frozenset((Tensor, Parameter))
    return _PLAIN


def host_call(overload, *tensors) -> bool:
    """Whether a call of ``overload`` on ``tensors`` (the first one's dtype for all) would do nothing but its
    computation (see the module docstring)."""
    if _level[0] >= 0 or _tls.include != _DEFAULT_INCLUDE or _tls.exclude != AUTOCAST_MASK:
        return False
    plain = _PLAIN or _plain()
    first = tensors[0]
    d, dev = first._dtype, first._storage.device
    if d not in _HOST or dev._type != "cpu":
        return False
    for t in tensors:
        if t.__class__ not in plain or t._dtype is not d or t._storage.device is not dev or t._qparams is not None:
            return False
    return autograd_info(overload) is not None


def autograd_info(overload):
    """The ``OpInfo`` of ``overload``'s generated Autograd kernel when the operator has only its own kernels
    (one CPU or CompositeExplicitAutograd kernel, one Autograd kernel), else None."""
    entry = overload._entry
    kernels = entry.kernels
    cpu = kernels.get(DispatchKey.CPU, ())
    own = len(cpu) == 1 or (not cpu and len(kernels.get(DispatchKey.CompositeExplicitAutograd, ())) == 1)
    autograd = kernels.get(DispatchKey.Autograd, ())
    if not own or len(autograd) != 1 or kernels.get(DispatchKey.AutogradCPU):
        return None
    fn = autograd[0].fn
    info = _INFOS.get(fn)
    if info is None:
        info = _INFOS[fn] = getattr(fn, "__globals__", {}).get("_op_info")   # the generated lean kernel's
    return info


def edge(t):
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


def record(info, outputs: list, edges: list, meta: dict, saved: dict) -> FormulaNode:
    """Make ``info``'s node over ``edges`` the history of ``outputs`` (fresh differentiable tensors, in order;
    None for an output that is not differentiable) and give it ``saved`` (values by formula name; a tensor
    given as ``("output", k)`` is saved as output ``k``, one given as ``("input", t)`` as an input) and the inputs'
    ``meta``."""
    om = [None if o is None else (o._size, o._dtype, o._storage.device) for o in outputs]
    node = FormulaNode(info, edges, info.slots)
    node.input_meta = om
    for k, o in enumerate(outputs):
        if o is not None:
            o._grad_fn = node     # the _requires_grad setter, written out (as the autograd kernel does)
            o._output_nr = k
            o._rg = True
            ks = o._ks
            o._ks = WITH_AUTOGRAD.get(ks) or with_autograd_memo(ks)
    values = {}
    for name, v in saved.items():
        if v.__class__ is tuple:
            kind, x = v
            v = SavedTensor(outputs[x], is_output=True) if kind == "output" else SavedTensor(x)
        values[name] = v
    values["out_meta"] = om
    node.args = Args(values, meta, node)
    return node


def tmeta(t) -> tuple:
    """An input's metadata as the autograd kernel keeps it."""
    return (t._size, t._dtype, t._storage.device, t._stride, t._offset)
