"""Thread-local dispatch state: keys included in or excluded from every key set computed on this thread.

>>> from openreg._dispatch import tls
>>> from openreg._dispatch.keys import AUTOGRAD_MASK
>>> with tls.exclude_keys(AUTOGRAD_MASK):
...     bool(tls.state.exclude & AUTOGRAD_MASK)
True
"""
from __future__ import annotations

import contextlib
import threading

from .keys import AUTOCAST_MASK, DispatchKey, keyset


class _State(threading.local):
    # Class attributes are the per-thread defaults.
    include = keyset(DispatchKey.BackendSelect, DispatchKey.ADInplaceOrView)  # as in PyTorch
    exclude = AUTOCAST_MASK  # AutocastCPU | AutocastPrivateUse1 until autocast is enabled


state = _State()


@contextlib.contextmanager
def exclude_keys(mask: int):
    """Remove ``mask`` from every key set computed inside the block (PyTorch's ExcludeDispatchKeyGuard)."""
    old = state.exclude
    state.exclude = old | mask
    try:
        yield
    finally:
        state.exclude = old


@contextlib.contextmanager
def include_keys(mask: int):
    """Add ``mask`` to every key set computed inside the block (PyTorch's IncludeDispatchKeyGuard)."""
    old = state.include
    state.include = old | mask
    try:
        yield
    finally:
        state.include = old
