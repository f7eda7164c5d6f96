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


# -- the blockwise kernels (FlashAttention-style online softmax) ------------------------------------------
@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of 2 queries x 3 keys, so the small shapes below cross several tiles (skipped and diagonal causal
    tiles, sums over key tiles)."""
    import openreg.operators._flash_attention as flash
    monkeypatch.setattr(flash, "BLOCK_Q", 2)
    monkeypatch.setattr(flash, "BLOCK_K", 3)


@pytest.fixture(params=["one_chunk", "chunks"])
def tile_layouts(small_tiles, monkeypatch, request):
    """``small_tiles`` with the batch in one chunk or in chunks of one or two items (each operand sliced along
    the batch dimensions it does not broadcast over)."""
    import openreg.operators._flash_attention as flash
    if request.param == "chunks":
        monkeypatch.setattr(flash, "TILE_BUDGET", 12)


def test_cpu_backend_choice_follows_pytorch():
    """PyTorch's CPU answer: FLASH_ATTENTION for 4-d inputs with equal head sizes, no dropout and no mask that
    requires grad (also grouped-query), MATH otherwise."""
    x = openreg.ones(2, 3, 5, 4)
    choice = openreg._fused_sdp_choice
    assert choice(x, x, x) == choice(x, x, x, is_causal=True) == SDPBackend.FLASH_ATTENTION == 1
    assert choice(x, x, x, attn_mask=openreg.zeros(5, 5)) == SDPBackend.FLASH_ATTENTION
    assert choice(x, x, x, attn_mask=openreg.zeros(5, 5).requires_grad_()) == SDPBackend.MATH
    assert choice(x, x, x, dropout_p=0.5) == SDPBackend.MATH
    assert choice(x[0], x[0], x[0]) == SDPBackend.MATH                               # 3-d
    assert choice(x, x, openreg.ones(2, 3, 5, 6)) == SDPBackend.MATH                 # value head size differs
    assert choice(x, x[:1], x[:1]) == SDPBackend.MATH                                # broadcast batch
    assert choice(openreg.ones(2, 4, 5, 4), x[:, :2], x[:, :2], enable_gqa=True) == SDPBackend.FLASH_ATTENTION
    q = x.clone().requires_grad_()
    assert sdpa(q, q, q, is_causal=True).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("case", ["causal", "causal_short_q", "causal_long_q", "bool_mask", "float_mask"])
def test_blockwise_forward_and_lse_match_reference_in_float64(dev, case, tile_layouts):
    L, S = {"causal_short_q": (3, 7), "causal_long_q": (7, 4)}.get(case, (5, 7))
    q, k, v = (a.astype(np.float64) for a in _inputs(21, L=L, S=S))
    mask = None
    if case == "bool_mask":
        mask = np.random.default_rng(22).random((L, S)) > 0.5
        mask[1] = False                                                       # a fully masked row
        mask[3, :5] = False                                                   # masked in the first key tile
    elif case == "float_mask":
        mask = np.random.default_rng(23).standard_normal((2, 1, L, S))
    causal = case.startswith("causal")
    tq, tk, tv = (openreg.tensor(a, dtype=openreg.float64).to(dev) for a in (q, k, v))
    tm = None if mask is None else openreg.tensor(mask).to(dev)
    res = aten._scaled_dot_product_fused_attention_overrideable.default(tq, tk, tv, tm, 0.0, causal)
    ref, _, ref_lse = _ref(q, k, v, mask, causal)
    assert res[1].dtype is openreg.float64                         # the log-sum-exp keeps the compute dtype
    np.testing.assert_allclose(res[0].cpu().numpy(), ref, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(res[1].cpu().numpy(), ref_lse, rtol=1e-12, atol=1e-13)
    if dev == "cpu":
        out, lse = aten._scaled_dot_product_flash_attention_for_cpu.default(tq, tk, tv, 0.0, causal, attn_mask=tm)
        assert lse.dtype is openreg.float64
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(lse.numpy(), ref_lse, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("tiles", ["one_tile", "many_tiles"])
def test_float64_gradcheck_is_tight(dev, tiles, request):
    """float64 backward to ~1e-10: the saved log-sum-exp is float64 (a float32 one left ~1e-7 errors)."""
    if tiles == "many_tiles":
        request.getfixturevalue("small_tiles")
    rng = np.random.default_rng(24)

    def mk(*shape):
        return openreg.tensor(rng.standard_normal(shape), dtype=openreg.float64).to(dev).requires_grad_()
    q, k, v = mk(1, 2, 5, 3), mk(1, 2, 7, 3), mk(1, 2, 7, 3)
    tight = {"eps": 1e-6, "atol": 1e-8, "rtol": 1e-6}
    assert openreg.autograd.gradcheck(lambda q, k, v: sdpa(q, k, v, is_causal=True), (q, k, v), **tight)
    bias = openreg.tensor(rng.standard_normal((5, 7)), dtype=openreg.float64).to(dev)
    assert openreg.autograd.gradcheck(lambda q, k, v: sdpa(q, k, v, attn_mask=bias, scale=0.4), (q, k, v), **tight)
    keep = openreg.tensor(rng.random((5, 7)) > 0.3).to(dev)
    assert openreg.autograd.gradcheck(lambda q, k, v: sdpa(q, k, v, attn_mask=keep), (q, k, v), **tight)
    m = mk(5, 7)        # a bias that requires grad: the CPU uses the math op, the device the fused one
    assert openreg.autograd.gradcheck(lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), (q, k, v, m), **tight)


@pytest.mark.parametrize("dev", DEVICES)
def test_grouped_query_attention_backward(dev, tile_layouts):
    rng = np.random.default_rng(25)
    q = openreg.tensor(rng.standard_normal((1, 4, 5, 3)), dtype=openreg.float64).to(dev).requires_grad_()
    k, v = (openreg.tensor(rng.standard_normal((1, 2, 5, 3)), dtype=openreg.float64).to(dev).requires_grad_()
            for _ in range(2))
    out = sdpa(q, k, v, is_causal=True, enable_gqa=True)
    ref, _, _ = _ref(q.detach().cpu().numpy(), np.repeat(k.detach().cpu().numpy(), 2, axis=1),
                     np.repeat(v.detach().cpu().numpy(), 2, axis=1), is_causal=True)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref, rtol=1e-12, atol=1e-13)
    assert openreg.autograd.gradcheck(lambda q, k, v: sdpa(q, k, v, is_causal=True, enable_gqa=True), (q, k, v),
                                      eps=1e-6, atol=1e-8, rtol=1e-6)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["causal", "bool_mask", "float_mask"])
def test_matches_pytorch(dev, dtype, case, tile_layouts):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    rng = np.random.default_rng(26)
    q, k, v = (rng.standard_normal((2, 3, 6, 4)) for _ in range(3))
    go = rng.standard_normal((2, 3, 6, 4))
    mask = {"bool_mask": rng.random((6, 6)) > 0.4, "float_mask": rng.standard_normal((6, 6))}.get(case)
    kw = {"is_causal": True} if case == "causal" else {}
    tt = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True) for a in (q, k, v)]
    tmask = None if mask is None else torch.tensor(mask if mask.dtype == bool else mask.astype(dtype))
    t_out = torch.nn.functional.scaled_dot_product_attention(*tt, attn_mask=tmask, **kw)
    t_out.backward(torch.tensor(go, dtype=getattr(torch, dtype)))
    ot = [openreg.tensor(a, dtype=getattr(openreg, dtype)).to(dev).requires_grad_() for a in (q, k, v)]
    omask = None if mask is None else openreg.tensor(mask if mask.dtype == bool else mask.astype(dtype)).to(dev)
    o_out = sdpa(*ot, attn_mask=omask, **kw)
    o_out.backward(openreg.tensor(go, dtype=getattr(openreg, dtype)).to(dev))
    tol = 1e-12 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(o_out.detach().cpu().numpy(), t_out.detach().numpy(), rtol=tol, atol=tol)
    for a, b in zip(ot, tt):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("case", ["overflow", "underflow", "one_hidden_row"])
def test_forward_falls_back_to_the_online_softmax(dev, case, tile_layouts):
    """Scores whose exp overflows float32, rows whose every score underflows it, and a row an explicit mask
    hides entirely: the forward without a running maximum cannot represent them and reruns the chunk with it."""
    q, k, v = _inputs(27, L=5, S=7)
    mask = None
    if case == "overflow":                      # scores about 10 * 10 * 4 / sqrt(4) = 200
        q, k = q * 0.5 + 10, k * 0.5 + 10
    elif case == "underflow":                   # about -200: exp of every score is 0 in float32
        q, k = q * 0.5 + 10, k * 0.5 - 10
    else:
        mask = np.ones((5, 7), bool)
        mask[2] = False
    ref, _, ref_lse = _ref(q, k, v, mask, is_causal=mask is None)
    tq, tk, tv = (_t(a, dev).requires_grad_() for a in (q, k, v))
    out, lse = aten._scaled_dot_product_fused_attention_overrideable.default(
        tq, tk, tv, None if mask is None else _t(mask, dev), 0.0, mask is None)[:2]
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lse.detach().cpu().numpy(), ref_lse, rtol=1e-5, atol=1e-3)
    assert np.isfinite(out.detach().cpu().numpy()).all()
