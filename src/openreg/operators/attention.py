"""Scaled dot-product attention: ``scaled_dot_product_attention``, the backend choice and the attention kernels.

``scaled_dot_product_attention`` (CompositeImplicitAutograd) asks ``_fused_sdp_choice`` for a backend
(PyTorch's ``SDPBackend`` numbering) with PyTorch's rules: the CPU answers ``FLASH_ATTENTION`` for 4-d inputs
with equal head sizes, no dropout and no mask that requires grad, and runs
``_scaled_dot_product_flash_attention_for_cpu``; the PrivateUse1 device answers ``OVERRIDEABLE`` and runs
``_scaled_dot_product_fused_attention_overrideable``; everything else is ``MATH``
(``_scaled_dot_product_attention_math``, which returns the attention weights too). The flash and overrideable
kernels are blockwise with an online softmax and save only the log-sum-exp (in the compute dtype: float64
for float64 inputs) for their backward (``_flash_attention.py``); the device's own kernels of the fused op and
its backward run the raw CUDA kernels of ``cuda_kernels/attention.cu`` where those apply (float32/float64,
head sizes up to 128, no dropout; the cuda driver, or the emulated one with ``OPENREG_EMULATE_KERNELS=1``). Dropout masks come from the Philox stream
of the query device's generator, at the ``(philox_seed, philox_offset)`` the fused op returns, so its
backward regenerates the same mask.

>>> import openreg
>>> q = openreg.ones(1, 2, 4)
>>> openreg.ops.aten._fused_sdp_choice.default(q, q, q) == SDPBackend.MATH
True
>>> openreg.ops.aten._fused_sdp_choice.default(q[None], q[None], q[None]) == SDPBackend.FLASH_ATTENTION
True
"""
from __future__ import annotations

import enum
import math
import warnings

from .. import dtypes as _dt
from .._array_bridge import from_compute, to_compute, wrap_array
from .._dispatch.ops import A
from ..aten.meta_rules import broadcast_shapes
from . import _flash_attention as flash
from ._compute import xp_of
from ._multi_grad import once
from ._record import Deriv, Op, register


