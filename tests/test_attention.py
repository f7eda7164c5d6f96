"""Scaled dot-product attention on CPU and the device against a NumPy reference; backend choice; backward op."""
import math

import numpy as np
import pytest
from device_params import DEVICES, HAS_DEVICE
from openreg.backends.cpu.kernels_random import numpy_values

import openreg
from openreg.nn.attention import SDPBackend
from openreg.nn.functional import scaled_dot_product_attention as sdpa

aten = openreg.ops.aten


def _ref(q, k, v, mask=None, is_causal=False, scale=None):
    """NumPy reference (float64): softmax(q k^T * scale + bias) v, fully masked rows -> 0."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    L, S = s.shape[-2:]
    if is_causal:
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    m = s.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    d = e.sum(-1, keepdims=True)
    p = np.where(d > 0, e / np.where(d > 0, d, 1), 0)
    lse = np.where(d > 0, np.log(np.where(d > 0, d, 1)) + m, -np.inf)[..., 0]
    return p @ v, p, lse


def _inputs(seed=0, b=2, h=3, L=5, S=7, E=4, Ev=6):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((b, h, L, E)).astype(np.float32), rng.standard_normal((b, h, S, E)).astype(np.float32),
            rng.standard_normal((b, h, S, Ev)).astype(np.float32))


def _t(a, dev):
    return openreg.tensor(a).to(dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("case", ["plain", "causal", "bool_mask", "float_mask", "scale"])
def test_forward_matches_numpy(dev, case):
    q, k, v = _inputs()
    kwargs, mask = {}, None
    if case == "causal":
        kwargs["is_causal"] = True
    elif case == "bool_mask":
        mask = np.random.default_rng(1).random((5, 7)) > 0.4
        mask[2] = False                           # a fully masked row gives zeros
    elif case == "float_mask":
        mask = np.random.default_rng(2).standard_normal((2, 1, 5, 7)).astype(np.float32)
    elif case == "scale":
        kwargs["scale"] = 0.3
    out = sdpa(_t(q, dev), _t(k, dev), _t(v, dev), attn_mask=None if mask is None else _t(mask, dev), **kwargs)
    assert out.device == openreg.device(dev) and out.shape == (2, 3, 5, 6) and out.dtype is openreg.float32
    ref, _, _ = _ref(q, k, v, mask, kwargs.get("is_causal", False), kwargs.get("scale"))
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)
    if case == "bool_mask":
        assert np.all(out.cpu().numpy()[:, :, 2] == 0)


def test_backend_choice():
    q, k, v = (openreg.tensor(a) for a in _inputs())
    assert openreg._fused_sdp_choice(q, k, v) == SDPBackend.MATH == 0
    if HAS_DEVICE:
        dq, dk, dv = (t.to("privateuseone") for t in (q, k, v))
        assert openreg._fused_sdp_choice(dq, dk, dv) == SDPBackend.OVERRIDEABLE == 4
        mask = openreg.zeros(5, 7).to("privateuseone")
        assert aten._fused_sdp_choice.default(dq, dk, dv, mask) == SDPBackend.OVERRIDEABLE


@pytest.mark.parametrize("dev", DEVICES)
def test_fused_overrideable_forward_outputs(dev):
    q, k, v = _inputs(3)
    mask = np.random.default_rng(4).standard_normal((5, 7)).astype(np.float32)
    res = aten._scaled_dot_product_fused_attention_overrideable.default(
        _t(q, dev), _t(k, dev), _t(v, dev), attn_bias=_t(mask, dev), return_debug_mask=True)
    out, lse, _cq, _ck, max_q, max_k, seed, offset, debug = res
    ref, p, ref_lse = _ref(q, k, v, mask)
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lse.cpu().numpy(), ref_lse, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(debug.cpu().numpy(), p, rtol=1e-5, atol=1e-6)
    assert (max_q, max_k) == (5, 7) and lse.dtype is openreg.float32 and out.device == openreg.device(dev)
    assert seed.dtype is openreg.int64 and offset.dim() == 0


def _numeric_grads(q, k, v, mask, go, eps=1e-6):
    """Central differences of sum(out * go) in float64."""
    def f(q_, k_, v_, m_):
        return float((_ref(q_, k_, v_, m_)[0] * go).sum())
    grads = []
    for idx, arr in enumerate((q, k, v, mask)):
        g = np.zeros_like(arr, dtype=np.float64)
        it = np.nditer(arr, flags=["multi_index"])
        for _ in it:
            i = it.multi_index
            args = [a.astype(np.float64).copy() for a in (q, k, v, mask)]
            args[idx][i] += eps
            hi = f(*args)
            args[idx][i] -= 2 * eps
            lo = f(*args)
            g[i] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("dev", DEVICES)
def test_backward_op_matches_numeric_gradients(dev):
    q, k, v = (a.astype(np.float64) for a in _inputs(5, b=1, h=2, L=3, S=4, E=2, Ev=3))
    mask = np.random.default_rng(6).standard_normal((3, 4))
    go = np.random.default_rng(7).standard_normal((1, 2, 3, 3))
    tq, tk, tv, tm = (openreg.tensor(a, dtype=openreg.float64).to(dev) for a in (q, k, v, mask))
    fwd = aten._scaled_dot_product_fused_attention_overrideable.default(tq, tk, tv, attn_bias=tm)
    out, lse, cq, ck, mq, mk, seed, off, _ = fwd
    grads = aten._scaled_dot_product_fused_attention_overrideable_backward.default(
        openreg.tensor(go, dtype=openreg.float64).to(dev), tq, tk, tv, tm, [True, True, True, True], out, lse, cq,
        ck, mq, mk, dropout_p=0.0, is_causal=False, philox_seed=seed, philox_offset=off)
    for got, ref in zip(grads, _numeric_grads(q, k, v, mask, go)):
        assert got.device == openreg.device(dev)
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-5, atol=1e-7)
    some = aten._scaled_dot_product_fused_attention_overrideable_backward.default(
        openreg.tensor(go, dtype=openreg.float64).to(dev), tq, tk, tv, tm, [False, True, False, False], out, lse, cq,
        ck, mq, mk, 0.0, False, seed, off)
    assert some[0] is None and some[2] is None and some[3] is None and some[1].shape == (1, 2, 4, 2)


@pytest.mark.parametrize("dev", DEVICES)
def test_causal_backward_and_dropout_mask_regenerated(dev):
    q, k, v = (a.astype(np.float64) for a in _inputs(8, b=1, h=1, L=4, S=4, E=3, Ev=2))
    tq, tk, tv = (openreg.tensor(a, dtype=openreg.float64).to(dev) for a in (q, k, v))
    none = openreg.empty(0, dtype=openreg.float64).to(dev)      # "no bias" for the backward op
    out, lse, cq, ck, mq, mk, seed, off, _ = aten._scaled_dot_product_fused_attention_overrideable.default(
        tq, tk, tv, None, 0.5, True)
    # the dropout keep-mask is the Philox stream at (philox_seed, philox_offset): out == (P * keep / (1 - p)) @ v
    _, p, _ = _ref(q, k, v, is_causal=True)
    keep = numpy_values("f32", int(seed.item()), int(off.item()), p.size).reshape(p.shape) >= 0.5
    np.testing.assert_allclose(out.cpu().numpy(), (p * keep * 2.0) @ v, rtol=1e-6, atol=1e-9)
    go = np.ones((1, 1, 4, 2))
    gq, _gk, gv, gb = aten._scaled_dot_product_fused_attention_overrideable_backward.default(
        openreg.tensor(go, dtype=openreg.float64).to(dev), tq, tk, tv, none, [True, True, True, True], out, lse,
        cq, ck, mq, mk, 0.5, True, seed, off)
    np.testing.assert_allclose(gv.cpu().numpy(), np.swapaxes(p * keep * 2.0, -1, -2) @ go, rtol=1e-6)
    assert gb is None and gq.shape == q.shape


def test_math_op_returns_weights():
    q, k, v = _inputs(9)
    out, w = aten._scaled_dot_product_attention_math.default(*(openreg.tensor(a) for a in (q, k, v)))
    ref, p, _ = _ref(q, k, v)
    np.testing.assert_allclose(w.numpy(), p, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dev", DEVICES)
def test_half_precision_and_gqa(dev):
    q, k, v = _inputs(10, h=4)
    out = sdpa(*(openreg.tensor(a, dtype=openreg.float16).to(dev) for a in (q, k, v)))
    assert out.dtype is openreg.float16
    ref, _, _ = _ref(*(a.astype(np.float16) for a in (q, k, v)))
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), ref, rtol=2e-2, atol=2e-2)
    kg, vg = k[:, :2], v[:, :2]
    out = sdpa(_t(q, dev), _t(kg, dev), _t(vg, dev), enable_gqa=True)
    ref, _, _ = _ref(q, np.repeat(kg, 2, axis=1), np.repeat(vg, 2, axis=1))
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_meta_shapes():
    q, k, v = openreg.empty(2, 3, 5, 4, device="meta"), openreg.empty(2, 3, 7, 4, device="meta"), \
        openreg.empty(2, 3, 7, 6, device="meta")
    assert sdpa(q, k, v).shape == (2, 3, 5, 6)
    res = aten._scaled_dot_product_fused_attention_overrideable.default(q, k, v)
    assert res[0].shape == (2, 3, 5, 6) and res[1].shape == (2, 3, 5) and res[4:6] == (5, 7)


def test_bad_input():
    q = openreg.ones(1, 2, 4)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        sdpa(q, q, q, attn_mask=openreg.ones(2, 2), is_causal=True)
    with pytest.raises(RuntimeError, match="same dtype"):
        sdpa(q, q.to(openreg.float64), q)
    with pytest.raises(RuntimeError, match="embedding size"):
        sdpa(q, openreg.ones(1, 2, 3), q)
    with pytest.raises(RuntimeError, match="dropout probability"):
        sdpa(q, q, q, dropout_p=1.5)
    with pytest.raises(RuntimeError, match="floating point"):
        sdpa(*(openreg.ones(1, 2, 2, dtype=openreg.int64),) * 3)
    if HAS_DEVICE:
        with pytest.raises(RuntimeError, match="same device"):
            sdpa(q, q.to("privateuseone"), q)


@pytest.mark.parametrize("dev", DEVICES)
def test_gradcheck_through_scaled_dot_product_attention(dev):
    rng = np.random.default_rng(11)

    def mk(*shape):
        return openreg.tensor(rng.standard_normal(shape), dtype=openreg.float64).to(dev).requires_grad_()
    q, k, v, m = mk(1, 2, 3, 4), mk(1, 2, 5, 4), mk(1, 2, 5, 2), mk(3, 5)
    assert openreg.autograd.gradcheck(lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), (q, k, v, m))
    assert openreg.autograd.gradcheck(lambda q, k, v: sdpa(q, k, v, is_causal=True, scale=0.7), (q, k, v))
    expected = "ScaledDotProductFusedAttentionOverrideableBackward0" if dev != "cpu" else \
        "ScaledDotProductAttentionMathBackward0"
    assert sdpa(q, k, v).grad_fn.name() == expected


@pytest.mark.parametrize("dev", DEVICES)
def test_dropout_backward_runs_through_fused_kernel(dev):
    q = openreg.tensor(np.random.default_rng(12).standard_normal((1, 4, 3)), dtype=openreg.float64).to(dev)
    q.requires_grad_()
    out = sdpa(q, q, q, dropout_p=0.5)
    assert out.grad_fn.name() == "ScaledDotProductFusedAttentionOverrideableBackward0"
    out.sum().backward()
    assert q.grad.shape == q.shape and np.isfinite(q.grad.cpu().numpy()).all()


@pytest.mark.parametrize("gqa", [False, True])
def test_dropout_follows_the_manual_seed_on_cpu_and_device(gqa):
    """Dropout masks come from openreg's generators: same seed, same output (CPU and device alike)."""
    rng = np.random.default_rng(5)
    q = openreg.tensor(rng.standard_normal((2, 4, 6, 3)), dtype=openreg.float32)
    kv = openreg.tensor(rng.standard_normal((2, 2 if gqa else 4, 6, 3)), dtype=openreg.float32)
    results = {}
    usable = ["cpu"] + (["privateuseone:0"] if HAS_DEVICE else [])
    for dev in usable:
        args = (q.to(dev), kv.to(dev), kv.to(dev))
        runs = []
        for seed in (7, 7, 8):
            openreg.manual_seed(seed)
            runs.append(sdpa(*args, dropout_p=0.5, enable_gqa=gqa).cpu().numpy())
        openreg.manual_seed(7)
        first, second = sdpa(*args, dropout_p=0.5, enable_gqa=gqa), sdpa(*args, dropout_p=0.5, enable_gqa=gqa)
        np.testing.assert_array_equal(runs[0], runs[1])
        assert not np.allclose(runs[0], runs[2])                               # another seed, another mask
        assert not np.allclose(first.cpu().numpy(), second.cpu().numpy())      # the generator advanced
        np.testing.assert_array_equal(first.cpu().numpy(), runs[0])
        results[dev] = runs[0]
    for dev in usable[1:]:
        np.testing.assert_allclose(results[dev], results["cpu"], rtol=1e-5, atol=1e-6)


