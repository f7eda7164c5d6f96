"""Graph nodes: a ``Node`` turns the gradients of a forward op's outputs into gradients of its inputs and
points at the nodes of those inputs through ``next_functions``.

>>> import openreg
>>> x = openreg.ones(2, requires_grad=True)
>>> y = (x + x).sum()
>>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
('SumBackward0', 'AddBackward0')
"""
from __future__ import annotations

import itertools
import threading
import types
import weakref
from collections.abc import Callable

from .meta import WITH_AUTOGRAD, _create_lock, get_meta, with_autograd_memo  # noqa: F401 (re-exported)

_sequence = itertools.count()
UINT64_MAX = 2 ** 64 - 1


class RemovableHandle:
    """Returned by hook registrations; ``remove()`` unregisters the hook (idempotent)."""

    _ids = itertools.count()

    def __init__(self, hooks: list | dict) -> None:
        self._hooks = weakref.ref(hooks) if not isinstance(hooks, list) else hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        hooks = self._hooks
        for i, (hid, _fn) in enumerate(list(hooks)):
            if hid == self.id:
                del hooks[i]
                return

    def __enter__(self) -> RemovableHandle:  # noqa: PYI034
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _add_hook(hooks: list, fn: Callable) -> RemovableHandle:
    if not callable(fn):
        raise TypeError(f"hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks.append((handle.id, fn))
    return handle


_NO_HOOKS = ()                        # the hook lists of a node without hooks (read-only)
_NO_MAP = types.MappingProxyType({})  # its tensor-hook and retain_grad maps


def hook_list(node, name: str) -> list:
    """The node's own hook list ``name`` (``_pre_hooks``, ``_post_hooks``), made on first use."""
    hooks = getattr(node, name)
    if hooks is _NO_HOOKS:
        hooks = []
        setattr(node, name, hooks)
    return hooks


def hook_map(node, name: str) -> dict:
    """The node's own map ``name`` (``_tensor_pre_hooks``, ``_retains``), made on first use."""
    hooks = getattr(node, name)
    if hooks is _NO_MAP:
        hooks = {}
        setattr(node, name, hooks)
    return hooks


class Node:
    """One backward function of the graph.

    ``next_edges[i]`` is ``(node, input_nr)`` or ``None``: where the gradient of the forward op's ``i``-th
    differentiable input goes. ``input_meta[j]`` is ``(shape, dtype, device)`` of the forward op's ``j``-th
    output, used to check the gradients this node receives.
    """

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_post_hooks",
        "_pre_hooks",
        "_retains",
        "_sequence_nr",
        "_tensor_pre_hooks",
        "input_meta",
        "next_edges",
    )

    def __init__(self, next_edges: list | None = None, sequence_nr: int | None = None) -> None:
        self.next_edges = next_edges if next_edges is not None else []
        self._sequence_nr = next(_sequence) if sequence_nr is None else sequence_nr
        # Hooks are rare: every node shares these empty containers until one is registered (hook_list / hook_map)
        self._pre_hooks = self._post_hooks = _NO_HOOKS
        self._tensor_pre_hooks = self._retains = _NO_MAP
        self.input_meta: list = []

    # -- public API ------------------------------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self.next_edges)

    @property
    def metadata(self) -> dict:
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    def _sequence_number(self) -> int:
        return self._sequence_nr

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; may return replacement ``grad_inputs``."""
        return _add_hook(hook_list(self, "_post_hooks"), fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; may return replacement ``grad_outputs``."""
        return _add_hook(hook_list(self, "_pre_hooks"), fn)

    def __call__(self, *grads):
        return self.apply(list(grads))

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    # -- engine interface -------------------------------------------------------------------------
    def apply(self, grads: list) -> list:
        raise NotImplementedError

    def release(self) -> None:
        """Free saved tensors after a backward without ``retain_graph``."""

    def num_outputs(self) -> int:
        return len(self.next_edges)


def _name_from_op(qualname: str, index: int = 0) -> str:
    base = qualname.split("::")[-1].split(".")[0].rstrip("_")
    camel = "".join(p[:1].upper() + p[1:] for p in base.split("_") if p)
    return f"{camel}Backward{index}"