class SDPBackend(enum.IntEnum):
    """PyTorch's ``torch.nn.attention.SDPBackend`` values (what ``_fused_sdp_choice`` returns)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# Which attention kernels programs allow (PyTorch's global context flags, set by torch.backends.cuda.enable_*_sdp,
# torch.nn.attention.sdpa_kernel and the deprecated torch.backends.cuda.sdp_kernel).
SDP_ENABLED = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True}
_NO_VIABLE = ("No viable backend for scaled_dot_product_attention was found. This is likely due to turning off both "
              "the math kernel and the fused kernels.")


# -- argument checks ---------------------------------------------------------------------------------------
def _fmt(t) -> str:
    return f"{list(t._size)} {t._dtype.name} on {t.device}"


def check_sdpa_args(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
                    enable_gqa: bool = False) -> None:
    """Shapes, dtypes and devices of an attention call (PyTorch's wording where it has one)."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.dim() < 2:
            raise RuntimeError(f"scaled_dot_product_attention: expected {name} to have at least 2 dimensions, "
                               f"got {_fmt(t)}")
        if not t._dtype.is_floating_point:
            raise RuntimeError(f"scaled_dot_product_attention: expected {name} to be a floating point tensor, "
                               f"got {_fmt(t)}")
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query._dtype} key.dtype: {key._dtype} and value.dtype: {value._dtype} instead.")
    devices = {query.device, key.device, value.device}
    if attn_mask is not None:
        devices.add(attn_mask.device)
    if len(devices) > 1:
        raise RuntimeError(f"Expected query, key, and value to have the same device type, but got query: "
                           f"{query.device}, key: {key.device}, value: {value.device}"
                           + ("" if attn_mask is None else f", attn_mask: {attn_mask.device}") + " instead.")
    qs, ks, vs = tuple(query._size), tuple(key._size), tuple(value._size)    # plain tuples: cheap indexing
    if qs[-1] != ks[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same embedding size "
                           f"(last dimension), got query {_fmt(query)} and key {_fmt(key)}")
    if ks[-2] != vs[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: key and value must have the same sequence length "
                           f"(dimension -2), got key {_fmt(key)} and value {_fmt(value)}")
    if not 0.0 <= dropout_p < 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1 (exclusive of 1), but got {dropout_p}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    if attn_mask is not None and not (attn_mask._dtype is _dt.bool or attn_mask._dtype is query._dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {attn_mask._dtype} and  query.dtype: {query._dtype} instead.")
    batch_k, batch_v = ks[:-2], vs[:-2]
    if enable_gqa:
        hq, hk = qs[-3] if len(qs) >= 3 else 1, ks[-3] if len(ks) >= 3 else 1
        if hq % hk:
            raise RuntimeError(f"scaled_dot_product_attention: number of heads in key/value ({hk}) must divide "
                               f"the number of heads in query ({hq})")
        if len(qs) >= 3 and len(ks) >= 3 and len(vs) >= 3:    # heads are repeated, not broadcast
            batch_k, batch_v = batch_k[:-1] + (hq,), batch_v[:-1] + (hq,)
    # The two matmuls broadcast the batch dimensions; the mask broadcasts to the scores' shape.
    batch = _batch_shape(qs[:-2], batch_k, batch_v)
    if attn_mask is not None:
        broadcast_shapes((*batch, qs[-2], ks[-2]), attn_mask._size)


def _batch_shape(*shapes) -> tuple:
    """The broadcast of batch shapes (usually all equal)."""
    return shapes[0] if shapes[0] == shapes[1] == shapes[2] else broadcast_shapes(*shapes)


def _check_results_like(op: str, query, key, value, named_results) -> None:
    """``grad_out``/``out``/``logsumexp`` on the query's device and shaped as the forward's results."""
    dev = query.device
    for name, t, _ in named_results:
        if t.device != dev:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{dev} and {t.device}! (when checking argument {name} of {op})")
    qs, vs = tuple(query._size), tuple(value._size)
    rows = (*_batch_shape(qs[:-2], tuple(key._size)[:-2], vs[:-2]), qs[-2])
    shapes = {"grad_out": (*rows, vs[-1]), "out": (*rows, vs[-1]), "logsumexp": rows}
    for name, t, _ in named_results:
        if tuple(t._size) != shapes[name]:
            raise RuntimeError(f"{op}: expected {name} of shape {list(shapes[name])}, got {_fmt(t)}")


def softmax_scale(query, scale) -> float:
    """``scale`` or ``1/sqrt(E)`` for an embedding size ``E``."""
    return float(scale) if scale is not None else 1.0 / math.sqrt(query._size[-1])


def out_shapes(query, key, value) -> tuple:
    """(output shape, logsumexp shape, attention-weights shape) with broadcast batch dimensions."""
    batch = broadcast_shapes(tuple(query._size[:-2]), tuple(key._size[:-2]), tuple(value._size[:-2]))
    L, S, Ev = query._size[-2], key._size[-2], value._size[-1]
    return batch + (L, Ev), batch + (L,), batch + (L, S)


def _compute_dtype(t):
    """float64 stays float64; every other float computes in float32 (also the log-sum-exp's dtype)."""
    return _dt.float64 if t._dtype is _dt.float64 else _dt.float32


# -- backend choice (no data needed) -----------------------------------------------------------------------
def _cpu_flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa) -> bool:
    """PyTorch's ``use_flash_attention_cpp`` conditions (CPU)."""
    if dropout_p > 0 or not (query.dim() == key.dim() == value.dim() == 4):
        return False
    if attn_mask is not None and (attn_mask.requires_grad or attn_mask.dim() > 4):
        return False
    if query._size[-1] != value._size[-1] or any(t._stride[-1] != 1 and t._size[-1] > 1 for t in (query, key, value)):
        return False
    if query._size[0] != key._size[0] or key._size[0] != value._size[0] or key._size[1] != value._size[1]:
        return False
    if query._size[1] != key._size[1] and not (enable_gqa and query._size[1] % key._size[1] == 0):
        return False
    return query._size[-2] > 0 and key._size[-2] > 0


