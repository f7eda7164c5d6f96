"""Attention kernels (math, fused-overrideable forward and backward) on the inputs' array module.

Written against ``xp`` (NumPy here, CuPy on the cuda driver), so the PrivateUse1 backend registers these
same functions. Half-precision inputs compute in float32. Rows whose every key is masked out give zeros
(PyTorch's "safe softmax"). Dropout draws its keep-mask from the Philox stream of the query device's
generator (``openreg.random.philox_seed_and_offset``, so ``openreg.manual_seed`` makes it reproducible, and
the CPU and the device give the same mask for the same seed); the fused op returns the ``(philox_seed,
philox_offset)`` it used, so the backward op regenerates the same mask.

>>> import openreg
>>> q = openreg.tensor([[[1.0, 0.0], [0.0, 1.0]]])
>>> v = openreg.tensor([[[1.0, 2.0], [3.0, 4.0]]])
>>> out = openreg.ops.aten._scaled_dot_product_attention_math.default(q, q, v, is_causal=True)[0]
>>> [round(x, 4) for x in out[0, 0].tolist()]
[1.0, 2.0]
"""
from __future__ import annotations

import numpy as np

from openreg import dtypes as _dt
from openreg._array_bridge import from_compute, to_compute, wrap_array
from openreg.aten.attention_ops import check_sdpa_args, check_sdpa_backward_args, softmax_scale
from openreg.operators._compute import xp_of
from openreg.random import philox_seed_and_offset

from .kernels_random import numpy_values, words_for


def _compute_dtype(t, xp):
    return xp.float64 if t._dtype is _dt.float64 else xp.float32


def _arr(t, dtype):
    a = to_compute(t)
    return a if a.dtype == dtype else a.astype(dtype)


def _wrap(arr, dtype, device):
    return wrap_array(from_compute(arr, dtype), dtype, device)


def _repeat_heads(q, k, v, xp):
    """Grouped-query attention: repeat each key/value head for its group of query heads."""
    groups = q.shape[-3] // k.shape[-3]
    return q, xp.repeat(k, groups, axis=-3), xp.repeat(v, groups, axis=-3)


def _scores(q, k, mask, is_causal: bool, scale: float, xp):
    s = xp.matmul(q, xp.swapaxes(k, -1, -2)) * q.dtype.type(scale)
    L, S = s.shape[-2], s.shape[-1]
    if is_causal:
        s = xp.where(xp.tril(xp.ones((L, S), dtype=bool)), s, -xp.inf)
    if mask is not None:
        s = xp.where(mask, s, -xp.inf) if mask.dtype == bool else s + mask
    return s


def _softmax(s, xp):
    """(probabilities, logsumexp) over the last axis; fully masked rows give zeros and -inf."""
    m = xp.max(s, axis=-1, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    e = xp.exp(s - m)
    denom = xp.sum(e, axis=-1, keepdims=True)
    safe = denom > 0
    p = xp.where(safe, e / xp.where(safe, denom, 1), 0)
    lse = xp.where(safe, xp.log(xp.where(safe, denom, 1)) + m, -xp.inf)[..., 0]
    return p, lse


def _keep_mask(shape, dropout_p: float, seed: int, offset: int, xp):
    """Which attention weights survive dropout: uniform float32 draws at ``(seed, offset)`` >= ``dropout_p``."""
    n = int(np.prod(shape))
    keep = numpy_values("f32", seed, offset, n).reshape(shape) >= np.float32(dropout_p)
    return xp.asarray(keep)


def _mask_array(attn_mask, dtype):
    if attn_mask is None or attn_mask.numel() == 0:
        return None
    return attn_mask._array() if attn_mask._dtype is _dt.bool else _arr(attn_mask, dtype)


def _forward(query, key, value, attn_mask, dropout_p, is_causal, scale, gqa=False):
    """(output, logsumexp, dropped probabilities, (philox seed, offset) of the dropout mask)."""
    xp = xp_of(query)
    ct = _compute_dtype(query, xp)
    q, k, v = _arr(query, ct), _arr(key, ct), _arr(value, ct)
    if gqa and q.ndim >= 3 and q.shape[-3] != k.shape[-3]:
        q, k, v = _repeat_heads(q, k, v, xp)
    s = _scores(q, k, _mask_array(attn_mask, ct), is_causal, softmax_scale(query, scale), xp)
    p, lse = _softmax(s, xp)
    philox = (0, 0)
    if dropout_p > 0:
        philox = philox_seed_and_offset(query.device, words_for("f32", int(p.size)))
        p = p * _keep_mask(p.shape, dropout_p, *philox, xp) * ct(1.0 / (1.0 - dropout_p))
    return xp.matmul(p, v), lse, p, philox


def sdpa_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, dropout_mask=None, *,
              scale=None, enable_gqa=False):
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    if dropout_mask is not None:
        raise NotImplementedError(f"_scaled_dot_product_attention_math: an explicit dropout_mask is not supported "
                                  f"on {query.device.type}")
    out, _lse, p, _philox = _forward(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    return _wrap(out, query._dtype, query.device), _wrap(p, query._dtype, query.device)


def sdpa_fused(query, key, value, attn_bias=None, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
               scale=None):
    check_sdpa_args(query, key, value, attn_bias, dropout_p, is_causal)
    out, lse, p, (seed, offset) = _forward(query, key, value, attn_bias, dropout_p, is_causal, scale)
    dev = query.device
    xp = xp_of(query)
    empty_i32 = _wrap(xp.zeros((0,), dtype=xp.int32), _dt.int32, dev)
    debug = p if return_debug_mask else xp.zeros((0,), dtype=xp.float32)
    return (_wrap(out, query._dtype, dev), _wrap(lse.astype(xp.float32), _dt.float32, dev), empty_i32,
            _wrap(xp.zeros((0,), dtype=xp.int32), _dt.int32, dev), int(query._size[-2]), int(key._size[-2]),
            _wrap(xp.asarray(seed, dtype=xp.int64), _dt.int64, dev),
            _wrap(xp.asarray(offset, dtype=xp.int64), _dt.int64, dev), _wrap(debug.astype(xp.float32), _dt.float32, dev))


def _sum_to(arr, shape, xp):
    """Sum a broadcast gradient back to ``shape``."""
    lead = arr.ndim - len(shape)
    if lead:
        arr = arr.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and arr.shape[i] != 1)
    return arr.sum(axis=axes, keepdims=True) if axes else arr


