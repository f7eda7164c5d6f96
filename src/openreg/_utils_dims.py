"""Dimension wrapping shared by tensor methods and kernels.

>>> from openreg._utils_dims import wrap_dim
>>> wrap_dim(-1, 3)
2
"""
from .aten.meta_rules import wrap_dim

__all__ = ["wrap_dim"]
