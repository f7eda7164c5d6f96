"""Custom autograd functions: ``openreg.autograd.Function`` (PyTorch's API).

The ``ctx`` object is the graph node itself (``y.grad_fn``), an instance of ``<Fn>Backward``.

>>> import openreg
>>> class Square(openreg.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x
...     @staticmethod
...     def backward(ctx, g):
...         (x,) = ctx.saved_tensors
...         return 2 * x * g
>>> x = openreg.tensor([3.0], requires_grad=True)
>>> y = Square.apply(x)
>>> y.backward(openreg.ones(1)); y.grad_fn.name(), x.grad.tolist()
('SquareBackward', [6.0])
"""
from __future__ import annotations

import functools
from typing import Any

from .._dispatch.ops import A
from . import forward_grad as _fg
from . import grad_mode
from .graph import Error, Node, gradient_edge, requires_grad_of, tensor_meta
from .meta import get_meta
from .saved import SavedTensor


def _is_tensor(x) -> bool:
    return hasattr(x, "_ks")


class FunctionCtx:
    """The context methods available in ``forward``/``setup_context``/``backward``/``jvp``."""

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not _is_tensor(t):
                raise TypeError("save_for_backward can only save variables, but argument 0 is of type "
                                f"{type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        self._dirty = args

    def mark_non_differentiable(self, *args) -> None:
        self._non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        saved = self.__dict__.get("_saved")
        if saved is None:
            to_save = self.__dict__.get("_to_save")
            return tuple(to_save) if to_save is not None else ()
        if self.__dict__.get("_freed"):
            from .saved import FREED_MSG
            raise RuntimeError(FREED_MSG)
        return tuple(s.unpack(self) if isinstance(s, SavedTensor) else s for s in saved)


class BackwardCFunction(Node, FunctionCtx):
    """The node class of a custom Function (one subclass per Function)."""

    _forward_cls: Any = None

    def __init__(self) -> None:
        Node.__init__(self)
        self._materialize = True
        self.needs_input_grad = ()
        self._is_tensor_input = ()

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list) -> list:
        fcls = self._forward_cls
        if self._materialize:
            from ._ops import zeros_with_geometry
            grads = [g if g is not None or m is None else _zeros(m) for g, m in zip(grads, self.input_meta)]
            del zeros_with_geometry
        res = fcls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self.next_edges)
        if len(res) < n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected {n}, got "
                               f"{len(res)})")
        if len(res) > n:
            if any(r is not None for r in res[n:]):
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected {n}, "
                                   f"got {len(res)})")
            res = res[:n]
        out = []
        for i, r in enumerate(res):
            if r is not None and not self._is_tensor_input[i]:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
            if r is not None and not _is_tensor(r):
                raise TypeError(f"function {self.name()} returned a non-Tensor gradient at position {i + 1}")
            out.append(r if self.next_edges[i] is not None else None)
        return out

    def release(self) -> None:
        saved = self.__dict__.get("_saved")
        if saved is not None:
            for s in saved:
                if isinstance(s, SavedTensor):
                    s.release()
            self._freed = True


def _zeros(meta):
    size, dtype, device = meta[0], meta[1], meta[2]
    t = A.empty_strided(tuple(size), _contig(size), dtype=dtype, device=device)
    return A.zero_(t)


def _contig(size) -> tuple:
    from ..tensor import contiguous_strides
    return contiguous_strides(size)


class FunctionMeta(type):
    """Creates the ``<Fn>Backward`` node class of every Function subclass."""

    def __init__(cls, name, bases, attrs) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom differentiable operations; call them with ``Fn.apply(*args)``."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-"
                           "style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        return _apply(cls, args, kwargs)


def _uses_setup_context(cls) -> bool:
    return cls.setup_context is not Function.setup_context and \
        getattr(cls.setup_context, "__func__", cls.setup_context) is not Function.__dict__["setup_context"]


