"""AccumulateGrad: the node that writes a leaf's ``.grad`` (PyTorch's semantics).

* undefined ``.grad``: take the incoming gradient (steal it when nothing else holds it, clone otherwise,
  keeping the leaf's layout);
* defined ``.grad`` and grad mode off: add in place; under ``create_graph``: add out of place (recorded);
* post-accumulate-grad hooks run after the update; one lock per leaf makes concurrent backwards exact.

>>> import openreg
>>> x = openreg.ones(2, requires_grad=True)
>>> (x * 2).sum().backward(); (x * 3).sum().backward()
>>> x.grad.tolist()
[5.0, 5.0]
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from .._dispatch.ops import A
from .._quiet import quiet_call
from ..operators._host_path import plain_cpu_arrays
from . import grad_mode
from ._ops import clone_like
from .graph import _NO_HOOKS, _NO_MAP, UINT64_MAX, Node

_gm = grad_mode.state


class AccumulateGrad(Node):
    """Sink of the graph for one leaf tensor."""

    __slots__ = ("lock", "variable")

    def __init__(self, variable, lock=None) -> None:
        # Node.__init__ written out: a leaf's accumulator is made again on every step
        self.next_edges = []
        self._sequence_nr = UINT64_MAX
        self._pre_hooks = self._post_hooks = _NO_HOOKS
        self._tensor_pre_hooks = self._retains = _NO_MAP
        self.variable = variable
        self.input_meta = [(variable._size, variable._dtype, variable._storage.device)]   # tensor_meta
        # the leaf's own lock (its AutogradMeta's): every accumulator of one leaf updates its .grad in turn
        self.lock = threading.Lock() if lock is None else lock

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads: list) -> list:
        new_grad = grads[0]
        grads[0] = None          # drop the engine's reference so the gradient can be stolen
        if new_grad is None:
            return []
        var = self.variable
        if var._grad_fn is not None:
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not var._rg:
            return []
        stealable = sys.getrefcount(new_grad) <= 2   # only this frame holds it (the engine dropped its refs)
        with self.lock:
            grad = var._grad
            if grad is not None and not _gm.enabled and grad._grad_fn is None and not grad._rg and \
                    not grad.is_sparse:
                _add_into(grad, new_grad)           # accumulate's in-place update, written out
            else:
                accumulate(var, new_grad, stealable=stealable)
            del new_grad, grad
            m = var._ameta
            if m is not None and m.post_acc_hooks:
                for _hid, hook in list(m.post_acc_hooks):
                    hook(var)
        return []


def _add_into(grad, new_grad) -> None:
    """``grad.add_(new_grad)`` under no_grad. On the CPU with nothing else to do (``plain_cpu_arrays``: no
    autocast, modes or kernel registered over ``add_``; float32/float64 ``Tensor``s) and operands of one size in
    different storages, the kernel's ufunc on the arrays and the ADInplaceOrView layer's version bump."""
    if grad._size == new_grad._size and grad._storage is not new_grad._storage:
        arrays = plain_cpu_arrays(A.add___Tensor, grad, new_grad)
        if arrays is not None and arrays[0].flags.writeable:
            quiet_call(np.add, arrays[0], arrays[1], arrays[0])
            grad._vc.value += 1
            return
    A.add___Tensor(grad, new_grad)


def accumulate(var, new_grad, *, stealable: bool = False) -> None:
    """Accumulate ``new_grad`` into ``var.grad`` (the shared logic of AccumulateGrad and the inductor op)."""
    grad = var._grad
    if new_grad.is_sparse or (grad is not None and grad.is_sparse):
        _accumulate_sparse(var, grad, new_grad, stealable)
        return
    if grad is None:
        # steal when no other tensor shares the storage (a view's base counts once: <= 3 with the call's ref)
        limit = 3 if new_grad._base is None else 4
        if stealable and new_grad._stride == var._stride and new_grad._offset == 0 and \
                sys.getrefcount(new_grad._storage) <= limit and (new_grad._base is None or _sole_view(new_grad)):
            # _detached(new_grad) written out
            var._grad = new_grad if grad_mode.state.enabled or (new_grad._grad_fn is None and not new_grad._rg) \
                else new_grad.detach()
        else:
            var._grad = clone_like(new_grad, var)
        return
    if not grad_mode.state.enabled:
        if grad._grad_fn is None and not grad._rg:
            _add_into(grad, new_grad)
        else:
            var._grad = A.add__Tensor(grad, new_grad)
        return
    var._grad = A.add__Tensor(grad, new_grad)


def _accumulate_sparse(var, grad, new_grad, stealable: bool) -> None:
    """PyTorch's rules where a sparse gradient is involved: a first sparse gradient is taken as a new sparse tensor
    over the same indices and values (or a clone); sparse + sparse stays sparse (in place without grad mode),
    dense + sparse is dense, and a sparse ``.grad`` meeting a dense gradient is replaced by their (dense) sum."""
    if grad is None:
        if stealable and not grad_mode.state.enabled:
            from ..sparse.coo_tensor import make_coo
            var._grad = make_coo(new_grad._coo_indices, new_grad._coo_values, new_grad._size)
        else:
            var._grad = A.clone(new_grad)
    elif grad.is_sparse and not new_grad.is_sparse:
        var._grad = A.add__Tensor(new_grad, grad)
    elif not grad_mode.state.enabled:
        A.add___Tensor(grad, new_grad)
    else:
        var._grad = A.add__Tensor(grad, new_grad)


def _sole_view(t) -> bool:
    """A view whose base covers exactly the same elements (e.g. ``x.t()`` of a fresh result)."""
    base = t._base
    return base.numel() == t.numel() and sys.getrefcount(base) <= 3


def inductor_accumulate_grad_(variable, new_grad) -> None:
    """Kernel of ``inductor.accumulate_grad_``: AccumulateGrad's update on a given variable.

    >>> import openreg
    >>> v = openreg.zeros(2)
    >>> openreg.ops.inductor.accumulate_grad_(v, openreg.ones(2))
    >>> openreg.ops.inductor.accumulate_grad_(v, openreg.ones(2))
    >>> v.grad.tolist()
    [2.0, 2.0]
    """
    accumulate(variable, new_grad)


def meta_accumulate_grad_(variable, new_grad) -> None:
    """Meta kernel: set the grad when it is undefined; otherwise nothing (no shape checks)."""
    if variable._grad is None:
        variable._grad = new_grad
