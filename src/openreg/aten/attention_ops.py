"""Scaled dot-product attention: the operators, the backend choice, argument checks and Meta kernels.

``scaled_dot_product_attention`` (CompositeImplicitAutograd) asks ``_fused_sdp_choice`` which backend to use
(PyTorch's ``SDPBackend`` numbering): the PrivateUse1 device answers ``OVERRIDEABLE`` and runs
``_scaled_dot_product_fused_attention_overrideable`` (whose gradient is
``_scaled_dot_product_fused_attention_overrideable_backward``); the CPU answers ``MATH`` and runs
``_scaled_dot_product_attention_math``. Backends provide the array kernels
(``openreg.backends.cpu.kernels_attention``).

>>> import openreg
>>> q = openreg.ones(1, 2, 4)
>>> openreg.ops.aten._fused_sdp_choice.default(q, q, q) == SDPBackend.MATH
True
"""
from __future__ import annotations

import enum
import math

from .. import dtypes as _dt
from ..library import Library
from .meta_rules import broadcast_shapes


class SDPBackend(enum.IntEnum):
    """PyTorch's ``torch.nn.attention.SDPBackend`` values (what ``_fused_sdp_choice`` returns)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


SCHEMAS = [
    (("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
      "float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor"), ()),
    (("_fused_sdp_choice(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, "
      "bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> int"), ()),
    (("_scaled_dot_product_attention_math(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
      "float dropout_p=0.0, bool is_causal=False, Tensor? dropout_mask=None, *, float? scale=None, "
      "bool enable_gqa=False) -> (Tensor, Tensor)"), ()),
    (("_scaled_dot_product_fused_attention_overrideable(Tensor query, Tensor key, Tensor value, "
      "Tensor? attn_bias=None, float dropout_p=0.0, bool is_causal=False, bool return_debug_mask=False, *, "
      "float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, "
      "SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)"), ()),
    (("_scaled_dot_product_fused_attention_overrideable_backward(Tensor grad_out, Tensor query, Tensor key, "
      "Tensor value, Tensor attn_bias, bool[4] grad_input_mask, Tensor out, Tensor logsumexp, Tensor cum_seq_q, "
      "Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, Tensor philox_seed, "
      "Tensor philox_offset, *, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value, "
      "Tensor grad_attn_bias)"), ()),
]


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
    if query._size[-1] != key._size[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same embedding size "
                           f"(last dimension), got query {_fmt(query)} and key {_fmt(key)}")
    if key._size[-2] != value._size[-2]:
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
    batch_k, batch_v = tuple(key._size[:-2]), tuple(value._size[:-2])
    if enable_gqa:
        hq, hk = query._size[-3] if query.dim() >= 3 else 1, key._size[-3] if key.dim() >= 3 else 1
        if hq % hk:
            raise RuntimeError(f"scaled_dot_product_attention: number of heads in key/value ({hk}) must divide "
                               f"the number of heads in query ({hq})")
        if query.dim() >= 3 and key.dim() >= 3 and value.dim() >= 3:    # heads are repeated, not broadcast
            batch_k, batch_v = batch_k[:-1] + (hq,), batch_v[:-1] + (hq,)
    # The two matmuls broadcast the batch dimensions; the mask broadcasts to the scores' shape.
    batch = broadcast_shapes(broadcast_shapes(tuple(query._size[:-2]), batch_k), batch_v)
    if attn_mask is not None:
        broadcast_shapes((*batch, query._size[-2], key._size[-2]), attn_mask._size)


def check_sdpa_backward_args(grad_out, query, key, value, attn_bias, out, logsumexp, dropout_p: float,
                             is_causal: bool) -> None:
    """The forward's checks, and ``grad_out``/``out``/``logsumexp`` shaped as the forward's results.

    An empty ``attn_bias`` means none (autograd passes one when the forward had no mask).
    """
    check_sdpa_args(query, key, value, attn_bias if attn_bias is not None and attn_bias.numel() else None,
                    dropout_p, is_causal)
    for name, t in (("grad_out", grad_out), ("out", out), ("logsumexp", logsumexp)):
        if t.device != query.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{query.device} and {t.device}! (when checking argument {name} of "
                               f"_scaled_dot_product_fused_attention_overrideable_backward)")
    batch = broadcast_shapes(tuple(query._size[:-2]), tuple(key._size[:-2]), tuple(value._size[:-2]))
    rows = (*batch, query._size[-2])
    for name, t, shape in (("grad_out", grad_out, (*rows, value._size[-1])), ("out", out, (*rows, value._size[-1])),
                           ("logsumexp", logsumexp, rows)):
        if tuple(t._size) != shape:
            raise RuntimeError(f"_scaled_dot_product_fused_attention_overrideable_backward: expected {name} of "
                               f"shape {list(shape)}, got {_fmt(t)}")


def softmax_scale(query, scale) -> float:
    """``scale`` or ``1/sqrt(E)`` for an embedding size ``E``."""
    return float(scale) if scale is not None else 1.0 / math.sqrt(query._size[-1])


def out_shapes(query, key, value) -> tuple:
    """(output shape, logsumexp shape, attention-weights shape) with broadcast batch dimensions."""
    from .meta_rules import broadcast_shapes
    batch = broadcast_shapes(tuple(query._size[:-2]), tuple(key._size[:-2]), tuple(value._size[:-2]))
    L, S, Ev = query._size[-2], key._size[-2], value._size[-1]
    return batch + (L, Ev), batch + (L,), batch + (L, S)


# -- backend choice (no data needed) -----------------------------------------------------------------------
def fused_sdp_choice_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                          enable_gqa=False) -> int:
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    return int(SDPBackend.MATH)


def fused_sdp_choice_overrideable(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
                                  scale=None, enable_gqa=False) -> int:
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    return int(SDPBackend.OVERRIDEABLE)


# -- the composite entry point -----------------------------------------------------------------------------
def _sdpa_composite(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                    enable_gqa=False):
    from .._dispatch.ops import ops
    aten = ops.aten
    choice = aten._fused_sdp_choice.default(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                            enable_gqa=enable_gqa)
    gqa = enable_gqa and query.dim() >= 3 and key.dim() >= 3 and query._size[-3] != key._size[-3]
    if choice == SDPBackend.OVERRIDEABLE and not gqa:
        return aten._scaled_dot_product_fused_attention_overrideable.default(
            query, key, value, attn_mask, dropout_p, is_causal, False, scale=scale)[0]
    if choice == SDPBackend.MATH and dropout_p > 0 and not gqa:
        # The fused kernel keeps its dropout seed, which makes the dropout differentiable; same math.
        return aten._scaled_dot_product_fused_attention_overrideable.default(
            query, key, value, attn_mask, dropout_p, is_causal, False, scale=scale)[0]
    if choice in (SDPBackend.MATH, SDPBackend.OVERRIDEABLE):
        return aten._scaled_dot_product_attention_math.default(
            query, key, value, attn_mask, dropout_p, is_causal, None, scale=scale, enable_gqa=enable_gqa)[0]
    raise RuntimeError(f"scaled_dot_product_attention: no attention backend for query {_fmt(query)}")


# -- Meta kernels ------------------------------------------------------------------------------------------
def _empty(size, dtype, device):
    from .structured import empty_tensor
    return empty_tensor(tuple(size), dtype, device)


def _meta_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, dropout_mask=None, *,
               scale=None, enable_gqa=False):
    check_sdpa_args(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    o, _, w = out_shapes(query, key, value)
    return _empty(o, query._dtype, query.device), _empty(w, query._dtype, query.device)


def _meta_fused(query, key, value, attn_bias=None, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
                scale=None):
    check_sdpa_args(query, key, value, attn_bias, dropout_p, is_causal)
    o, lse, w = out_shapes(query, key, value)
    dev = query.device
    return (_empty(o, query._dtype, dev), _empty(lse, _dt.float32, dev), _empty((0,), _dt.int32, dev),
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


_def = Library("aten", "FRAGMENT")
for _schema, _tags in SCHEMAS:
    _def.define(_schema, tags=_tags)
_kernels = Library("aten", "IMPL")
_kernels.impl("scaled_dot_product_attention", _sdpa_composite, "CompositeImplicitAutograd")
_kernels.impl("_fused_sdp_choice", fused_sdp_choice_math, "CPU")
_kernels.impl("_fused_sdp_choice", fused_sdp_choice_math, "Meta")
_kernels.impl("_fused_sdp_choice", fused_sdp_choice_overrideable, "PrivateUse1")
_kernels.impl("_scaled_dot_product_attention_math", _meta_math, "Meta")
_kernels.impl("_scaled_dot_product_fused_attention_overrideable", _meta_fused, "Meta")
_kernels.impl("_scaled_dot_product_fused_attention_overrideable_backward", _meta_fused_backward, "Meta")


def _fused_sdp_choice(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False, *,
                      scale: float | None = None, enable_gqa: bool = False) -> int:
    """Which attention backend ``scaled_dot_product_attention`` uses for these inputs (an ``SDPBackend`` value).

    >>> import openreg
    >>> x = openreg.ones(1, 2, 4)
    >>> openreg._fused_sdp_choice(x, x, x)
    0
    """
    from .._dispatch.ops import ops
    return ops.aten._fused_sdp_choice.default(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                              enable_gqa=enable_gqa)


# -- derivatives (wired by openreg.autograd from the derivatives table) -------------------------------------
def _backward_op(go, a, res, bias, which: int, dropout_p: float):
    from .._dispatch.ops import ops
    mask = [i == which for i in range(4)]
    return ops.aten._scaled_dot_product_fused_attention_overrideable_backward.default(
        go, a.query, a.key, a.value, bias, mask, res[0], res[1], res[2], res[3], res[4], res[5], dropout_p,
        a.is_causal, res[6], res[7], scale=a.scale)[which]


def _no_bias(like):
    from .._dispatch.ops import ops
    return ops.aten.empty_strided.default((0,), (1,), dtype=like._dtype, device=like.device)


def _grad_of_output(g, like):
    if g is not None:
        return g
    from .._dispatch.ops import ops
    return ops.aten.zero_.default(ops.aten.empty_strided.default(tuple(like._size), tuple(like._stride),
                                                                 dtype=like._dtype, device=like.device))


def _fused_grad(which: int):
    def grad(g, a):
        res = a.result
        bias = a.attn_bias if a.attn_bias is not None else _no_bias(a.query)
        return _backward_op(_grad_of_output(g[0], res[0]), a, res, bias, which, a.dropout_p)
    return grad


def _math_grad(which: int):
    def grad(g, a):
        from .._dispatch.ops import ops
        if a.dropout_p > 0:
            raise NotImplementedError("_scaled_dot_product_attention_math: the backward of dropout_p > 0 is not "
                                      "implemented; scaled_dot_product_attention uses the fused kernel for it")
        if a.enable_gqa and a.query.dim() >= 3 and a.query._size[-3] != a.key._size[-3]:
            raise NotImplementedError("_scaled_dot_product_attention_math: the backward of enable_gqa=True with "
                                      "fewer key/value heads is not implemented")
        res = ops.aten._scaled_dot_product_fused_attention_overrideable.default(
            a.query, a.key, a.value, a.attn_mask, 0.0, a.is_causal, False, scale=a.scale)
        bias = a.attn_mask if a.attn_mask is not None else _no_bias(a.query)
        go = _grad_of_output(g[0], res[0])
        if g[1] is not None:
            raise NotImplementedError("_scaled_dot_product_attention_math: gradients flowing into the attention "
                                      "weights output are not supported")
        return _backward_op(go, a, res, bias, which, 0.0)
    return grad


def _register_derivatives() -> None:
    from .derivatives import defderiv
    defderiv("aten::_scaled_dot_product_fused_attention_overrideable", save="query key value attn_bias result",
             name="ScaledDotProductFusedAttentionOverrideableBackward0", query=_fused_grad(0), key=_fused_grad(1),
             value=_fused_grad(2), attn_bias=_fused_grad(3))
    defderiv("aten::_scaled_dot_product_attention_math", save="query key value attn_mask",
             name="ScaledDotProductAttentionMathBackward0", query=_math_grad(0), key=_math_grad(1),
             value=_math_grad(2), attn_mask=_math_grad(3))


_register_derivatives()