def fused_sdp_choice_cpu(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                         enable_gqa=False) -> int:
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    flash, use_math = SDP_ENABLED["flash"], SDP_ENABLED["math"]
    if not flash and not use_math:
        raise RuntimeError(_NO_VIABLE)
    if flash and _cpu_flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa):
        return int(SDPBackend.FLASH_ATTENTION)
    if use_math:
        return int(SDPBackend.MATH)
    warnings.warn("Flash attention kernel not used because: its conditions (4-d inputs, no dropout, no mask that "
                  "requires grad, matching heads and head sizes, unit last stride) do not hold", UserWarning,
                  stacklevel=2)
    raise RuntimeError("No available kernel.  Aborting execution.")


def fused_sdp_choice_overrideable(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
                                  scale=None, enable_gqa=False) -> int:
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    # the device's fused kernel stands in for CUDA's fused ones: any of them enabled selects it
    if SDP_ENABLED["flash"] or SDP_ENABLED["mem_efficient"] or SDP_ENABLED["cudnn"] or SDP_ENABLED["overrideable"]:
        return int(SDPBackend.OVERRIDEABLE)
    if SDP_ENABLED["math"]:
        return int(SDPBackend.MATH)
    raise RuntimeError(_NO_VIABLE)


def _fused_sdp_choice(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False, *,
                      scale: float | None = None, enable_gqa: bool = False) -> int:
    """Which attention backend ``scaled_dot_product_attention`` uses for these inputs (an ``SDPBackend`` value).

    >>> import openreg
    >>> x = openreg.ones(1, 2, 4)
    >>> openreg._fused_sdp_choice(x, x, x), openreg._fused_sdp_choice(x[None], x[None], x[None])
    (0, 1)
    """
    return A._fused_sdp_choice(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                               enable_gqa=enable_gqa)


# -- the composite entry point -----------------------------------------------------------------------------
def _grouped(query, key, value, attn_mask):
    """Grouped-query attention without repeating key/value heads: ``(B, Hk, G, L, E)`` query views against
    ``(B, Hk, 1, S, E)`` key/value views (the kernels broadcast batch dimensions); the mask gets the same
    split of its head dimension."""
    hq, hk = query._size[-3], key._size[-3]
    g = hq // hk
    q = query.unflatten(-3, (hk, g))
    k, v = key.unsqueeze(-3), value.unsqueeze(-3)
    if attn_mask is not None and attn_mask.dim() >= 3:
        attn_mask = attn_mask.unflatten(-3, (hk, g)) if attn_mask._size[-3] == hq and hq > 1 \
            else attn_mask.unsqueeze(-3)
    return q, k, v, attn_mask


def _sdpa_composite(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                    enable_gqa=False):
    choice = A._fused_sdp_choice(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                 enable_gqa=enable_gqa)
    gqa = enable_gqa and query.dim() >= 3 and key.dim() >= 3 and query._size[-3] != key._size[-3]
    if choice == SDPBackend.FLASH_ATTENTION or choice == SDPBackend.OVERRIDEABLE or dropout_p > 0:
        # (MATH with dropout also runs the fused kernel: it keeps its dropout seed, so dropout is differentiable)
        q, k, v, mask = _grouped(query, key, value, attn_mask) if gqa else (query, key, value, attn_mask)
        if choice == SDPBackend.FLASH_ATTENTION:
            out = A._scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, attn_mask=mask,
                                                                scale=scale)[0]
        else:
            out = A._scaled_dot_product_fused_attention_overrideable(q, k, v, mask, dropout_p, is_causal, False,
                                                                     scale=scale)[0]
        return out.flatten(-4, -3) if gqa else out
    if choice == SDPBackend.MATH:
        return A._scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal, None,
                                                    scale=scale, enable_gqa=enable_gqa)[0]
    raise RuntimeError(f"scaled_dot_product_attention: no attention backend for query {_fmt(query)}")


# -- array kernels -----------------------------------------------------------------------------------------
def _arr(t, ct):
    a = to_compute(t)
    return a if a.dtype == ct.numpy else a.astype(ct.numpy)


def _wrap(arr, dtype, device):
    return wrap_array(from_compute(arr, dtype), dtype, device)


