"""``openreg.cpu.amp``: PyTorch's deprecated ``torch.cpu.amp`` aliases (each warns ``FutureWarning``).

>>> import warnings, openreg
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     with openreg.cpu.amp.autocast():
...         openreg.is_autocast_enabled("cpu")
True
>>> w[0].category.__name__
'FutureWarning'
"""
from __future__ import annotations

import warnings

from .. import dtypes
from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler

__all__ = ["GradScaler", "autocast"]


class autocast(_autocast_mode.autocast):
    """``openreg.amp.autocast("cpu", ...)`` under its deprecated name."""

    def __init__(self, enabled: bool = True, dtype=dtypes.bfloat16, cache_enabled: bool = True):
        warnings.warn("`openreg.cpu.amp.autocast(args...)` is deprecated. Please use `openreg.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """``openreg.amp.GradScaler("cpu", ...)`` under its deprecated name."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`openreg.cpu.amp.GradScaler(args...)` is deprecated. Please use `openreg.amp.GradScaler('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