def test_dropout_uses_the_query_device_generator():
    q = openreg.tensor(np.random.default_rng(6).standard_normal((1, 3, 4)), dtype=openreg.float32)
    g = openreg.random.default_generator("cpu")
    openreg.manual_seed(1)
    before = g.get_state().cpu().numpy().copy()
    sdpa(q, q, q, dropout_p=0.25)
    assert not np.array_equal(g.get_state().cpu().numpy(), before)
    g.set_state(openreg.tensor(before))
    again = sdpa(q, q, q, dropout_p=0.25)
    openreg.manual_seed(1)
    np.testing.assert_array_equal(sdpa(q, q, q, dropout_p=0.25).numpy(), again.numpy())


@pytest.mark.parametrize("dev", DEVICES)
def test_shapes_that_do_not_broadcast_raise_pytorch_error(dev):
    q = openreg.randn(2, 3, device=dev)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 1"):
        sdpa(q, q, q, openreg.randn(2, 3, device=dev))
    with pytest.raises(RuntimeError, match=r"size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 0"):
        sdpa(openreg.randn(2, 2, 3, device=dev), openreg.randn(3, 2, 3, device=dev), openreg.randn(3, 2, 3, device=dev))
    fused = openreg.ops.aten._scaled_dot_product_fused_attention_overrideable.default
    with pytest.raises(RuntimeError, match="must match"):
        fused(q, q, q, openreg.randn(2, 2, 3, device=dev))
    out, lse = fused(q, q, q)[:2]
    backward = openreg.ops.aten._scaled_dot_product_fused_attention_overrideable_backward.default
    seed = offset = openreg.tensor(0, device=dev)
    none = openreg.empty(0, device=dev)
    with pytest.raises(RuntimeError, match=r"expected grad_out of shape \[2, 3\]"):
        backward(openreg.ones(2, 2, device=dev), q, q, q, none, [True] * 4, out, lse, none, none, 2, 2, 0.0,
                 False, seed, offset)
    grads = backward(openreg.ones(2, 3, device=dev), q, q, q, none, [True, True, True, False], out, lse, none,
                     none, 2, 2, 0.0, False, seed, offset)
    assert [g.shape for g in grads[:3]] == [(2, 3)] * 3
