"""``openreg.backends.mkldnn``: PyTorch's oneDNN (MKL-DNN) flags as plain settable module attributes (``enabled``,
``deterministic``, ``allow_tf32``) and ``flags(...)`` to set them for a block. openreg does not use oneDNN, so
``is_available()`` is False, as in a PyTorch build without it; the flags are kept so that programs toggling them run.

>>> import openreg
>>> openreg.backends.mkldnn.is_available(), openreg.backends.mkldnn.enabled
(False, True)
>>> with openreg.backends.mkldnn.flags(enabled=False):
...     openreg.backends.mkldnn.enabled
False
>>> openreg.backends.mkldnn.enabled
True
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION", "allow_tf32", "deterministic", "enabled", "flags",
           "is_acl_available", "is_available", "set_flags", "verbose"]

enabled = True
deterministic = False
allow_tf32 = True

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available() -> bool:
    """False: openreg is not built with oneDNN."""
    return False


def is_acl_available() -> bool:
    """False: no oneDNN, so no oneDNN + ACL either."""
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none") -> tuple:
    """Set the given flags (``None`` keeps one) and return the previous ``(enabled, deterministic, allow_tf32)``."""
    module = sys.modules[__name__]
    previous = (module.enabled, module.deterministic, module.allow_tf32)
    for name, value in (("enabled", _enabled), ("deterministic", _deterministic), ("allow_tf32", _allow_tf32)):
        if value is not None:
            setattr(module, name, bool(value))
    return previous


@contextmanager
def flags(enabled: bool = False, deterministic: bool = False, allow_tf32: bool = True,
          fp32_precision: str = "none") -> Iterator[None]:
    """Set the flags for the duration of a ``with`` block (PyTorch's defaults for the arguments)."""
    previous = set_flags(enabled, deterministic, allow_tf32)
    try:
        yield
    finally:
        set_flags(*previous)


class verbose:
    """On-demand oneDNN verbosing for a block: ``VERBOSE_OFF`` is accepted; asking for more raises, as PyTorch does
    when it cannot set oneDNN's verbose mode."""

    def __init__(self, level: int) -> None:
        self.level = level

    def __enter__(self):
        if self.level == VERBOSE_OFF:
            return
        raise AssertionError("Failed to set MKLDNN into verbose mode. Please consider to disable this verbose scope.")

    def __exit__(self, *exc) -> bool:
        return False