def _mask_array(attn_mask, ct):
    if attn_mask is None or attn_mask.numel() == 0:
        return None
    return attn_mask._array() if attn_mask._dtype is _dt.bool else _arr(attn_mask, ct)


def _keep_mask(xp, shape, dropout_p: float, seed: int, offset: int, ct):
    """Dropout's kept weights scaled by ``1/(1-p)``: uniform float32 draws at ``(seed, offset)`` >= ``p``, in
    the row-major order of the scores' broadcast shape (what the backward regenerates)."""
    import numpy as np

    from openreg.backends.cpu.kernels_random import numpy_values
    n = int(np.prod(shape))
    keep = numpy_values("f32", seed, offset, n).reshape(shape) >= np.float32(dropout_p)
    return xp.asarray(keep.astype(ct.numpy) * ct.numpy.type(1.0 / (1.0 - dropout_p)))


def _draw_dropout(query, key, value, dropout_p, ct):
    """``(keep, (seed, offset))`` for a forward with dropout, ``(None, (0, 0))`` without."""
    if dropout_p <= 0:
        return None, (0, 0)
    from openreg.backends.cpu.kernels_random import words_for
    from openreg.random import philox_seed_and_offset
    shape = out_shapes(query, key, value)[2]
    n = math.prod(shape)
    philox = philox_seed_and_offset(query.device, words_for("f32", n))
    return _keep_mask(xp_of(query), shape, dropout_p, *philox, ct), philox


def _bf16_words(*tensors):
    """The 16-bit words of bfloat16 tensors (the raw kernels read them and widen per element), or None unless
    every tensor is bfloat16."""
    if not all(t._dtype is _dt.bfloat16 for t in tensors):
        return None
    return [t._array().view("uint16") for t in tensors]


def _as_storage(arr, like):
    """A raw kernel's bfloat16 words in the storage form of ``like`` (ml_dtypes' bfloat16 on NumPy)."""
    return arr.view(like._array().dtype)


def _flash_forward(query, key, value, attn_mask, dropout_p, is_causal, scale, raw=None):
    """``(out, lse, (seed, offset), arrays)`` from the blockwise kernel, in the compute dtype; bfloat16 with the
    raw kernels: ``out`` in bfloat16 storage and ``arrays`` None (nothing was widened)."""
    ct = _compute_dtype(query)
    xp = xp_of(query)
    words = _bf16_words(query, key, value) if raw and dropout_p <= 0 else None
    if words is not None:
        res = raw.attention_forward(*words, _mask_array(attn_mask, ct), is_causal, softmax_scale(query, scale))
        if res is not None:
            return _as_storage(res[0], query), res[1], (0, 0), None
    q, k, v = _arr(query, ct), _arr(key, ct), _arr(value, ct)
    mask = _mask_array(attn_mask, ct)
    keep, philox = _draw_dropout(query, key, value, dropout_p, ct)
    res = raw.attention_forward(q, k, v, mask, is_causal, softmax_scale(query, scale)) if raw and keep is None \
        else None
    out, lse = res if res is not None else flash.forward(xp, q, k, v, mask, is_causal, softmax_scale(query, scale),
                                                         keep)
    return out, lse, philox, (xp, q, k, mask)



