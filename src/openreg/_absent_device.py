"""The one-line functions of a device module whose device openreg does not have (``openreg.xpu``, ``openreg.mtia``,
and ``openreg.cuda`` while the device is not named ``cuda``): PyTorch's answers of a build without that device.

Each module keeps its public names, docstrings and PyTorch's error texts; only how they are made is shared.

>>> from openreg._absent_device import availability, function
>>> is_available, device_count, is_initialized = availability("XPU")
>>> is_available(), device_count(), is_initialized.__doc__
(False, 0, 'False: the XPU device is never initialized.')
>>> init = function("init()", raises=lambda: AssertionError("Torch not compiled with XPU enabled"))
>>> init()
Traceback (most recent call last):
...
AssertionError: Torch not compiled with XPU enabled
"""
from __future__ import annotations

import ast
import copy
import inspect
from collections.abc import Callable
from typing import Any

_KINDS = {"*": inspect.Parameter.VAR_POSITIONAL, "**": inspect.Parameter.VAR_KEYWORD}


def _signature(params: str) -> inspect.Signature:
    """``"new_state, device='xpu'"`` -> its Signature (names, ``*args``/``**kwargs`` and literal defaults)."""
    out = []
    for p in (s.strip() for s in params.split(",")):
        if not p:
            continue
        name, eq, default = (s.strip() for s in p.partition("="))
        stars = name[:len(name) - len(name.lstrip("*"))]
        out.append(inspect.Parameter(name.lstrip("*"), _KINDS.get(stars, inspect.Parameter.POSITIONAL_OR_KEYWORD),
                                     default=ast.literal_eval(default) if eq else inspect.Parameter.empty))
    return inspect.Signature(out)


def function(spec: str, result: Any = None, *, raises: Callable[[], BaseException] | None = None,
             check: Callable[..., Any] | None = None, doc: str | None = None) -> Callable[..., Any]:
    """A function ``spec`` (``"name(params)"``) that binds its arguments as Python would (a wrong call raises
    TypeError), then raises ``raises()`` if given, else calls ``check(**arguments)`` if given and returns a fresh
    copy of ``result``."""
    name, _, params = spec.partition("(")
    sig = _signature(params.rstrip(")"))

    def call(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        if raises is not None:
            raise raises()
        if check is not None:
            check(**bound.arguments)
        return copy.copy(result)

    call.__name__ = call.__qualname__ = name
    call.__signature__ = sig
    call.__doc__ = doc if doc is not None else (
        "Needs the device, which does not exist: raises PyTorch's error." if raises is not None else None)
    return call


def availability(device: str) -> tuple[Callable[[], bool], Callable[[], int], Callable[[], bool]]:
    """``is_available``, ``device_count`` and ``is_initialized``: False, 0 and False."""
    return (function("is_available()", False, doc=f"False: no {device} device."),
            function("device_count()", 0, doc=f"0: no {device} device."),
            function("is_initialized()", False, doc=f"False: the {device} device is never initialized."))


def memory_queries(*names: str, stats: Any = None) -> tuple[Callable[..., Any], ...]:
    """``name(device=None)`` for each of ``names``: 0 bytes, or ``stats`` (a fresh copy) for ``memory_stats``."""
    return tuple(function(f"{name}(device=None)", {} if stats is None else stats,
                          doc="The statistics of the never-initialized device: empty.")
                 if name == "memory_stats" else
                 function(f"{name}(device=None)", 0,
                          doc="0 bytes: nothing is allocated on a device that does not exist.")
                 for name in names)


def _as_int(seed: Any) -> None:
    int(seed)


def accepted_seeds(device: str) -> tuple[Callable[..., None], ...]:
    """``manual_seed``, ``manual_seed_all``, ``seed`` and ``seed_all``, accepted with no generator to seed
    (PyTorch defers them until the device is initialized, which never happens)."""
    no_generator = f"Accepted; no {device} generator to seed."
    return (function("manual_seed(seed)", check=_as_int,
                     doc=f"Checked as an int and accepted; no {device} generator to seed (PyTorch defers it)."),
            function("manual_seed_all(seed)", check=_as_int,
                     doc=f"As ``manual_seed``, for every {device} device (none)."),
            function("seed()", doc=no_generator), function("seed_all()", doc=no_generator))
