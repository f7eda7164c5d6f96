"""Autograd support for operators registered through ``openreg.library``: the ``Autograd``-key kernel.

``make_autograd_impl(op, info)`` builds a kernel (registered at the ``Autograd`` alias key, ``with_keyset``)
that, when some input requires grad and grad mode is on, runs the op inside an ``openreg.autograd.Function``
whose ``forward`` redispatches below autograd and calls ``info._setup_context_fn``, and whose ``backward``
calls ``info._backward_fn`` — or raises "no autograd formula was registered" when there is none. Otherwise
it just redispatches below autograd (``setup_context`` does not run).

>>> from openreg._library.autograd import Info
>>> Info(None, None)._backward_fn is None
True
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .._dispatch import tls
from .._dispatch.keys import AFTER_AUTOGRAD_MASK, AUTOGRAD_MASK
from . import utils


@dataclasses.dataclass
class Info:
    """The user's formula: ``backward(ctx, *grads)`` and optional ``setup_context``."""

    _backward_fn: Callable | None
    _setup_context_fn: Callable | None


def _grad_enabled() -> bool:
    import openreg
    fn = getattr(openreg, "is_grad_enabled", None)
    return True if fn is None else bool(fn())


def _any_requires_grad(args) -> bool:
    return any(t.requires_grad for t in utils.iter_tensors(args))


def _function_base():
    try:
        from ..autograd import Function
    except ImportError:
        Function = None
    if Function is None:
        raise NotImplementedError("openreg.library: an input requires grad but the autograd engine "
                                  "(openreg.autograd.Function) is not available")
    return Function


@dataclasses.dataclass
class _Metadata:
    keyset: int
    keyword_only_args: dict


def make_autograd_impl(op, info: Info) -> Callable:
    """The Autograd kernel of ``op`` (an OpOverload) driven by ``info`` (an :class:`Info` or a CustomOpDef)."""
    schema = op._schema
    has_kwarg_only = utils.has_kwarg_only_args(schema)
    num_positional = sum(not a.kwarg_only for a in schema.arguments)
    generated: list = []

    def run_below(args, metadata: _Metadata):
        with tls.exclude_keys(AUTOGRAD_MASK):
            return op.redispatch(metadata.keyset & AFTER_AUTOGRAD_MASK, *args, **metadata.keyword_only_args)

    def forward(ctx, *args):
        metadata = args[-1]
        args = args[:-1]
        result = run_below(args, metadata)
        setup = info._setup_context_fn
        if setup is not None:
            full_args, full_kwargs = utils.fill_defaults(schema, args, metadata.keyword_only_args)
            with tls.exclude_keys(AUTOGRAD_MASK):
                if has_kwarg_only:
                    setup(ctx=ctx, inputs=full_args, keyword_only_inputs=full_kwargs, output=result)
                else:
                    setup(ctx=ctx, inputs=full_args, output=result)
        return result

    def backward(ctx, *grads):
        backward_fn = info._backward_fn
        if backward_fn is None:
            raise RuntimeError(f"Trying to backward through {op} but no autograd formula was registered. "
                               f"Please use register_autograd to add one.")
        prev = getattr(ctx, "needs_input_grad", None)
        if prev is not None:
            try:
                ctx.needs_input_grad = tuple(prev)[:-1]
            except AttributeError:
                prev = None
        try:
            result = backward_fn(ctx, *grads)
        finally:
            if prev is not None:
                ctx.needs_input_grad = prev
        num_inputs = num_positional
        actual = len(result) if isinstance(result, tuple) else 1
        if actual != num_inputs:
            raise RuntimeError(f"The backward formula for {op} returned an incorrect number of gradients "
                               f"(expected {num_inputs}, got {actual}). Expected one gradient for each forward "
                               f"input, or for each positional input to the operator. Use None for inputs that "
                               f"do not require a gradient.")
        return (*result, None) if isinstance(result, tuple) else (result, None)

    def generated_function():
        if not generated:
            base = _function_base()
            name = f"GeneratedBackwardFor_{op.namespace}_{op._packet._name}_{op._overloadname}"
            generated.append(type(name, (base,), {"forward": staticmethod(forward),
                                                  "backward": staticmethod(backward)}))
        return generated[0]

    def autograd_impl(keyset: int, *args: Any, **keyword_only_args: Any):
        metadata = _Metadata(keyset, keyword_only_args)
        if _grad_enabled() and _any_requires_grad(args):
            return generated_function().apply(*args, metadata)
        return run_below(args, metadata)

    autograd_impl.__name__ = f"autograd_impl_{op.name()}"
    return autograd_impl
