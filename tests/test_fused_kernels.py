"""The raw CUDA kernels of fused attention (attention.cu) and the fused LSTM/GRU cells (rnn_cells.cu), run
through the host launcher (OPENREG_EMULATE_KERNELS=1 on the emulated driver) against the array code."""
from __future__ import annotations

import numpy as np
import pytest
from openreg.backends.privateuseone import kernels as kl

import openreg
from openreg import _array_bridge

DEV = "privateuseone:0"
aten = openreg.ops.aten


@pytest.fixture
def raw(monkeypatch):
    """The kernels' launcher with OPENREG_EMULATE_KERNELS=1 (the emulated driver only)."""
    if openreg.privateuseone.driver() != "emulated":
        pytest.skip("the OPENREG_EMULATE_KERNELS switch is for the emulated driver")
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    return kl.launcher()


def _launched(lnch, fn):
    before = dict(lnch.launch_counts)
    result = fn()
    return result, {k: v - before.get(k, 0) for k, v in lnch.launch_counts.items() if v != before.get(k, 0)}


def _attention(monkeypatch, dtype, causal, mask_kind, L=37, S=45, E=24, Ev=20, emulate="1"):
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", emulate)
    rng = np.random.default_rng(3)
    q, k, v = (openreg.tensor(rng.standard_normal(s), dtype=dtype).to(DEV).requires_grad_()
               for s in ((2, 3, L, E), (2, 3, S, E), (2, 3, S, Ev)))
    mask = None
    if mask_kind == "bool":
        m = rng.random((3, L, S)) > 0.4
        m[1, 5] = False                                          # a row whose every key is masked
        mask = openreg.tensor(m).to(DEV)
    elif mask_kind == "float":
        mask = openreg.tensor(rng.standard_normal((2, 1, L, S)), dtype=dtype).to(DEV)
    out = openreg.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
    go = openreg.tensor(rng.standard_normal(tuple(out.shape)), dtype=dtype).to(DEV)
    out.backward(go)
    return [t.detach().cpu().numpy() for t in (out, q.grad, k.grad, v.grad)]


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("case", [(True, None), (False, "bool"), (False, "float"), (False, None)])
def test_attention_kernels_match_the_array_path(raw, monkeypatch, dtype, case):
    causal, mask_kind = case
    (ref, ref_launched) = _launched(raw, lambda: _attention(monkeypatch, dtype, causal, mask_kind, emulate="0"))
    got, launched = _launched(raw, lambda: _attention(monkeypatch, dtype, causal, mask_kind))
    suffix = kl.DTYPE_SUFFIX[np.dtype(dtype.numpy)]
    assert not any(name.startswith("attention") for name in ref_launched)
    assert {f"attention_fwd_{suffix}", f"attention_bwd_dq_{suffix}", f"attention_bwd_dkdv_{suffix}"} <= set(launched)
    tol = 1e-12 if dtype is openreg.float64 else 2e-5
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", [(True, None), (False, "bool"), (False, "float"), (False, None)])
def test_bfloat16_attention_kernels_work_on_the_words(raw, monkeypatch, case):
    """bfloat16 q/k/v, out and its gradient stay 16-bit words: the kernels load them into float32 tiles and
    round each result once as they store it. Equal to the array path (float32 on widened copies, rounded) up to a
    bfloat16 rounding; nothing but an additive bfloat16 mask (kept float32 by the kernels) is widened."""
    causal, mask_kind = case
    ref, _ = _launched(raw, lambda: _attention(monkeypatch, openreg.bfloat16, causal, mask_kind, emulate="0"))
    widened = []
    real = _array_bridge.to_float32
    monkeypatch.setattr(_array_bridge, "to_float32", lambda a, d: widened.append(tuple(a.shape)) or real(a, d))
    got, launched = _launched(raw, lambda: _attention(monkeypatch, openreg.bfloat16, causal, mask_kind))
    assert {"attention_fwd_bf16", "attention_bwd_dq_bf16", "attention_bwd_dkdv_bf16"} <= set(launched)
    assert set(widened) <= ({(2, 1, 37, 45)} if mask_kind == "float" else set())
    for a, b in zip(got, ref):
        a, b = a.astype(np.float32), b.astype(np.float32)
        np.testing.assert_allclose(a, b, rtol=2 ** -7, atol=2 ** -7 * np.abs(b).max())


