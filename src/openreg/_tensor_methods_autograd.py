"""Autograd methods of Tensor: ``backward``, ``register_hook``, ``retain_grad``, ``grad_fn``/``is_leaf``/
``requires_grad`` (aware of views whose base changed in place), ``register_post_accumulate_grad_hook``,
``detach_``, and the subclass constructors ``as_subclass`` / ``Tensor._make_subclass``.

>>> import openreg
>>> x = openreg.ones(2, requires_grad=True)
>>> y = x * 2
>>> y.retain_grad()
>>> y.sum().backward()
>>> y.grad.tolist(), x.grad.tolist()
([1.0, 1.0], [2.0, 2.0])
"""
from __future__ import annotations

import weakref

from ._quiet import enter_quiet as _enter_quiet
from ._quiet import leave_quiet as _leave_quiet
from ._tensor_methods import mixin
from .autograd import _implicit_grad
from .autograd import backward as _autograd_backward
from .autograd import engine as _engine
from .autograd.anomaly_mode import state as _anomaly
from .autograd.engine import _run_all, _run_backward
from .autograd.grad_mode import state as _gm_state
from .autograd.graph import RemovableHandle, _add_hook, grad_fn_of, gradient_edge, hook_map, requires_grad_of
from .autograd.inference import REQUIRES_GRAD_MSG, InferenceVersion
from .autograd.meta import get_meta
from .tensor import TensorBase


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """Accumulate the gradient of this tensor into the leaves' ``.grad``.

    >>> import openreg
    >>> x = openreg.tensor([2.0], requires_grad=True)
    >>> (x * x).backward(openreg.ones(1)); x.grad.tolist()
    [4.0]
    """
    if gradient is None and inputs is None and self._rg and not self._size and (
            (dt := self._dtype).is_floating_point or dt.is_complex):
        # a scalar loss's backward: autograd.backward's checks, all passed, and its implicit ones gradient
        grads = [_implicit_grad(self)]
        keep = create_graph if retain_graph is None else retain_graph
        token = _enter_quiet()      # run_backward written out
        try:
            if _anomaly[0]:
                _run_backward([self], grads, keep, create_graph, None, True)
            else:   # _run_backward's root edge and its call of _run_all, written out
                fn = self._grad_fn
                _run_all([(fn, self._output_nr) if fn is not None and self._base is None else gradient_edge(self)],
                         grads, keep, create_graph, _engine._FormulaNode or _engine._formula_node_class())
        finally:
            _leave_quiet(token)
        return
    _autograd_backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs=inputs)


def _need_grad(self, what: str) -> None:
    if not requires_grad_of(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")


def register_hook(self, hook) -> RemovableHandle:
    """Run ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it.

    >>> import openreg
    >>> x = openreg.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> (x * 1).sum().backward(); x.grad.tolist()
    [10.0, 10.0]
    """
    _need_grad(self, "hook")
    fn = grad_fn_of(self)
    if fn is None:
        return _add_hook(get_meta(self).hooks, hook)
    return _add_hook(hook_map(fn, "_tensor_pre_hooks").setdefault(self._output_nr, []), hook)


def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
    """Run ``hook(tensor)`` after a leaf's ``.grad`` has been updated by backward.

    >>> import openreg
    >>> x = openreg.ones(1, requires_grad=True)
    >>> seen = []
    >>> h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.item()))
    >>> (x * 3).sum().backward(); seen
    [3.0]
    """
    if not requires_grad_of(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if grad_fn_of(self) is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return _add_hook(get_meta(self).post_acc_hooks, hook)


def retain_grad(self) -> None:
    """Make backward populate ``.grad`` of this non-leaf tensor (no-op on leaves)."""
    if not requires_grad_of(self):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = grad_fn_of(self)
    if fn is None:
        return
    get_meta(self).retains_grad = True
    hook_map(fn, "_retains")[self._output_nr] = weakref.ref(self)


def _retains_grad(self) -> bool:
    m = self._ameta
    if m is None or not m.retains_grad:
        return False
    fn = grad_fn_of(self)
    return fn is not None and fn._retains.get(self._output_nr) is not None


def _grad_fn(self):
    return grad_fn_of(self) if self._base is not None else self._grad_fn


def _is_leaf(self) -> bool:
    return _grad_fn(self) is None


def _get_requires_grad(self) -> bool:
    return self._rg or (self._base is not None and requires_grad_of(self))


def _set_requires_grad(self, value: bool) -> None:
    self.requires_grad_(value)


def requires_grad_(self, requires_grad: bool = True):
    """Set whether autograd records operations on this leaf tensor."""
    if _grad_fn(self) is not None and not requires_grad:
        raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                           "computed variable in a subgraph that doesn't require differentiation use var_no_grad = "
                           "var.detach().")
    if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    if requires_grad and type(self._vc) is InferenceVersion and not _gm_state.inference:
        raise RuntimeError(REQUIRES_GRAD_MSG)
    if _grad_fn(self) is None:
        self._requires_grad = bool(requires_grad)
    return self


def detach_(self):
    """Detach this tensor from the graph in place (it becomes a leaf)."""
    if self._base is not None and requires_grad_of(self):
        raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                           "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of "
                           "DDP buckets, and hence detach_() cannot be called on these gradients. To fix this "
                           "error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py "
                           "as the solution.")
    self._grad_fn, self._output_nr, self._requires_grad = None, 0, False
    return self


