"""``openreg.compiler``: the ``torch.compiler`` functions, for openreg's eager ``openreg.compile``.

Nothing is ever traced, so ``is_compiling()``, ``is_dynamo_compiling()`` and ``is_exporting()`` are False;
``disable``, ``allow_in_graph``, ``assume_constant_result`` and ``reset`` are ``openreg._dynamo``'s.
``cudagraph_mark_step_begin()`` starts a new step of CUDA-graph trees; openreg records no CUDA graphs, so it only
advances the step counter (``step_count()``), as PyTorch's does when no graph was recorded.

>>> import openreg
>>> @openreg.compiler.disable
... def f(x):
...     return x * 2
>>> f(openreg.ones(2)).tolist(), openreg.compiler.is_compiling()
([2.0, 2.0], False)
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _dynamo
from ._dynamo import allow_in_graph, assume_constant_result, is_compiling

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "cudagraph_mark_step_begin",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "reset",
]

_steps = 0


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """``fn`` (or, without it, a decorator) that the compiler leaves alone; see ``openreg._dynamo.disable``."""
    return _dynamo.disable(fn, recursive, reason=reason)


def reset() -> None:
    """Drop compiled code: ``openreg._dynamo.reset()``."""
    _dynamo.reset()


def is_dynamo_compiling() -> bool:
    """False: openreg traces no frame."""
    return False


def is_exporting() -> bool:
    """False: openreg does not export graphs."""
    return False


def cudagraph_mark_step_begin() -> None:
    """Mark the start of a new step (inference or training iteration) for CUDA-graph trees.

    >>> import openreg
    >>> n = openreg.compiler.step_count()
    >>> openreg.compiler.cudagraph_mark_step_begin()
    >>> openreg.compiler.step_count() - n
    1
    """
    global _steps
    _steps += 1


def step_count() -> int:
    """How many steps ``cudagraph_mark_step_begin`` has begun."""
    return _steps


