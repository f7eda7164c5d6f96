"""``openreg._C``: the few ``torch._C`` functions that libraries call from Python.

PyTorch's ``torch._C`` is its compiled extension; libraries reach into it for a handful of hooks.
``_log_api_usage_once(event)`` (called by every torchvision model and op) logs nothing unless a C++ logger is
installed, which never happens in openreg, so it only checks its argument; ``_get_tracing_state()`` is None while
no ``torch.jit.trace`` is running, which is always in openreg (``openreg.jit.trace`` runs the function eagerly).
Any other name raises an ``AttributeError`` naming it.

>>> import openreg
>>> openreg._C._log_api_usage_once("torchvision.models.resnet.ResNet")
>>> openreg._C._get_tracing_state() is None
True
"""
from __future__ import annotations

from typing import Any

__all__: list[str] = []


def _log_api_usage_once(event: str) -> None:
    """Record one use of an API: a no-op, as in PyTorch when no usage logger is set."""
    if not isinstance(event, str):
        raise TypeError(f"_log_api_usage_once(): argument 'event' must be str, not {type(event).__name__}")


def _get_tracing_state() -> None:
    """The active JIT tracing state: None, as openreg never traces."""
    return None


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"openreg._C has no {name!r}: openreg has no compiled extension module; "
                         "only _log_api_usage_once and _get_tracing_state are provided")
