"""Choosing the PrivateUse1 driver: ``OPENREG_DRIVER=cuda|emulated`` forces one; otherwise ``cuda`` when
CuPy's runtime finds a usable GPU and ``emulated`` everywhere else.

Detection catches every error (no CuPy, no driver library, no device ...): it never fails. The driver is
created on first use, not at ``import openreg``.

>>> from openreg.backends.privateuseone import driver_select
>>> driver_select.driver_name() in ("cuda", "emulated")
True
"""
from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from .driver import Driver

_lock = threading.Lock()
_driver: Driver | None = None
_error: BaseException | None = None
_on_switch: list = []     # callables run when ``use_driver`` swaps the driver (caches of driver objects)


def on_driver_switch(fn) -> None:
    """Call ``fn()`` whenever ``use_driver`` swaps the process's driver (to drop cached driver objects)."""
    _on_switch.append(fn)


def _switched() -> None:
    for fn in _on_switch:
        fn()


def cuda_usable() -> bool:
    """Whether CuPy is installed and its runtime sees at least one GPU (any failure means no)."""
    try:
        import cupy
        return int(cupy.cuda.runtime.getDeviceCount()) > 0
    except Exception:  # noqa: BLE001 - ImportError, CUDARuntimeError, missing libcuda ... (never Ctrl-C)
        return False


def requested_name() -> str:
    """The driver that will be used: forced by ``OPENREG_DRIVER`` or detected."""
    forced = os.environ.get("OPENREG_DRIVER", "").strip().lower()
    if forced in ("cuda", "emulated"):
        return forced
    if forced:
        raise RuntimeError(f"OPENREG_DRIVER must be 'cuda' or 'emulated', got {forced!r}")
    return "cuda" if cuda_usable() else "emulated"


def _create(name: str) -> Driver:
    if name == "cuda":
        from .cuda_driver import CudaDriver
        return CudaDriver()
    from .emulated_driver import EmulatedDriver
    return EmulatedDriver()


def get_driver() -> Driver:
    """The process's driver (created on first call).

    >>> from openreg.backends.privateuseone.driver_select import get_driver
    >>> get_driver().device_count() >= 1
    True
    """
    global _driver, _error
    drv = _driver
    if drv is not None:
        return drv
    with _lock:
        if _driver is None:
            name = requested_name()
            try:
                _driver = _create(name)
            except Exception as exc:
                _error = exc
                raise RuntimeError(f"The '{name}' PrivateUse1 driver could not be initialised: {exc}. Unset "
                                   f"OPENREG_DRIVER (or set OPENREG_DRIVER=emulated) to use the emulated "
                                   f"driver.") from exc
        return _driver


def driver_name() -> str:
    """``"cuda"`` or ``"emulated"``: the driver in use (or that would be used)."""
    return _driver.name if _driver is not None else requested_name()


def available() -> bool:
    """Whether a driver can be created."""
    try:
        get_driver()
    except Exception:  # noqa: BLE001
        return False
    return True


@contextlib.contextmanager
def use_driver(driver: Driver) -> Iterator[Driver]:
    """Swap the process's driver inside the block (tests: e.g. the cuda driver over a fake CuPy).

    Storages allocated inside must be dropped before the block ends; the allocator is swapped too.
    """
    global _driver
    from . import allocator
    old, old_alloc = _driver, allocator._allocator
    _driver, allocator._allocator = driver, None
    _switched()
    try:
        yield driver
    finally:
        _driver, allocator._allocator = old, old_alloc
        _switched()


__all__ = ["available", "cuda_usable", "driver_name", "get_driver", "on_driver_switch", "requested_name",
           "use_driver"]
