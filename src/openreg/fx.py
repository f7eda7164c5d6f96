"""``openreg.fx``: the part of ``torch.fx`` that eager programs call at import time.

Libraries mark helpers as FX "leaf functions" with ``torch.fx.wrap`` at module level (torchvision's
``stochastic_depth``, timm's layers, ...). ``wrap`` checks its argument and where it is called as PyTorch does,
records the name and returns its argument unchanged, which is all it does outside symbolic tracing. openreg runs
every program eagerly and has no FX graph capture: ``symbolic_trace``, ``Tracer``, ``Graph``, ``GraphModule`` and
the rest raise an ``AttributeError`` that says so.

>>> import openreg
>>> def leaf(x):
...     return x * 2
>>> openreg.fx.wrap(leaf) is leaf
True
>>> openreg.fx.wrap(3)
Traceback (most recent call last):
    ...
RuntimeError: Unsupported type for global function! Must be either a callable or string name
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["wrap"]

# (id of the calling module's globals, function name) -> those globals, as PyTorch keeps them for its tracer
_wrapped_fns_to_patch: dict[tuple[int, str], dict[str, Any]] = {}


def wrap(fn_or_name: str | Callable[..., Any]) -> str | Callable[..., Any]:
    """Register a module-level function (or its name) as an FX leaf function and return it unchanged.

    Must be called at the top level of a module, as in PyTorch (``NotImplementedError`` otherwise).
    """
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    fn_name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(caller.f_globals), fn_name)] = caller.f_globals
    return fn_or_name


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        f"openreg.fx has no {name!r}: FX graph capture (symbolic_trace, Tracer, GraphModule, ...) is not supported; "
        "openreg runs programs eagerly")