def test_attention_kernel_logsumexp_and_masked_rows(raw):
    rng = np.random.default_rng(4)
    q, k, v = (openreg.tensor(rng.standard_normal((1, 2, 19, 8)), dtype=openreg.float64).to(DEV) for _ in range(3))
    mask = np.ones((19, 19), bool)
    mask[3] = False
    (out, lse, *_), launched = _launched(raw, lambda: aten._scaled_dot_product_fused_attention_overrideable(
        q, k, v, openreg.tensor(mask).to(DEV)))
    assert launched == {"attention_fwd_f64": 1}
    qa, ka, va = (t.cpu().numpy() for t in (q, k, v))
    s = np.where(mask, qa @ np.swapaxes(ka, -1, -2) / np.sqrt(8), -np.inf)
    m = s.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    d = e.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.cpu().numpy(), np.where(d > 0, e / np.where(d > 0, d, 1), 0) @ va, atol=1e-13)
    ref_lse = np.where(d > 0, np.log(np.where(d > 0, d, 1)) + m, -np.inf)[..., 0]
    np.testing.assert_allclose(lse.cpu().numpy(), ref_lse, rtol=1e-13)
    assert lse.dtype is openreg.float64 and np.isneginf(lse.cpu().numpy()[:, :, 3]).all()


def test_attention_kernels_are_skipped_where_they_do_not_apply(raw):
    q = openreg.randn(1, 2, 5, kl.ATTN_MAX_HEAD + 1, device=DEV)
    _, launched = _launched(raw, lambda: aten._scaled_dot_product_fused_attention_overrideable(q, q, q))
    assert launched == {}                                           # head size above the kernel's limit
    k = openreg.randn(1, 1, 5, 4, device=DEV)
    q = openreg.randn(1, 2, 5, 4, device=DEV)
    _, launched = _launched(raw, lambda: openreg.nn.functional.scaled_dot_product_attention(q, k, k, enable_gqa=True))
    assert launched == {}                                           # broadcast (grouped-query) batch dimensions
    h = q.to(openreg.float16)
    out, launched = _launched(raw, lambda: aten._scaled_dot_product_fused_attention_overrideable(h, h, h)[0])
    assert launched == {"attention_fwd_f32": 1} and out.dtype is openreg.float16    # computed in float32


def _cells(monkeypatch, mode, dtype, emulate, bias=True):
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", emulate)
    openreg.manual_seed(0)
    cls = openreg.nn.LSTM if mode == "lstm" else openreg.nn.GRU
    rnn = cls(5, 7, num_layers=2, bias=bias).to(DEV).to(dtype)
    x = openreg.randn(6, 3, 5, dtype=dtype).to(DEV).requires_grad_()
    out, _ = rnn(x)
    (out * out).sum().backward()
    return [t.detach().cpu().numpy() for t in (out, x.grad, *(p.grad for p in rnn.parameters()))]


@pytest.mark.parametrize("mode", ["lstm", "gru"])
@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_cell_kernels_match_the_array_path(raw, monkeypatch, mode, dtype):
    ref, ref_launched = _launched(raw, lambda: _cells(monkeypatch, mode, dtype, "0"))
    got, launched = _launched(raw, lambda: _cells(monkeypatch, mode, dtype, "1"))
    suffix = kl.DTYPE_SUFFIX[np.dtype(dtype.numpy)]
    assert not any("_cell_" in name for name in ref_launched)
    assert launched.get(f"{mode}_cell_fwd_{suffix}") == 12 and launched.get(f"{mode}_cell_bwd_{suffix}") == 12
    tol = 1e-12 if dtype is openreg.float64 else 1e-5
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_lstm_cell_kernel_with_biases_and_one_missing_gradient(raw):
    rng = np.random.default_rng(5)

    def t(*shape):
        return openreg.tensor(rng.standard_normal(shape)).to(DEV)
    ig, hg, cx, ib, hb = t(4, 12), t(4, 12), t(4, 3), t(12), t(12)
    (hy, cy, ws), launched = _launched(raw, lambda: aten._thnn_fused_lstm_cell(ig, hg, cx, ib, hb))
    assert launched == {"lstm_cell_fwd_f64": 1}
    gates = (ig + hg + ib + hb).cpu().numpy()
    i, f, g, o = np.split(gates, 4, axis=1)
    sig = lambda x: 1 / (1 + np.exp(-x))
    c = sig(f) * cx.cpu().numpy() + sig(i) * np.tanh(g)
    np.testing.assert_allclose(cy.cpu().numpy(), c, rtol=1e-13)
    np.testing.assert_allclose(hy.cpu().numpy(), sig(o) * np.tanh(c), rtol=1e-13)
    gh = t(4, 3)
    (grad_gates, grad_cx, grad_bias), launched = _launched(
        raw, lambda: aten._thnn_fused_lstm_cell_backward_impl(gh, None, cx, cy, ws, True))
    assert launched == {"lstm_cell_bwd_f64": 1}
    tanh_c = np.tanh(c)
    go = gh.cpu().numpy() * tanh_c * sig(o) * (1 - sig(o))
    np.testing.assert_allclose(grad_gates.cpu().numpy()[:, 9:], go, rtol=1e-12)
    gc = gh.cpu().numpy() * sig(o) * (1 - tanh_c ** 2)
    np.testing.assert_allclose(grad_cx.cpu().numpy(), gc * sig(f), rtol=1e-12)
    np.testing.assert_allclose(grad_bias.cpu().numpy(), grad_gates.cpu().numpy().sum(0), rtol=1e-12)
