"""Where the CPU backend's arrays come from: NumPy allocates them with the C library's ``malloc``.

A training step allocates and frees many temporaries of a few hundred kilobytes to megabytes. With glibc's
defaults, each time the heap's free top exceeds the trim threshold it is handed back to the kernel, and the next
step's temporaries fault it in again, page by page (the GPT example's CPU step spent about a quarter of its time
in the kernel doing that). The CPU backend therefore asks glibc to keep a *top pad* of ``DEFAULT_TOP_PAD`` bytes
when it trims and grows the heap (``mallopt(M_TOP_PAD)``), once, when it registers: memory a step freed is reused
by the next step without a page fault. Peak resident memory does not change (the pad is address space until
used).

``OPENREG_CPU_TOP_PAD=<bytes>`` sets another pad (``0`` leaves glibc's defaults); a ``MALLOC_TOP_PAD_`` or
``GLIBC_TUNABLES`` setting of the process is respected as it is. On other C libraries nothing changes.

>>> from openreg.backends.cpu import memory
>>> memory.top_pad_setting({"OPENREG_CPU_TOP_PAD": "0"}) is None
True
>>> memory.top_pad_setting({}) == memory.DEFAULT_TOP_PAD
True
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

DEFAULT_TOP_PAD = 64 << 20
_M_TOP_PAD = -2          # glibc's mallopt parameter number


def top_pad_setting(environ=os.environ) -> int | None:
    """The top pad to set in bytes, or None: the user's own malloc settings (or ``OPENREG_CPU_TOP_PAD=0``)
    win."""
    if "MALLOC_TOP_PAD_" in environ or "malloc." in environ.get("GLIBC_TUNABLES", ""):
        return None
    value = environ.get("OPENREG_CPU_TOP_PAD")
    if value is None:
        return DEFAULT_TOP_PAD
    try:
        pad = int(value)
    except ValueError:
        raise ValueError(f"OPENREG_CPU_TOP_PAD must be a number of bytes, got {value!r}") from None
    return pad if pad > 0 else None


def configure_malloc() -> bool:
    """Set glibc's top pad (see the module docstring); True when it was set."""
    pad = top_pad_setting()
    if pad is None or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        gnu = getattr(libc, "gnu_get_libc_version", None)
        mallopt = getattr(libc, "mallopt", None)
    except OSError:
        return False
    if gnu is None or mallopt is None:       # not glibc (musl has no mallopt tuning of this kind)
        return False
    return bool(mallopt(_M_TOP_PAD, min(pad, 2**31 - 1)))