def _apply(cls, args: tuple, kwargs: dict):
    ctx = cls._backward_cls()
    is_tensor = tuple(_is_tensor(a) for a in args)
    ctx._is_tensor_input = is_tensor
    req = tuple(t and requires_grad_of(a) for t, a in zip(is_tensor, args))
    ctx.needs_input_grad = req
    executable = grad_mode.state.enabled and any(req)
    level = _fg.current_level[0]
    tangents = None
    if level >= 0 and not _fg.tls.disabled:
        tangents = [(_fg.fw_grad(a, level) if t else None) for t, a in zip(is_tensor, args)]
        if all(x is None for x in tangents):
            tangents = None
    setup = _uses_setup_context(cls)
    prev, prev_fw = grad_mode.state.enabled, _fg.tls.disabled
    grad_mode.state.enabled, _fg.tls.disabled = False, True
    try:
        if setup:
            out = cls.forward(*args, **kwargs)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    finally:
        grad_mode.state.enabled, _fg.tls.disabled = prev, prev_fw
    if setup:
        cls.setup_context(ctx, args, out)
    single = not isinstance(out, tuple)
    outs = (out,) if single else tuple(out)
    dirty = {id(t) for t in ctx.__dict__.get("_dirty", ())}
    nondiff = {id(t) for t in ctx.__dict__.get("_non_differentiable", ())}
    inputs_by_id = {id(a): a for a, t in zip(args, is_tensor) if t}
    if executable:
        ctx.next_edges = [gradient_edge(a) if r else None for a, r in zip(args, req)]
    else:
        ctx.next_edges = [None] * len(args)
    new_outs = []
    from .kernel import _check_inplace, _is_diff, _rebase_history
    for i, o in enumerate(outs):
        if not _is_tensor(o):
            new_outs.append(o)
            continue
        is_input = id(o) in inputs_by_id
        if id(o) in dirty:
            if executable:
                _check_inplace(None, o)
        elif is_input:
            from .._dispatch import tls
            from .._dispatch.keys import AUTOGRAD_MASK
            old = tls.state.exclude
            tls.state.exclude = old | AUTOGRAD_MASK
            try:
                o = o.view(tuple(o.shape))
            finally:
                tls.state.exclude = old
        if executable and _is_diff(o) and id(outs[i]) not in nondiff:
            if id(outs[i]) in dirty:
                _rebase_history(o, ctx)
                if o._grad_fn is not ctx:
                    o._output_nr = 0
            else:
                o._grad_fn, o._output_nr, o._requires_grad = ctx, i, True
                if o._base is not None:
                    om = get_meta(o)
                    om.view_version = o._vc.value
                    om.custom_function_view = cls.__name__
                    om.no_grad_view = False   # made inside forward's no_grad: now a custom Function view
        elif id(outs[i]) in nondiff and not is_input:
            o._requires_grad = False
        new_outs.append(o)
    ctx.input_meta = [tensor_meta(o) if _is_tensor(o) and _is_diff(o) else None for o in new_outs]
    to_save = ctx.__dict__.pop("_to_save", None)
    if to_save is not None and not executable:
        # no graph was recorded (no_grad, inference_mode, no input requiring grad): nothing is packed for a
        # backward that cannot run, so tensors made in inference mode may be saved, as in PyTorch
        ctx.__dict__["_to_save"] = to_save
    elif to_save is not None:
        out_ids = {id(o): k for k, o in enumerate(outs)}
        saved = []
        for t in to_save:
            if t is None:
                saved.append(None)
            elif id(t) in out_ids and id(t) not in inputs_by_id and executable:
                saved.append(SavedTensor(new_outs[out_ids[id(t)]], is_output=True))
            else:
                saved.append(SavedTensor(t))
        ctx._saved = saved
    if tangents is not None:
        _function_jvp(cls, ctx, tangents, outs, new_outs, dirty, level)
    return new_outs[0] if single else tuple(new_outs)


def _function_jvp(cls, ctx, tangents, outs, new_outs, dirty, level) -> None:
    grads = [t if t is not None or not ctx._materialize else None for t in tangents]
    prev = _fg.tls.disabled
    _fg.tls.disabled = True
    try:
        res = cls.jvp(ctx, *grads)
    finally:
        _fg.tls.disabled = prev
    if not isinstance(res, tuple):
        res = (res,)
    for o, orig, t in zip(new_outs, outs, res):
        if t is None or not _is_tensor(o):
            continue
        if id(orig) in dirty:
            existing = _fg.fw_grad(o, level)
            if existing is not None:
                if existing is not t:
                    existing.copy_(t)
                continue
            _fg.set_fw_grad(o, t, level, is_inplace=True)
        else:
            _fg.set_fw_grad(o, t, level)


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable: it runs under ``no_grad`` and a double
    backward through it raises.

    >>> from openreg.autograd import once_differentiable
    >>> callable(once_differentiable(lambda ctx, g: g))
    True
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled:
            return outputs
        needs = any(_is_tensor(a) and a.requires_grad for a in args)
        if not needs:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        edges = [gradient_edge(a) if _is_tensor(a) and a.requires_grad else None for a in args]
        err = Error("trying to differentiate twice a function that was marked with @once_differentiable", edges)
        wrapped = []
        for o in outs:
            if _is_tensor(o) and (o.dtype.is_floating_point or o.dtype.is_complex):
                o = o.detach()
                o._grad_fn, o._requires_grad = err, True
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]
