"""``openreg.linalg.LinAlgError``: raised when a linear-algebra routine fails on its input's values (a singular
matrix in ``inv``/``solve``, a matrix that is not positive-definite in ``cholesky``, a non-converging
decomposition), as PyTorch's ``torch.linalg.LinAlgError``. It is a ``RuntimeError``, so existing handlers of that
still catch it; shape and dtype errors stay plain ``RuntimeError``.

>>> import openreg
>>> try:
...     openreg.linalg.inv(openreg.zeros(2, 2))
... except openreg.linalg.LinAlgError as e:
...     isinstance(e, RuntimeError)
True
"""
from __future__ import annotations

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError):
    """A linear-algebra routine failed on its input's values (singular, not positive-definite, no convergence)."""


LinAlgError.__module__ = "openreg.linalg"
