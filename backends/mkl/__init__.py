"""``openreg.backends.mkl``: openreg does not use Intel MKL (its CPU kernels are NumPy's), so ``is_available()`` is
False, as in a PyTorch build without MKL; ``verbose`` is kept for programs that use it and refuses to turn
verbosing on, since there is no MKL to be verbose.

>>> import openreg
>>> openreg.backends.mkl.is_available()
False
>>> with openreg.backends.mkl.verbose(openreg.backends.mkl.VERBOSE_OFF):
...     pass
"""
from __future__ import annotations

__all__ = ["VERBOSE_OFF", "VERBOSE_ON", "is_available", "verbose"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    """False: openreg is not built with MKL."""
    return False


class verbose:
    """On-demand MKL verbosing for a block: ``VERBOSE_OFF`` is accepted; asking for more raises, as PyTorch does
    when it cannot set MKL's verbose mode."""

    def __init__(self, enable: int) -> None:
        self.enable = enable

    def __enter__(self):
        if self.enable == VERBOSE_OFF:
            return
        raise AssertionError("Failed to set MKL into verbose mode. Please consider to disable this verbose scope.")

    def __exit__(self, *exc) -> bool:
        return False
