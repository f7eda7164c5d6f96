"""``openreg._dynamo``: the ``torch._dynamo`` entry points programs call around ``torch.compile``.

``openreg.compile`` runs every model eagerly, so no frame is ever traced: ``is_compiling()`` is False, ``disable``
wraps a function that then runs as it is (marked ``_torchdynamo_disable`` as PyTorch marks it), ``allow_in_graph``
and ``assume_constant_result`` mark and return the function, ``mark_dynamic``/``maybe_mark_dynamic``/
``mark_static`` record the dimensions on the tensor where PyTorch records them (``_dynamo_dynamic_indices``, ...),
and ``reset()`` has no compiled code to drop (it restores nothing in ``config``, as in PyTorch).

>>> import openreg
>>> import openreg._dynamo as dynamo
>>> f = dynamo.disable(lambda x: x + 1)
>>> f(openreg.ones(1)).tolist(), f._torchdynamo_disable, dynamo.is_compiling()
([2.0], True, False)
>>> x = openreg.ones(2, 3)
>>> dynamo.mark_dynamic(x, 0)
>>> x._dynamo_dynamic_indices
{0}
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from . import config

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "disable",
    "disallow_in_graph",
    "graph_break",
    "is_compiling",
    "is_dynamo_supported",
    "mark_dynamic",
    "mark_static",
    "maybe_mark_dynamic",
    "reset",
]


def is_compiling() -> bool:
    """False: openreg traces no frame (``openreg.compile`` is eager)."""
    return False


def is_dynamo_supported() -> bool:
    """True: ``openreg.compile`` accepts every program (and runs it eagerly)."""
    return True


def reset() -> None:
    """Drop compiled code and guards: ``openreg.compile`` keeps none, so there is nothing to drop.

    >>> import openreg._dynamo
    >>> openreg._dynamo.reset()
    """


def _disable_one(fn: Callable, recursive: bool) -> Callable:
    if not callable(fn):
        raise AssertionError(f"A callable function is expected, but {type(fn)} is provided.")  # noqa: TRY004 (PyTorch's)
    if getattr(fn, "_torchdynamo_disable", False):
        return fn

    @functools.wraps(fn)
    def disabled(*args, **kwargs):
        return fn(*args, **kwargs)
    disabled._torchdynamo_disable = True              # PyTorch's marker
    disabled._torchdynamo_disable_recursive = recursive
    disabled._torchdynamo_orig_callable = fn
    return disabled


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None,
            wrapping: bool = True) -> Any:
    """``fn`` wrapped so that the compiler leaves it alone (it always runs eagerly in openreg); without ``fn``, a
    decorator doing that.

    >>> import openreg._dynamo
    >>> @openreg._dynamo.disable(recursive=False)
    ... def g(x):
    ...     return 2 * x
    >>> g(3), g._torchdynamo_disable
    (6, True)
    """
    if fn is None:
        return functools.partial(_disable_one, recursive=recursive)
    return _disable_one(fn, recursive)


def allow_in_graph(fn: Callable) -> Callable:
    """Mark ``fn`` to be put into compiled graphs as it is; returns ``fn`` (a list or tuple: each element)."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(f) for f in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")  # noqa: TRY004 (PyTorch's)
    return fn


def disallow_in_graph(fn: Callable) -> Callable:
    """Mark ``fn`` to be traced into (never put into a graph as it is); returns ``fn``."""
    if isinstance(fn, (list, tuple)):
        return [disallow_in_graph(f) for f in fn]
    if not callable(fn):
        raise AssertionError("disallow_in_graph expects a callable")  # noqa: TRY004 (PyTorch's)
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    """Mark ``fn``'s result as a constant for tracing (``fn._dynamo_marked_constant``); returns ``fn``."""
    fn._dynamo_marked_constant = True
    return fn


def graph_break(msg: str = "") -> None:
    """Where a traced frame would be split; eager code runs on."""


class _DimRange(NamedTuple):
    dim: int
    min: int | None
    max: int | None


def _indices(index) -> list[int]:
    return list(index) if isinstance(index, (list, tuple)) else [index]


def mark_dynamic(t: Any, index: int | list | tuple, *, hint_override: int | None = None, min: int | None = None,
                 max: int | None = None, specialize_on: list | None = None) -> None:
    """Record dimension(s) ``index`` of ``t`` as dynamic (``t._dynamo_dynamic_indices``, with its ``min``/``max`` range in
    ``t._dynamo_dynamic_range``)."""
    for i in _indices(index):
        if not hasattr(t, "_dynamo_dynamic_indices"):
            t._dynamo_dynamic_indices = set()
            t._dynamo_dynamic_range = set()
        t._dynamo_dynamic_indices.add(i)
        t._dynamo_dynamic_range.add(_DimRange(i, min, max))


def maybe_mark_dynamic(t: Any, index: int | list | tuple) -> None:
    """Record dimension(s) ``index`` of ``t`` as dynamic if possible (``t._dynamo_weak_dynamic_indices``)."""
    for i in _indices(index):
        if not hasattr(t, "_dynamo_weak_dynamic_indices"):
            t._dynamo_weak_dynamic_indices = set()
        t._dynamo_weak_dynamic_indices.add(i)


def mark_static(t: Any, index: int | list | tuple | None = None) -> None:
    """Record dimension(s) ``index`` of tensor ``t`` as static (``t._dynamo_static_indices``); a module or class
    without ``index`` is marked static as a whole (``_dynamo_marked_static``)."""
    from ..tensor import Tensor
    if not isinstance(t, Tensor):
        if index is not None:
            raise AssertionError("mark_static on a module or class takes no index")
        t._dynamo_marked_static = True
        return
    for i in _indices(index):
        if not hasattr(t, "_dynamo_static_indices"):
            t._dynamo_static_indices = set()
        t._dynamo_static_indices.add(i)
