"""``openreg.backends.mps``: Apple's Metal device does not exist in openreg; ``is_available()`` and ``is_built()``
are False, as in a PyTorch build without MPS (programs commonly ask before choosing a device).

>>> import openreg
>>> openreg.backends.mps.is_available(), openreg.backends.mps.is_built()
(False, False)
"""
from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: no MPS device."""
    return False


def is_built() -> bool:
    """False: openreg is not built with MPS."""
    return False
