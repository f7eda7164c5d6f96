"""Dispatch modes (PyTorch's TorchDispatchMode): intercept every operator call below autograd.

>>> import openreg
>>> from openreg.utils.dispatch_mode import DispatchMode
>>> class Count(DispatchMode):
...     def __init__(self):
...         self.calls = []
...     def __torch_dispatch__(self, func, types, args, kwargs=None):
...         self.calls.append(func.name())
...         return func(*args, **(kwargs or {}))
>>> with Count() as mode:
...     _ = openreg.tensor([1.0]).abs()
>>> mode.calls
['aten::abs']
"""
from __future__ import annotations

import threading

from .._dispatch import tls
from .._dispatch.dispatcher import register_fallback
from .._dispatch.keys import DispatchKey

_PYTHON_BIT = 1 << DispatchKey.Python


class _ModeStack(threading.local):
    def __init__(self):
        self.modes: list = []


_stack = _ModeStack()


def _sync_include() -> None:
    if _stack.modes:
        tls.state.include |= _PYTHON_BIT
    else:
        tls.state.include &= ~_PYTHON_BIT


class DispatchMode:
    """Subclass and define ``__torch_dispatch__(self, func, types, args, kwargs)``; use as a context manager.

    Inside ``__torch_dispatch__`` the mode itself is disabled, so calling ``func`` runs the real kernel
    (or the next mode down the stack).
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError("DispatchMode subclasses must implement __torch_dispatch__")

    def __enter__(self):
        _stack.modes.append(self)
        _sync_include()
        return self

    def __exit__(self, exc_type, exc, tb):
        if not _stack.modes or _stack.modes[-1] is not self:
            raise RuntimeError("DispatchMode exited out of order: modes must be exited innermost first")
        _stack.modes.pop()
        _sync_include()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def current_modes() -> list:
    return list(_stack.modes)


def _python_key_fallback(op, ks, args, kwargs):
    mode = _stack.modes.pop()
    _sync_include()
    try:
        types = tuple({type(a) for a in args if hasattr(a, "_ks")})
        return mode.__torch_dispatch__(op, types, args, kwargs)
    finally:
        _stack.modes.append(mode)
        _sync_include()


_handle = register_fallback(DispatchKey.Python, _python_key_fallback, site="openreg DispatchMode")