def _flash_backward(grad_out, query, key, value, attn_mask, out, logsumexp, dropout_p, is_causal, scale, seed,
                    offset, want, raw=None):
    ct = _compute_dtype(query)
    xp = xp_of(query)
    words = _bf16_words(query, key, value, out, grad_out) if raw and dropout_p <= 0 and not (
        want[3] and attn_mask is not None and attn_mask._dtype is not _dt.bool) else None
    if words is not None:
        q, k, v, o, go = words
        grads = raw.attention_backward(go, q, k, v, o, logsumexp._array(), _mask_array(attn_mask, ct), is_causal,
                                       softmax_scale(query, scale))
        if grads is not None:
            dev = query.device
            return tuple(_wrap(_as_storage(g, t), t._dtype, dev) if w else None
                         for g, t, w in zip(grads, (query, key, value), want)) + (None,)
    q, k, v = _arr(query, ct), _arr(key, ct), _arr(value, ct)
    keep = _keep_mask(xp, out_shapes(query, key, value)[2], dropout_p, seed, offset, ct) if dropout_p > 0 else None
    mask = _mask_array(attn_mask, ct)
    want = tuple(want[:3]) + (bool(want[3]) and mask is not None and attn_mask._dtype is not _dt.bool,)
    go, o, lse, sc = _arr(grad_out, ct), _arr(out, ct), _arr(logsumexp, ct), softmax_scale(query, scale)
    grads = raw.attention_backward(go, q, k, v, o, lse, mask, is_causal, sc) if raw and keep is None and not want[3] \
        else None
    if grads is not None:
        grads = tuple(g if w else None for g, w in zip(grads, want)) + (None,)
    else:
        grads = flash.backward(xp, go, q, k, v, o, lse, mask, is_causal, sc, keep, want)
    dev = query.device
    return tuple(None if g is None else _wrap(g, t._dtype, dev)
                 for g, t in zip(grads, (query, key, value, attn_mask)))


def _flash_cpu(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal)
    if dropout_p > 0:
        raise RuntimeError("_scaled_dot_product_flash_attention_for_cpu: dropout is not supported on the CPU "
                           "flash kernel; scaled_dot_product_attention uses another backend for dropout_p > 0")
    out, lse, _, _ = _flash_forward(query, key, value, attn_mask, 0.0, is_causal, scale)
    dev = query.device
    return _wrap(out, query._dtype, dev), _wrap(lse, _compute_dtype(query), dev)


def _flash_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                        scale=None):
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal)
    _check_results_like("_scaled_dot_product_flash_attention_for_cpu_backward", query, key, value,
                        (("grad_out", grad_out, 0), ("out", out, 0), ("logsumexp", logsumexp, 0)))
    return _flash_backward(grad_out, query, key, value, attn_mask, out, logsumexp, 0.0, is_causal, scale, 0, 0,
                           (True, True, True, False))[:3]


def _math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, dropout_mask=None, *, scale=None,
          enable_gqa=False):
    """Out and the full (dropped) attention weights: the schema returns them, so they are materialised."""
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    if dropout_mask is not None:
        raise NotImplementedError(f"_scaled_dot_product_attention_math: an explicit dropout_mask is not supported "
                                  f"on {query.device.type}")
    ct = _compute_dtype(query)
    xp = xp_of(query)
    q, k, v = _arr(query, ct), _arr(key, ct), _arr(value, ct)
    if enable_gqa and q.ndim >= 3 and q.shape[-3] != k.shape[-3]:
        groups = q.shape[-3] // k.shape[-3]
        k, v = xp.repeat(k, groups, axis=-3), xp.repeat(v, groups, axis=-3)
    mask = _mask_array(attn_mask, ct)
    sc = softmax_scale(query, scale)
    _, lse = flash.forward(xp, q, k, v, mask, is_causal, sc)
    p = flash.probabilities(xp, q, k, mask, is_causal, sc, lse)
    if dropout_p > 0:
        from openreg.backends.cpu.kernels_random import words_for
        from openreg.random import philox_seed_and_offset
        philox = philox_seed_and_offset(query.device, words_for("f32", int(p.size)))
        p = p * _keep_mask(xp, p.shape, dropout_p, *philox, ct)
    dev = query.device
    return _wrap(xp.matmul(p, v), query._dtype, dev), _wrap(p, query._dtype, dev)


