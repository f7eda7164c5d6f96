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

from .._dispatch.ops import A
from ..operators.attention import SDPBackend

__all__ = ["SDPBackend", "scaled_dot_product_attention"]



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
