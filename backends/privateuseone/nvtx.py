"""``openreg.<device>.nvtx``: NVTX-style annotations. openreg has no NVIDIA tools extension to send them to, so a
range is a ``user_annotation`` event of ``openreg.profiler`` (the same as ``record_function``): visible in an
active profile's tables and Chrome traces, and costing nothing otherwise.

>>> import openreg
>>> nvtx = getattr(openreg, openreg.utils.get_privateuse1_backend_name()).nvtx
>>> nvtx.range_push("step"), nvtx.range_push("forward"), nvtx.range_pop(), nvtx.range_pop(), nvtx.range_pop()
(0, 1, 1, 0, -1)
>>> with nvtx.range("block {}", 3):
...     pass
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def record_function(name: str):
    from openreg.profiler import record_function as rf  # imported on use: the device module loads first
    return rf(name)

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]

_local = threading.local()
_started: dict[int, object] = {}
_ids = itertools.count(1)


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def range_push(msg: str) -> int:
    """Open a nested range named ``msg``; returns its depth (0 for the outermost)."""
    rf = record_function(msg)
    rf.__enter__()
    stack = _stack()
    stack.append(rf)
    return len(stack) - 1


def range_pop() -> int:
    """Close the innermost open range; returns its depth, or -1 when none is open (as NVTX)."""
    stack = _stack()
    if not stack:
        return -1
    stack.pop().__exit__(None, None, None)
    return len(stack)


def range_start(msg: str) -> int:
    """Open a range that may end on another thread; returns its id for ``range_end``."""
    rf = record_function(msg)
    rf.__enter__()
    rid = next(_ids)
    _started[rid] = rf
    return rid


def range_end(range_id: int) -> None:
    """Close the range ``range_start`` returned ``range_id`` for."""
    rf = _started.pop(range_id, None)
    if rf is not None:
        rf.__exit__(None, None, None)


def mark(msg: str) -> None:
    """An instantaneous event named ``msg``."""
    with record_function(msg):
        pass


@contextmanager
def range(msg: str, *args, **kwargs) -> Iterator[None]:
    """A range for the ``with`` block, named ``msg.format(*args, **kwargs)``."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
