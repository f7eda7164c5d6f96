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

import contextlib
import warnings
from typing import Any

from ... import _matmul_precision

__all__ = ["cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
           "flash_sdp_enabled", "is_built", "math_sdp_enabled", "matmul", "mem_efficient_sdp_enabled", "sdp_kernel"]


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


def _sdp_flags() -> dict:
    from ...operators.attention import SDP_ENABLED
    return SDP_ENABLED


def flash_sdp_enabled() -> bool:
    """Whether ``scaled_dot_product_attention`` may use a flash kernel (see ``openreg.nn.attention.sdpa_kernel``)."""
    return _sdp_flags()["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    """Allow or forbid the flash kernels of ``scaled_dot_product_attention``."""
    _sdp_flags()["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp_flags()["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp_flags()["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp_flags()["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp_flags()["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp_flags()["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp_flags()["cudnn"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """Deprecated form of ``openreg.nn.attention.sdpa_kernel`` (PyTorch's FutureWarning): the kernels enabled
    within the block.

    >>> import warnings, openreg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with openreg.backends.cuda.sdp_kernel(enable_flash=False):
    ...         openreg.backends.cuda.flash_sdp_enabled(), openreg.backends.cuda.math_sdp_enabled()
    (False, True)
    """
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    from ...nn.attention import SDPBackend, sdpa_kernel
    chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash), (SDPBackend.MATH, enable_math),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    with sdpa_kernel(chosen):
        yield {}


def is_built() -> bool:
    """False: openreg is not built against PyTorch's CUDA runtime (its device is the PrivateUse1 backend)."""
    return False
