"""``openreg._functorch``: where PyTorch keeps the settings of its AOT-autograd compiler stage
(``torch._functorch.config``), which programs set before ``torch.compile``.

>>> import openreg._functorch.config as config
>>> config.enable_autograd_cache
True
"""
from __future__ import annotations

from . import config

__all__ = ["config"]