def sdpa_fused_backward(grad_out, query, key, value, attn_bias, grad_input_mask, out, logsumexp, cum_seq_q,
                        cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, *, scale=None):
    check_sdpa_backward_args(grad_out, query, key, value, attn_bias, out, logsumexp, dropout_p, is_causal)
    xp = xp_of(query)
    ct = _compute_dtype(query, xp)
    q, k, v, go = _arr(query, ct), _arr(key, ct), _arr(value, ct), _arr(grad_out, ct)
    sc = softmax_scale(query, scale)
    s = _scores(q, k, _mask_array(attn_bias, ct), is_causal, sc, xp)
    lse = _arr(logsumexp, ct)[..., None]
    finite = xp.isfinite(lse)
    p = xp.where(finite, xp.exp(s - xp.where(finite, lse, 0)), 0)
    if dropout_p > 0:
        keep = _keep_mask(p.shape, dropout_p, int(philox_seed.item()), int(philox_offset.item()), xp)
        keep = keep * ct(1.0 / (1.0 - dropout_p))
        p_drop = p * keep
    else:
        keep, p_drop = None, p
    d_p = xp.matmul(go, xp.swapaxes(v, -1, -2))
    if keep is not None:
        d_p = d_p * keep
    d_s = p * (d_p - xp.sum(d_p * p, axis=-1, keepdims=True))
    dev = query.device
    grads = []
    if grad_input_mask[0]:
        grads.append(_wrap(_sum_to(xp.matmul(d_s, k) * ct(sc), q.shape, xp), query._dtype, dev))
    else:
        grads.append(None)
    if grad_input_mask[1]:
        dk = xp.matmul(xp.swapaxes(d_s, -1, -2), q) * ct(sc)
        grads.append(_wrap(_sum_to(dk, k.shape, xp), key._dtype, dev))
    else:
        grads.append(None)
    if grad_input_mask[2]:
        dv = xp.matmul(xp.swapaxes(p_drop, -1, -2), go)
        grads.append(_wrap(_sum_to(dv, v.shape, xp), value._dtype, dev))
    else:
        grads.append(None)
    has_bias = attn_bias is not None and attn_bias.numel() > 0 and attn_bias._dtype is not _dt.bool
    if grad_input_mask[3] and has_bias:
        grads.append(_wrap(_sum_to(d_s, tuple(attn_bias._size), xp), attn_bias._dtype, dev))
    else:
        grads.append(None)
    return tuple(grads)


KERNELS = {
    "_scaled_dot_product_attention_math": sdpa_math,
    "_scaled_dot_product_fused_attention_overrideable": sdpa_fused,
    "_scaled_dot_product_fused_attention_overrideable_backward": sdpa_fused_backward,
}


def register(lib, dispatch_key: str) -> None:
    """Register the kernels on ``lib`` (an ``aten`` IMPL library) at ``dispatch_key``."""
    for name, fn in KERNELS.items():
        lib.impl(name, fn, dispatch_key)
