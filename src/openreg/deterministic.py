"""``openreg.use_deterministic_algorithms``: the switch PyTorch programs set for reproducible runs.

openreg's CPU and emulated-device kernels are deterministic. On the cuda driver the accumulating scatters
(``index_add``, ``scatter_add``, ``index_put(accumulate=True)``, embedding gradients: CuPy's ``add.at``, whose
atomic adds sum in no fixed order) are not: with the switch on they raise ``RuntimeError`` (or warn with
``warn_only=True``), as PyTorch's nondeterministic CUDA kernels do.

>>> import openreg
>>> openreg.use_deterministic_algorithms(True)
>>> openreg.are_deterministic_algorithms_enabled(), openreg.get_deterministic_debug_mode()
(True, 2)
>>> openreg.use_deterministic_algorithms(False)
"""
from __future__ import annotations

import warnings

__all__ = ["alert_not_deterministic", "are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "use_deterministic_algorithms"]

_state = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Refuse (or with ``warn_only`` warn about) operations without a deterministic implementation."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _state["enabled"], _state["warn_only"] = mode, bool(warn_only) and mode


def are_deterministic_algorithms_enabled() -> bool:
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """``0``/``"default"`` off, ``1``/``"warn"`` warn only, ``2``/``"error"`` on."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    return 0 if not _state["enabled"] else 1 if _state["warn_only"] else 2


def alert_not_deterministic(caller: str) -> None:
    """Called by a kernel that is about to run a nondeterministic implementation."""
    if not _state["enabled"]:
        return
    message = (f"{caller} does not have a deterministic implementation, but you set "
               f"'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, "
               f"or you can use the 'warn_only=True' option, if that's acceptable for your application.")
    if _state["warn_only"]:
        warnings.warn(message, UserWarning, stacklevel=3)
    else:
        raise RuntimeError(message)
