"""``openreg.nn``: neural-network building blocks (``functional`` so far; modules come with autograd).

>>> import openreg
>>> openreg.nn.functional.scaled_dot_product_attention is openreg.nn.attention.scaled_dot_product_attention
True
"""
from . import attention, functional  # noqa: F401
