"""``openreg.backends.openmp``: openreg's intra-op parallelism is its own thread pool (``openreg.set_num_threads``),
not OpenMP, so ``is_available()`` is False, as in a PyTorch build without OpenMP.

>>> import openreg
>>> openreg.backends.openmp.is_available()
False
"""
from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """False: openreg is not built with OpenMP."""
    return False