_grad_property = TensorBase.__dict__["grad"]


def _get_grad(self):
    if self._grad is None and self._grad_fn is not None and not _retains_grad(self):
        import warnings
        warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                      "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
                      "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
                      "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead.",
                      UserWarning, stacklevel=2)
    return self._grad


def is_inference(self) -> bool:
    """Whether this tensor was created in ``inference_mode`` (or is a view of such a tensor).

    >>> import openreg
    >>> with openreg.inference_mode():
    ...     i = openreg.ones(1)
    >>> i.is_inference(), i.clone().is_inference()
    (True, False)
    """
    return type(self._vc) is InferenceVersion


_NOT_A_TENSOR_CLASS = ("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                       "Make sure your class inherits from Tensor.")


def _tensor_class(cls) -> type:
    from .tensor import Tensor
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(_NOT_A_TENSOR_CLASS)
    return cls


def as_subclass(self, cls):
    """This tensor's data as an instance of the Tensor subclass ``cls``: an alias that stays in the autograd
    graph (``AliasBackward0``), as in PyTorch.

    >>> import openreg
    >>> class Tagged(openreg.Tensor):
    ...     pass
    >>> x = openreg.ones(2, requires_grad=True)
    >>> y = x.as_subclass(Tagged)
    >>> type(y).__name__, y.grad_fn.name()
    ('Tagged', 'AliasBackward0')
    """
    from ._dispatch.ops import A
    out = A.alias(self)
    out.__class__ = _tensor_class(cls)
    return out


def _make_subclass(cls, data, require_grad: bool = False):
    """A leaf of the Tensor subclass ``cls`` sharing ``data``'s storage (PyTorch's ``Tensor._make_subclass``,
    which subclasses such as ``Parameter`` build on), requiring grad as ``require_grad`` says.

    >>> import openreg
    >>> class Weight(openreg.Tensor):
    ...     pass
    >>> w = openreg.Tensor._make_subclass(Weight, openreg.zeros(2), True)
    >>> type(w).__name__, w.requires_grad, w.is_leaf
    ('Weight', True, True)
    """
    if not isinstance(data, TensorBase):
        raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not {type(data).__name__}")
    out = _tensor_class(cls)._make(data._storage, data._size, data._stride, data._offset, data._dtype)
    if require_grad:
        out.requires_grad_(True)
    return out


AutogradMethods = mixin("AutogradMethods", {
    "as_subclass": as_subclass, "_make_subclass": staticmethod(_make_subclass),
    "is_inference": is_inference,
    "grad": property(_get_grad, _grad_property.fset),
    "backward": backward, "register_hook": register_hook, "retain_grad": retain_grad,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook, "requires_grad_": requires_grad_,
    "detach_": detach_, "grad_fn": property(_grad_fn), "is_leaf": property(_is_leaf),
    "requires_grad": property(_get_requires_grad, _set_requires_grad), "retains_grad": property(_retains_grad),
})
