"""Scaled dot-product attention (``torch.nn.functional.scaled_dot_product_attention``).

>>> import openreg
>>> from openreg.nn.attention import scaled_dot_product_attention
>>> q = openreg.tensor([[[1.0, 0.0], [0.0, 1.0]]])
>>> v = openreg.tensor([[[1.0, 2.0], [3.0, 4.0]]])
>>> out = scaled_dot_product_attention(q, q, v, is_causal=True)
>>> out.shape, [round(x, 4) for x in out[0, 0].tolist()]
(openreg.Size([1, 2, 2]), [1.0, 2.0])
"""
from __future__ import annotations

import contextlib

from .._dispatch.ops import A
from ..operators.attention import SDP_ENABLED, SDPBackend

__all__ = ["SDPBackend", "scaled_dot_product_attention", "sdpa_kernel"]

_FLAG_OF = {SDPBackend.FLASH_ATTENTION: "flash", SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
            SDPBackend.MATH: "math", SDPBackend.CUDNN_ATTENTION: "cudnn", SDPBackend.OVERRIDEABLE: "overrideable"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Allow only ``backends`` (an ``SDPBackend`` or a list of them) in ``scaled_dot_product_attention`` within the
    block, as PyTorch's: the CPU runs its flash kernel if FLASH_ATTENTION is allowed and applies, else the math
    kernel if MATH is; the device runs its fused kernel if any fused backend is allowed (it stands in for CUDA's
    flash, memory-efficient and cuDNN kernels), else the math kernel; with nothing usable the call raises.
    ``set_priority`` orders CUDA's fused kernels, of which openreg's devices have one, so the order does not
    change which kernel runs.

    >>> import openreg
    >>> from openreg.nn.attention import SDPBackend, sdpa_kernel
    >>> q = openreg.ones(1, 1, 2, 4)
    >>> with sdpa_kernel(SDPBackend.MATH):
    ...     int(openreg._fused_sdp_choice(q, q, q))
    0
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances")  # noqa: TRY004 (PyTorch's)
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances")  # noqa: TRY004
    saved = dict(SDP_ENABLED)
    SDP_ENABLED.update({flag: backend in chosen for backend, flag in _FLAG_OF.items()})
    try:
        yield {}
    finally:
        SDP_ENABLED.update(saved)



def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
                                 scale: float | None = None, enable_gqa: bool = False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dimensions.

    ``attn_mask`` is a bool mask (True = may attend) or a float bias added to the scores, broadcastable to
    ``(..., L, S)``; ``is_causal`` masks keys after each query position; ``scale`` defaults to
    ``1/sqrt(query.size(-1))``; ``dropout_p`` drops attention weights during the product. The CPU runs the
    blockwise flash kernel for 4-d inputs (the math kernel otherwise), the device the fused "overrideable" kernel
    (see ``openreg.ops.aten._fused_sdp_choice``).

    >>> import openreg
    >>> x = openreg.ones(2, 3, 4)
    >>> scaled_dot_product_attention(x, x, x).shape
    openreg.Size([2, 3, 4])
    """
    return A.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale=scale, enable_gqa=enable_gqa)
