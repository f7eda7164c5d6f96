"""A settings module as PyTorch's ``install_config_module`` makes them (``torch._dynamo.config``,
``torch._functorch.config``): known names only (an unknown one raises ``AttributeError``), optional aliases,
``get_config_copy``, ``load_config`` and ``patch`` (a ``with`` block or a decorator).

>>> import types
>>> m = types.ModuleType("demo_config")
>>> install(m, {"verbose": False}, {"chatty": "verbose"})
>>> with m.patch(chatty=True):
...     m.verbose
True
>>> m.verbose, m.get_config_copy()
(False, {'verbose': False})
"""
from __future__ import annotations

import contextlib
import copy
import types
from typing import Any


def install(module: types.ModuleType, defaults: dict[str, Any], aliases: dict[str, str] | None = None) -> None:
    """Turn ``module`` into a settings module holding ``defaults`` (``aliases``: other names of some settings)."""
    aliases = dict(aliases or {})
    values: dict[str, Any] = copy.deepcopy(defaults)
    name_of_module = module.__name__

    def key(name: str) -> str:
        name = aliases.get(name, name)
        if name not in values:
            raise AttributeError(f"{name_of_module}.{name} does not exist")
        return name

    def get_config_copy() -> dict[str, Any]:
        """A copy of every setting (aliases excluded), by name."""
        return copy.deepcopy(values)

    def load_config(config: dict[str, Any]) -> None:
        """Set the settings named in ``config`` (a dict as ``get_config_copy`` returns)."""
        for name, value in config.items():
            values[key(name)] = value

    class _Patch(contextlib.ContextDecorator):
        def __init__(self, changes: dict[str, Any]) -> None:
            self.changes = {key(name): value for name, value in changes.items()}   # unknown names fail here
            self.saved: list[dict[str, Any]] = []

        def __enter__(self) -> None:
            self.saved.append({name: values[name] for name in self.changes})
            values.update(self.changes)

        def __exit__(self, *exc) -> None:
            values.update(self.saved.pop())

    def patch(arg1: str | dict[str, Any] | None = None, arg2: Any = None, **kwargs: Any) -> _Patch:
        """Set settings for a ``with`` block or a decorated function: ``patch("name", value)``,
        ``patch({"name": value})`` or ``patch(name=value)``."""
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

    functions = {"get_config_copy": get_config_copy, "load_config": load_config, "patch": patch}

    class _SettingsModule(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return values[key(name)]

        def __setattr__(self, name: str, value: Any) -> None:
            if name.startswith("_") or name in functions:
                super().__setattr__(name, value)
                return
            values[key(name)] = value

        def __dir__(self) -> list[str]:
            return sorted(set(super().__dir__()) | set(values) | set(aliases))

    module.__dict__.update(functions)
    module.__class__ = _SettingsModule


__all__ = ["install"]