def fused_attention(query, key, value, attn_bias=None, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
                    scale=None, raw=None):
    """``_scaled_dot_product_fused_attention_overrideable``; ``raw``: the device's raw-kernel module, or None
    for the array code (the device's own kernel passes it, see ``backends/privateuseone/device_ops.py``)."""
    check_sdpa_args(query, key, value, attn_bias, dropout_p, is_causal)
    out, lse, (seed, offset), arrays = _flash_forward(query, key, value, attn_bias, dropout_p, is_causal, scale,
                                                      raw)
    dev = query.device
    xp = xp_of(query)
    if return_debug_mask:
        ct = _compute_dtype(query)
        q, k, mask = (arrays[1], arrays[2], arrays[3]) if arrays is not None else (
            _arr(query, ct), _arr(key, ct), _mask_array(attn_bias, ct))
        debug = flash.probabilities(xp, q, k, mask, is_causal, softmax_scale(query, scale), lse)
        if dropout_p > 0:
            debug = debug * _keep_mask(xp, debug.shape, dropout_p, seed, offset, _compute_dtype(query))
    else:
        debug = None
    # the empty results are allocated empty, not copied from host arrays (a copy each on the device)
    return (_wrap(out, query._dtype, dev), _wrap(lse, _compute_dtype(query), dev),
            _empty((0,), _dt.int32, dev), _empty((0,), _dt.int32, dev),
            int(query._size[-2]), int(key._size[-2]), _wrap(xp.asarray(seed, dtype=xp.int64), _dt.int64, dev),
            _wrap(xp.asarray(offset, dtype=xp.int64), _dt.int64, dev),
            _empty((0,), _dt.float32, dev) if debug is None else _wrap(debug.astype(xp.float32), _dt.float32, dev))


def fused_attention_backward(grad_out, query, key, value, attn_bias, grad_input_mask, out, logsumexp, cum_seq_q,
                             cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, *, scale=None,
                             raw=None):
    """``_scaled_dot_product_fused_attention_overrideable_backward`` (``raw`` as in ``fused_attention``)."""
    bias = attn_bias if attn_bias is not None and attn_bias.numel() else None
    check_sdpa_args(query, key, value, bias, dropout_p, is_causal)
    _check_results_like("_scaled_dot_product_fused_attention_overrideable_backward", query, key, value,
                        (("grad_out", grad_out, 0), ("out", out, 0), ("logsumexp", logsumexp, 0)))
    seed, offset = (int(philox_seed.item()), int(philox_offset.item())) if dropout_p > 0 else (0, 0)  # no sync
    return _flash_backward(grad_out, query, key, value, bias, out, logsumexp, dropout_p, is_causal, scale, seed,
                           offset, grad_input_mask, raw)


# -- Meta kernels ------------------------------------------------------------------------------------------
def _empty(size, dtype, device):
    from ..aten.structured import empty_tensor
    return empty_tensor(tuple(size), dtype, device)


def _meta_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, dropout_mask=None, *,
               scale=None, enable_gqa=False):
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    o, _, w = out_shapes(query, key, value)
    return _empty(o, query._dtype, query.device), _empty(w, query._dtype, query.device)


def _meta_flash_cpu(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal)
    o, lse, _ = out_shapes(query, key, value)
    return _empty(o, query._dtype, query.device), _empty(lse, _compute_dtype(query), query.device)


def _meta_flash_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                             scale=None):
    return tuple(_empty(t._size, t._dtype, t.device) for t in (query, key, value))


def _meta_fused(query, key, value, attn_bias=None, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
                scale=None):
    check_sdpa_args(query, key, value, attn_bias, dropout_p, is_causal)
    o, lse, w = out_shapes(query, key, value)
    dev = query.device
    return (_empty(o, query._dtype, dev), _empty(lse, _compute_dtype(query), dev), _empty((0,), _dt.int32, dev),
            _empty((0,), _dt.int32, dev), query._size[-2], key._size[-2], _empty((), _dt.int64, dev),
            _empty((), _dt.int64, dev), _empty(w if return_debug_mask else (0,), _dt.float32, dev))


def _meta_fused_backward(grad_out, query, key, value, attn_bias, grad_input_mask, out, logsumexp, cum_seq_q,
                         cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, *,
                         scale=None):
    dev = query.device
    has_bias = attn_bias.numel() > 0
    grads = [_empty(t._size, t._dtype, dev) if want else None
             for t, want in zip((query, key, value), grad_input_mask[:3])]
    gb = _empty(attn_bias._size, attn_bias._dtype, dev) if grad_input_mask[3] and has_bias else None
    return (*grads, gb)


# -- derivatives -------------------------------------------------------------------------------------------
def _needs(t) -> bool:
    return t is not None and t.requires_grad


def _grad_of_output(g, like):
    if g is not None:
        return g
    return A.zeros_like(like)


