"""``openreg.cuda.amp``: PyTorch's deprecated ``torch.cuda.amp`` aliases (each warns ``FutureWarning``).

>>> import warnings, openreg
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     scaler = openreg.cuda.amp.GradScaler(enabled=False)
>>> w[0].category.__name__, "openreg.amp.GradScaler('cuda', args...)" in str(w[0].message)
('FutureWarning', True)
"""
from __future__ import annotations

import warnings

from . import dtypes
from .amp import autocast_mode as _autocast_mode
from .amp import grad_scaler as _grad_scaler


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`openreg.cuda.amp.{old}(args...)` is deprecated. Please use `openreg.amp.{new}` instead.",
                  FutureWarning, stacklevel=3)


class autocast(_autocast_mode.autocast):
    """``openreg.amp.autocast("cuda", ...)`` under its deprecated name."""

    def __init__(self, enabled: bool = True, dtype=dtypes.float16, cache_enabled: bool = True):
        _deprecated("autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """``openreg.amp.GradScaler("cuda", ...)`` under its deprecated name."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _deprecated("GradScaler", "GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``openreg.amp.custom_fwd(device_type="cuda")`` under its deprecated name."""
    _deprecated("custom_fwd", "custom_fwd(args..., device_type='cuda')")
    return _autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``openreg.amp.custom_bwd(device_type="cuda")`` under its deprecated name."""
    _deprecated("custom_bwd", "custom_bwd(args..., device_type='cuda')")
    return _autocast_mode.custom_bwd(bwd, device_type="cuda")


__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]