class NotImplementedNode(Node):
    """Records an op without a derivative formula; raises when backward reaches it."""

    __slots__ = ("op",)

    def __init__(self, op: str, next_edges: list) -> None:
        super().__init__(next_edges)
        self.op = op

    def name(self) -> str:
        return "NotImplemented"

    def apply(self, grads: list) -> list:
        raise RuntimeError(f"the derivative for '{self.op}' is not implemented.")


class Error(Node):
    """A node that raises a fixed message when reached (PyTorch's ``Error`` node)."""

    def __init__(self, msg: str, next_edges: list) -> None:
        super().__init__(next_edges)
        self.msg = msg

    def apply(self, grads: list) -> list:
        raise RuntimeError(self.msg)


def tensor_meta(t) -> tuple:
    return (t._size, t._dtype, t._storage.device)


def grad_fn_of(t):
    """The tensor's ``grad_fn``, regenerating a view's history when its base was modified in place."""
    base = t._base
    if base is None:
        return t._grad_fn
    m = t._ameta
    if m is not None and (m.no_grad_view or m.view_version == t._vc.value):
        return t._grad_fn
    if base._grad_fn is None and not base._rg:
        return t._grad_fn
    if m is not None and m.custom_function_view is not None:
        from .kernel import custom_function_view_message
        raise RuntimeError(custom_function_view_message(t, "its base or another view of its base has been"))
    from .view_node import AsStridedViewBackward
    node = AsStridedViewBackward(base, t)
    t._grad_fn, t._output_nr, t._requires_grad = node, 0, True
    get_meta(t).view_version = t._vc.value
    return node


_AccumulateGrad = None
_new = object.__new__


def _accumulate_grad_class():
    """``AccumulateGrad``, imported on first use (its module imports this one) and then held: a leaf's
    accumulator is made again on every step, and a function-level import costs about a microsecond."""
    global _AccumulateGrad
    if _AccumulateGrad is None:
        from .accumulate_grad import AccumulateGrad
        _AccumulateGrad = AccumulateGrad
    return _AccumulateGrad


def grad_accumulator(t):
    """The leaf's AccumulateGrad node (one per leaf while referenced)."""
    m = t._ameta
    if m is not None and m.grad_acc is not None:
        acc = m.grad_acc()
        if acc is not None:
            return acc
    if m is None:
        m = get_meta(t)
    cls = _AccumulateGrad or _accumulate_grad_class()
    with _create_lock:
        acc = m.grad_acc() if m.grad_acc is not None else None
        if acc is None:
            lock = m.lock
            if lock is None:
                lock = m.lock = threading.Lock()
            acc = _new(cls)     # AccumulateGrad(t, lock) written out: a leaf's accumulator is made every step
            acc.next_edges = []
            acc._sequence_nr = UINT64_MAX
            acc._pre_hooks = acc._post_hooks = _NO_HOOKS
            acc._tensor_pre_hooks = acc._retains = _NO_MAP
            acc.variable = t
            acc.input_meta = [(t._size, t._dtype, t._storage.device)]
            acc.lock = lock
            m.grad_acc = weakref.ref(acc)
    return acc


def gradient_edge(t):
    """``(node, input_nr)`` where the gradient for ``t`` goes, or None when ``t`` does not require grad."""
    fn = grad_fn_of(t) if t._base is not None else t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._rg:
        return (grad_accumulator(t), 0)
    return None


def requires_grad_of(t) -> bool:
    if t._rg:
        return True
    base = t._base
    if base is not None:
        if grad_fn_of(t) is not None:
            return True
        # A view made under no_grad of a tensor that requires grad still requires grad (through its base), as
        # PyTorch's ``requires_grad_ || grad_fn || (is_view && base.requires_grad())``; it stays a leaf with no
        # gradient accumulator of its own, so backward runs but stores nothing in it.
        m = t._ameta
        return m is not None and m.no_grad_view and (base._rg or base._grad_fn is not None)
    return False
