"""Shared pytest fixtures.

``devices`` parametrizes a test over "cpu" and, when the PrivateUse1 backend reports itself available,
"privateuseone" (skipped otherwise).
"""
from __future__ import annotations

import pytest

import openreg


def _privateuse1_available() -> bool:
    mod = getattr(openreg, "privateuseone", None)
    is_available = getattr(mod, "is_available", None)
    try:
        return bool(is_available()) if callable(is_available) else False
    except (RuntimeError, OSError, ImportError):  # a half-initialised device module counts as unavailable
        return False


@pytest.fixture(params=["cpu", pytest.param("privateuseone", marks=pytest.mark.skipif(
    not _privateuse1_available(), reason="PrivateUse1 backend not available"))])
def devices(request) -> str:
    """The device string to run a test on."""
    return request.param


def pytest_configure(config) -> None:
    """``openreg.utils.tensorboard`` raises ImportError without the optional 'tensorboard' package (as PyTorch's
    module does), so its doctests are collected only where the package is installed."""
    import importlib.util
    if importlib.util.find_spec("tensorboard") is None:
        config.option.ignore_glob = [*(config.option.ignore_glob or []), "*/openreg/utils/tensorboard/*"]
