"""``openreg.backends.cudnn``: PyTorch's cuDNN flags as plain settable module attributes (``enabled``,
``benchmark``, ``deterministic``, ``allow_tf32``, ``benchmark_limit``) and ``flags(...)`` to set some for a block.
openreg does not use cuDNN, so ``is_available()`` is False and ``version()`` is None, as in a PyTorch build without
it; the flags are kept so that programs setting them run unchanged.

>>> import openreg
>>> openreg.backends.cudnn.benchmark, openreg.backends.cudnn.allow_tf32, openreg.backends.cudnn.is_available()
(False, True, False)
>>> with openreg.backends.cudnn.flags(enabled=True, deterministic=True):
...     openreg.backends.cudnn.deterministic
True
>>> openreg.backends.cudnn.deterministic
False
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags", "is_available",
           "version"]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: openreg has no cuDNN."""
    return False


def version() -> None:
    """None: no cuDNN library is loaded."""


@contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
          allow_tf32: bool = True) -> Iterator[None]:
    """Set the flags for the duration of a ``with`` block (PyTorch's defaults for the arguments)."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    saved = {n: getattr(module, n) for n in names}
    new = dict(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    for n, v in new.items():
        setattr(module, n, v)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(module, n, v)
