"""``openreg.compile``: PyTorch's ``torch.compile`` signature; openreg runs every program eagerly, so the model comes
back unchanged (what PyTorch's ``backend="eager"`` amounts to), after the arguments are checked as PyTorch checks
them. Usable as a plain call and as a decorator with or without arguments.

>>> import openreg
>>> f = lambda x: x * 2
>>> openreg.compile(f) is f
True
>>> @openreg.compile(mode="max-autotune")
... def g(x):
...     return x + 1
>>> g(openreg.ones(1)).tolist()
[2.0]
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend: str | Callable = "inductor", mode: str | None = None,
            options: dict[str, Any] | None = None, disable: bool = False) -> Any:
    """Return ``model`` unchanged (or a decorator doing so when ``model`` is None)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if options is not None and backend == "inductor":
        from ._inductor import config
        config.check_options(options)
    if model is None:
        def decorate(fn: Callable) -> Callable:
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable)
        return decorate
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")  # noqa: TRY004 (PyTorch's)
    return model