def _no_bias(like):
    return A.empty_strided((0,), (1,), dtype=like._dtype, device=like.device)


def _fused_grads(g, a):
    res = a.result
    bias = a.attn_bias if a.attn_bias is not None else _no_bias(a.query)
    want = _wanted(a, "attn_bias")
    return A._scaled_dot_product_fused_attention_overrideable_backward(
        _grad_of_output(g[0], res[0]), a.query, a.key, a.value, bias, want, res[0], res[1], res[2], res[3], res[4],
        res[5], a.dropout_p, a.is_causal, res[6], res[7], scale=a.scale)


def _wanted(a, bias_name: str):
    return [_needs(a.query), _needs(a.key), _needs(a.value), _needs(getattr(a, bias_name, None))]


def _fused_grad(which: int):
    return lambda g, a: once(g, a, _fused_grads, which, lambda a: _wanted(a, "attn_bias"))


def _flash_cpu_grads(g, a):
    out, lse = a.result
    return A._scaled_dot_product_flash_attention_for_cpu_backward(
        _grad_of_output(g[0], out), a.query, a.key, a.value, out, lse, a.dropout_p, a.is_causal,
        attn_mask=a.attn_mask, scale=a.scale)


def _flash_cpu_grad(which: int):
    return lambda g, a: once(g, a, _flash_cpu_grads, which, lambda a: _wanted(a, "attn_mask")[:3])


def _math_grads(g, a):
    if a.dropout_p > 0:
        raise NotImplementedError("_scaled_dot_product_attention_math: the backward of dropout_p > 0 is not "
                                  "implemented; scaled_dot_product_attention uses the fused kernel for it")
    if a.enable_gqa and a.query.dim() >= 3 and a.query._size[-3] != a.key._size[-3]:
        raise NotImplementedError("_scaled_dot_product_attention_math: the backward of enable_gqa=True with "
                                  "fewer key/value heads is not implemented")
    if g[1] is not None:
        raise NotImplementedError("_scaled_dot_product_attention_math: gradients flowing into the attention "
                                  "weights output are not supported")
    res = A._scaled_dot_product_fused_attention_overrideable(a.query, a.key, a.value, a.attn_mask, 0.0, a.is_causal,
                                                             False, scale=a.scale)
    bias = a.attn_mask if a.attn_mask is not None else _no_bias(a.query)
    want = _wanted(a, "attn_mask")
    return A._scaled_dot_product_fused_attention_overrideable_backward(
        _grad_of_output(g[0], res[0]), a.query, a.key, a.value, bias, want, res[0], res[1], res[2], res[3], res[4],
        res[5], 0.0, a.is_causal, res[6], res[7], scale=a.scale)


def _math_grad(which: int):
    return lambda g, a: once(g, a, _math_grads, which, lambda a: _wanted(a, "attn_mask"))


# -- records -----------------------------------------------------------------------------------------------
scaled_dot_product_attention = Op(
    "scaled_dot_product_attention",
    """
    scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
    """,
    kernels={"scaled_dot_product_attention": {"CompositeImplicitAutograd": _sdpa_composite}},
    function=False, method=False,
    doc="""``softmax(query @ key^T * scale + mask) @ value`` through the backend ``_fused_sdp_choice`` picks.

    >>> import openreg
    >>> q = openreg.ones(1, 1, 3, 2)
    >>> openreg.ops.aten.scaled_dot_product_attention(q, q, q, is_causal=True).shape
    openreg.Size([1, 1, 3, 2])
    """,
)

fused_sdp_choice = Op(
    "_fused_sdp_choice",
    """
    _fused_sdp_choice(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> int
    """,
    kernels={"_fused_sdp_choice": {"CPU": fused_sdp_choice_cpu, "Meta": fused_sdp_choice_cpu,
                                   "PrivateUse1": fused_sdp_choice_overrideable}},
    function=_fused_sdp_choice, method=False,
)

