"""Process-wide switches PyTorch keeps at the top level: inter-op threads, flushing denormals, warn-always.

openreg runs one operator at a time per Python thread, so the inter-op pool is only a number that programs set
and read back, with PyTorch's rules: positive, settable once, before any parallel work (openreg: any time before
the first ``set``). Flushing denormals needs control of the FPU's mode register, which NumPy does not give, so
``set_flush_denormal(True)`` returns False as PyTorch does on a CPU without the SSE3 switch.

>>> import openreg
>>> openreg.get_num_interop_threads() >= 1
True
>>> openreg.set_flush_denormal(True)
False
>>> openreg.set_warn_always(True); openreg.is_warn_always_enabled()
True
>>> openreg.set_warn_always(False)
"""
from __future__ import annotations

from ._threads import _default_threads

__all__ = ["get_num_interop_threads", "is_warn_always_enabled", "set_flush_denormal", "set_num_interop_threads",
           "set_warn_always"]

_interop = {"threads": _default_threads(), "set": False}
_warn_always = [False]


def get_num_interop_threads() -> int:
    """The number of inter-op threads (the cores this process may use unless set).

    >>> import openreg
    >>> isinstance(openreg.get_num_interop_threads(), int)
    True
    """
    return _interop["threads"]


def set_num_interop_threads(num: int) -> None:
    """Set the number of inter-op threads; as PyTorch, it must be positive and can be set only once."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise TypeError(f"set_num_interop_threads(): argument 'num' must be int, not {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    if _interop["set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop.update(threads=num, set=True)


def set_flush_denormal(mode: bool) -> bool:
    """Whether denormal floats can be flushed to zero: False (openreg cannot set the FPU's flush mode), as PyTorch
    returns on CPUs without that switch; ``set_flush_denormal(False)`` is what already holds, so it returns True.

    >>> import openreg
    >>> openreg.set_flush_denormal(False)
    True
    """
    return not mode


def set_warn_always(b: bool) -> None:
    """Make warnings that are normally given once per process (openreg's CPU-fallback warning) appear every time.

    >>> import openreg
    >>> openreg.set_warn_always(False); openreg.is_warn_always_enabled()
    False
    """
    _warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in effect."""
    return _warn_always[0]
