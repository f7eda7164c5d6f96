"""``nn.modules.module``: PyTorch's module path of the ``Module`` base class (defined in ``openreg.nn.module``).

>>> import openreg
>>> openreg.nn.modules.module.Module is openreg.nn.Module
True
"""
from ..module import Module

__all__ = ["Module"]
