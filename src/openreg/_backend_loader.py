"""Autoloading of the PrivateUse1 device backend at ``import openreg``.

The device package (``openreg.backends.privateuseone``) registers its kernels, hooks and device module;
a failure there must never break ``import openreg`` on a machine without a GPU, so it is reported as a
warning and the device is left unregistered.
"""
from __future__ import annotations

import importlib
import warnings


def load_device_backend() -> bool:
    try:
        module = importlib.import_module("openreg.backends.privateuseone")
    except ImportError as exc:  # pragma: no cover - only when the package is broken
        warnings.warn(f"openreg: the PrivateUse1 device backend could not be loaded: {exc}", RuntimeWarning)
        return False
    register = getattr(module, "register", None)
    if register is not None:
        register()
    return True
