"""``openreg._dynamo.config``: the settings of ``torch._dynamo.config`` that programs commonly read or assign.

openreg compiles nothing (``openreg.compile`` runs the model eagerly), so these settings guide no compiler; they
are kept, read back and patched as in PyTorch so that programs tuning them run. As in PyTorch, only known
settings exist (an unknown name raises ``AttributeError``), ``cache_size_limit`` is another name of
``recompile_limit`` (and ``accumulated_cache_size_limit`` of ``accumulated_recompile_limit``), and ``patch``
sets values for a ``with`` block or a decorated function.

>>> import openreg._dynamo
>>> cfg = openreg._dynamo.config
>>> cfg.suppress_errors, cfg.cache_size_limit
(False, 8)
>>> with cfg.patch(cache_size_limit=64):
...     cfg.recompile_limit
64
>>> cfg.recompile_limit
8
"""
from __future__ import annotations

import contextlib
import copy
import sys
import types
from typing import Any

_DEFAULTS: dict[str, Any] = {
    "accumulated_recompile_limit": 256,
    "allow_rnn": False,
    "assume_static_by_default": True,
    "automatic_dynamic_shapes": True,
    "capture_dynamic_output_shape_ops": False,
    "capture_func_transforms": True,
    "capture_scalar_outputs": False,
    "compiled_autograd": False,
    "cprofile": False,
    "disable": False,
    "dynamic_shapes": True,
    "error_on_recompile": False,
    "fail_on_recompile_limit_hit": False,
    "force_parameter_static_shapes": True,
    "guard_nn_modules": True,
    "inline_inbuilt_nn_modules": True,
    "log_file_name": None,
    "minimum_call_count": 1,
    "optimize_ddp": True,
    "raise_on_ctx_manager_usage": True,
    "recompile_limit": 8,
    "replay_record_enabled": False,
    "rewrite_assert_with_torch_assert": True,
    "specialize_float": False,
    "specialize_int": False,
    "suppress_errors": False,
    "trace_numpy": True,
    "use_numpy_random_stream": False,
    "verbose": False,
    "verify_correctness": False,
}
_ALIASES = {"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"}
_values: dict[str, Any] = copy.deepcopy(_DEFAULTS)


def _key(name: str) -> str:
    name = _ALIASES.get(name, name)
    if name not in _values:
        raise AttributeError(f"{__name__}.{name} does not exist")
    return name


def get_config_copy() -> dict[str, Any]:
    """A copy of every setting (aliases excluded), by name.

    >>> import openreg._dynamo
    >>> openreg._dynamo.config.get_config_copy()["verbose"]
    False
    """
    return copy.deepcopy(_values)


def load_config(config: dict[str, Any]) -> None:
    """Set the settings named in ``config`` (a dict as ``get_config_copy`` returns)."""
    for name, value in config.items():
        _values[_key(name)] = value


class _Patch(contextlib.ContextDecorator):
    def __init__(self, changes: dict[str, Any]) -> None:
        self.changes = {_key(name): value for name, value in changes.items()}   # unknown names fail here
        self.saved: list[dict[str, Any]] = []

    def __enter__(self) -> None:
        self.saved.append({name: _values[name] for name in self.changes})
        _values.update(self.changes)

    def __exit__(self, *exc) -> None:
        _values.update(self.saved.pop())


def patch(arg1: str | dict[str, Any] | None = None, arg2: Any = None, **kwargs: Any) -> _Patch:
    """Set settings for a ``with`` block or a decorated function: ``patch("verbose", True)``,
    ``patch({"verbose": True})`` or ``patch(verbose=True)``.

    >>> import openreg._dynamo
    >>> @openreg._dynamo.config.patch(verbose=True)
    ... def f():
    ...     return openreg._dynamo.config.verbose
    >>> f(), openreg._dynamo.config.verbose
    (True, False)
    """
    if isinstance(arg1, str):
        changes = {arg1: arg2}
    elif isinstance(arg1, dict):
        changes = dict(arg1)
    elif arg1 is None:
        changes = {}
    else:
        raise AssertionError(f"patch expects a setting name or a dict, got {type(arg1).__name__}")
    changes.update(kwargs)
    return _Patch(changes)


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _values[_key(name)]

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or name in ("get_config_copy", "load_config", "patch"):
            super().__setattr__(name, value)
            return
        _values[_key(name)] = value

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(_values) | set(_ALIASES))


sys.modules[__name__].__class__ = _ConfigModule
