"""``openreg.nn.functional``: functional forms of the neural-network operations.

>>> import openreg
>>> callable(openreg.nn.functional.scaled_dot_product_attention)
True
"""
from __future__ import annotations

from .attention import scaled_dot_product_attention  # noqa: F401