sdpa_math = Op(
    "_scaled_dot_product_attention_math",
    """
    _scaled_dot_product_attention_math(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, Tensor? dropout_mask=None, *, float? scale=None, bool enable_gqa=False) -> (Tensor, Tensor)
    """,
    kernels={"_scaled_dot_product_attention_math": {"Backend": _math, "Meta": _meta_math}},
    derivatives={"_scaled_dot_product_attention_math": Deriv(
        save="query key value attn_mask dropout_p is_causal scale enable_gqa",
        name="ScaledDotProductAttentionMathBackward0",
        query=_math_grad(0), key=_math_grad(1), value=_math_grad(2), attn_mask=_math_grad(3))},
    function=False, method=False,
    doc="""Attention written out: returns ``(out, attention weights)``; rows with every key masked give zeros.

    >>> import openreg
    >>> q = openreg.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> v = openreg.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> out = openreg.ops.aten._scaled_dot_product_attention_math.default(q, q, v, is_causal=True)[0]
    >>> [round(x, 4) for x in out[0, 0].tolist()]
    [1.0, 2.0]
    """,
)

flash_cpu = Op(
    "_scaled_dot_product_flash_attention_for_cpu",
    """
    _scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)
    """,
    kernels={"_scaled_dot_product_flash_attention_for_cpu": {"CPU": _flash_cpu, "Meta": _meta_flash_cpu}},
    derivatives={"_scaled_dot_product_flash_attention_for_cpu": Deriv(
        save="query key value dropout_p is_causal attn_mask scale result",
        name="ScaledDotProductFlashAttentionForCpuBackward0",
        query=_flash_cpu_grad(0), key=_flash_cpu_grad(1), value=_flash_cpu_grad(2))},
    function=False, method=False,
    doc="""Blockwise attention on the CPU: ``(output, logsumexp)``; the log-sum-exp is float64 for float64 inputs.

    >>> import openreg
    >>> q = openreg.zeros(1, 1, 2, 2, dtype=openreg.float64)
    >>> out, lse = openreg.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, q, q + 1, is_causal=True)
    >>> out.tolist(), lse.dtype, [round(x, 4) for x in lse.flatten().tolist()]
    ([[[[1.0, 1.0], [1.0, 1.0]]]], openreg.float64, [0.0, 0.6931])
    """,
)

flash_cpu_backward = Op(
    "_scaled_dot_product_flash_attention_for_cpu_backward",
    """
    _scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)
    """,
    kernels={"_scaled_dot_product_flash_attention_for_cpu_backward": {"CPU": _flash_cpu_backward,
                                                                      "Meta": _meta_flash_cpu_backward}},
    function=False, method=False,
)

fused_overrideable = Op(
    "_scaled_dot_product_fused_attention_overrideable",
    """
    _scaled_dot_product_fused_attention_overrideable(Tensor query, Tensor key, Tensor value, Tensor? attn_bias=None, float dropout_p=0.0, bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)
    """,
    kernels={"_scaled_dot_product_fused_attention_overrideable": {
        "Backend": fused_attention, "Meta": _meta_fused,
        "PrivateUse1": "openreg.backends.privateuseone.device_ops:fused_attention"}},
    derivatives={"_scaled_dot_product_fused_attention_overrideable": Deriv(
        save="query key value attn_bias dropout_p is_causal scale result",
        name="ScaledDotProductFusedAttentionOverrideableBackward0",
        query=_fused_grad(0), key=_fused_grad(1), value=_fused_grad(2), attn_bias=_fused_grad(3))},
    function=False, method=False,
)

fused_overrideable_backward = Op(
    "_scaled_dot_product_fused_attention_overrideable_backward",
    """
    _scaled_dot_product_fused_attention_overrideable_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor attn_bias, bool[4] grad_input_mask, Tensor out, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, Tensor philox_seed, Tensor philox_offset, *, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value, Tensor grad_attn_bias)
    """,
    kernels={"_scaled_dot_product_fused_attention_overrideable_backward": {
        "Backend": fused_attention_backward, "Meta": _meta_fused_backward,
        "PrivateUse1": "openreg.backends.privateuseone.device_ops:fused_attention_backward"}},
    function=False, method=False,
)

register(scaled_dot_product_attention, fused_sdp_choice, sdpa_math, flash_cpu, flash_cpu_backward,
         fused_overrideable, fused_overrideable_backward)
