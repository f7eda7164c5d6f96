"""``openreg.backends.cuda``: PyTorch's ``torch.backends.cuda`` flags as settable attributes. ``matmul.allow_tf32``
is the float32 matmul precision seen as a flag (True: ``"high"``, False: ``"highest"``), as in PyTorch; the
reduced-precision-reduction flags are kept as given. openreg computes float32 matmuls in float32 whatever they say.

>>> import openreg
>>> openreg.backends.cuda.matmul.allow_tf32
False
>>> openreg.backends.cuda.matmul.allow_tf32 = True; openreg.get_float32_matmul_precision()
'high'
>>> openreg.backends.cuda.matmul.allow_tf32 = False
>>> openreg.backends.cuda.is_built()
False
"""
from __future__ import annotations

from typing import Any

from ... import _matmul_precision

__all__ = ["is_built", "matmul"]


class cuBLASModule:
    """The ``matmul`` flags object; unknown attributes raise ``AttributeError`` as PyTorch's."""

    _FLAGS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction",
              "allow_fp16_accumulation")

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {"allow_fp16_reduced_precision_reduction": True,
                                             "allow_bf16_reduced_precision_reduction": True,
                                             "allow_fp16_accumulation": False})

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return _matmul_precision.get_float32_matmul_precision() != "highest"
        if name in self._FLAGS:
            return self._values[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            _matmul_precision.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._FLAGS:
            self._values[name] = bool(value)
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()


def is_built() -> bool:
    """False: openreg is not built against PyTorch's CUDA runtime (its device is the PrivateUse1 backend)."""
    return False
