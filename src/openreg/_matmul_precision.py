"""``openreg.set_float32_matmul_precision`` / ``get_float32_matmul_precision``: PyTorch's setting of how precisely
float32 matrix products may be computed (``"highest"``, ``"high"``: TF32 allowed, ``"medium"``: bfloat16 allowed).
openreg always computes them in float32, which every setting permits; ``openreg.backends.cuda.matmul.allow_tf32``
reads and writes the same setting, as in PyTorch.

>>> import openreg
>>> openreg.get_float32_matmul_precision()
'highest'
>>> openreg.set_float32_matmul_precision("high"); openreg.backends.cuda.matmul.allow_tf32
True
>>> openreg.set_float32_matmul_precision("highest")
"""
from __future__ import annotations

import warnings

_PRECISIONS = ("highest", "high", "medium")
_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """Set the float32 matmul precision; an unknown value warns and changes nothing (as PyTorch)."""
    global _precision
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _precision = precision


def get_float32_matmul_precision() -> str:
    """The current float32 matmul precision (``"highest"`` by default)."""
    return _precision
