"""``openreg.nn.functional.multi_head_attention_forward``: the computation behind ``nn.MultiheadAttention``.

Inputs are sequence-first, ``(L, N, E)`` (or unbatched ``(L, E)``). Self-attention projects query, key and
value with one GEMM over the packed ``in_proj_weight``. Without ``need_weights`` the heads go through
``scaled_dot_product_attention`` (the fused kernel on the device); with it, the weights are formed explicitly
so they can be returned (averaged over heads when ``average_attn_weights``).

>>> import openreg
>>> from openreg.nn.functional import multi_head_attention_forward
>>> E = 4
>>> x = openreg.ones(3, 2, E)
>>> w, b = openreg.cat([openreg.eye(E)] * 3), openreg.zeros(3 * E)
>>> out, weights = multi_head_attention_forward(x, x, x, E, 2, w, b, None, None, False, 0.0, openreg.eye(E),
...                                             None)
>>> tuple(out.shape), tuple(weights.shape), round(weights[0, 0, 0].item(), 4)
((3, 2, 4), (2, 3, 3), 0.3333)
"""
from __future__ import annotations

import math
import warnings

from ..tensor import Tensor
from .attention import scaled_dot_product_attention
from .dropout_functional import dropout
from .functional_core import linear, softmax

__all__ = ["multi_head_attention_forward"]


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """A boolean mask (True = masked out) becomes an additive float mask (``-inf`` where True)."""
    if mask is None:
        return None
    from .. import dtypes
    is_float = mask.dtype.is_floating_point
    if mask.dtype != dtypes.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      f"instead.", stacklevel=3)
    if is_float:
        return mask
    from ..operators.factories import zeros
    return zeros(tuple(mask.shape), dtype=target_type, device=mask.device).masked_fill_(mask, float("-inf"))


def _is_batched(query: Tensor, key: Tensor, value: Tensor, key_padding_mask, attn_mask, num_heads: int) -> bool:
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             f"tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.dim()}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return batched


def _project(query: Tensor, key: Tensor, value: Tensor, w: Tensor, b: Tensor | None):
    """q, k, v from the packed ``(3E, E)`` projection: one GEMM for self-attention, two when key is value."""
    e = query.size(-1)
    if query is key and key is value:
        qkv = linear(query, w, b)
        return qkv.chunk(3, -1)
    b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
    w_q, w_k, w_v = w.chunk(3)
    if key is value:
        kv = linear(key, w[e:], b[e:] if b is not None else None)
        return (linear(query, w_q, b_q),) + tuple(kv.chunk(2, -1))
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _pad_last(t: Tensor | None) -> Tensor | None:
    """Append one zero column on the last dimension (the extra key of ``bias_k`` / ``add_zero_attn``)."""
    if t is None:
        return None
    from .. import cat
    from ..operators.factories import zeros
    return cat([t, zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype, device=t.device)], -1)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                                 num_heads: int, in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
                                 bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                                 training: bool = True, key_padding_mask: Tensor | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | None = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
                                 k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None,
                                 static_k: Tensor | None = None, static_v: Tensor | None = None,
                                 average_attn_weights: bool = True, is_causal: bool = False):
    """Multi-head attention over sequence-first inputs; returns ``(output, weights or None)``.

    ``key_padding_mask`` ``(N, S)`` and ``attn_mask`` ``(L, S)`` / ``(N*num_heads, L, S)`` are boolean
    (True = not attended) or additive float masks. ``is_causal`` is a hint that ``attn_mask`` is the causal
    mask (it must be given, as in PyTorch).

    >>> import openreg
    >>> from openreg.nn.functional import multi_head_attention_forward
    >>> x = openreg.ones(2, 1, 2)
    >>> multi_head_attention_forward(x, x, x, 2, 1, openreg.ones(6, 2), None, None, None, False, 0.0,
    ...                              openreg.eye(2), None, need_weights=False)[0].tolist()
    [[[2.0, 2.0]], [[2.0, 2.0]]]
    """
    from .. import cat
    from ..operators.factories import zeros
    batched = _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # SDPA applies the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False   # the merged mask is no longer purely causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = cat([v, bias_v.expand(1, bsz, embed_dim)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads become part of the batch: (N*H, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static(static_k, "static_k", bsz * num_heads, head_dim) if static_k is not None else \
        k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = _static(static_v, "static_v", bsz * num_heads, head_dim) if static_v is not None else \
        v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zero = zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = cat([k, zero], 1), cat([v, zero], 1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        scores = (q * math.sqrt(1.0 / head_dim)).bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 and attn_mask.dim() == 3 else \
            attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None


def _static(t: Tensor, name: str, batch_heads: int, head_dim: int) -> Tensor:
    if t.size(0) != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t
