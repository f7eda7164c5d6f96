"""``openreg.amp``: automatic mixed precision (``torch.amp``): ``autocast``, ``GradScaler``, ``custom_fwd`` /
``custom_bwd`` and ``is_autocast_available``.

>>> import openreg
>>> with openreg.amp.autocast("cpu"):
...     (openreg.ones(2, 2) @ openreg.ones(2, 2)).dtype
openreg.bfloat16
"""
from .autocast_mode import autocast, custom_bwd, custom_fwd
from .grad_scaler import GradScaler
from .state import is_autocast_available

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
