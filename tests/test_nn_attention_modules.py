"""nn.MultiheadAttention and F.multi_head_attention_forward: parameter names, init, masks, need_weights,
kdim/vdim, batch_first, errors; NumPy reference math, gradcheck, and agreement with PyTorch when installed."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import openreg
from openreg import nn


def npy(x):
    return np.asarray(x.detach().cpu())


def _np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _np_mha(m, q, k, v, mask=None):
    """Sequence-first NumPy reference; ``mask`` additive (L, S). Returns (out, head-averaged weights)."""
    p = {n: npy(t) for n, t in m.named_parameters()}
    e, h = m.embed_dim, m.num_heads
    wq, wk, wv = np.split(p["in_proj_weight"], 3)
    bq, bk, bv = np.split(p["in_proj_bias"], 3)
    qp, kp, vp = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    L, N, _ = q.shape
    S = k.shape[0]
    d = e // h
    split = lambda x, n: x.reshape(n, N * h, d).transpose(1, 0, 2)
    qh, kh, vh = split(qp, L), split(kp, S), split(vp, S)
    s = qh @ kh.transpose(0, 2, 1) / np.sqrt(d)
    if mask is not None:
        s = s + mask
    w = _np_softmax(s)
    out = (w @ vh).transpose(1, 0, 2).reshape(L, N, e)
    out = out @ p["out_proj.weight"].T + p["out_proj.bias"]
    return out, w.reshape(N, h, L, S).mean(1)


def test_parameters_names_and_init():
    m = nn.MultiheadAttention(8, 2)
    assert [n for n, _ in m.named_parameters()] == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                                     "out_proj.bias"]
    assert tuple(m.in_proj_weight.shape) == (24, 8)
    assert np.all(npy(m.in_proj_bias) == 0) and np.all(npy(m.out_proj.bias) == 0)
    bound = np.sqrt(6 / (24 + 8))                               # xavier_uniform_ of (3E, E)
    assert np.abs(npy(m.in_proj_weight)).max() <= bound
    assert isinstance(m.out_proj, nn.modules.linear.NonDynamicallyQuantizableLinear)
    assert m.q_proj_weight is None and m.bias_k is None
    sep = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False, add_bias_kv=True)
    names = [n for n, _ in sep.named_parameters()]
    assert names == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v", "out_proj.weight"]
    assert tuple(sep.k_proj_weight.shape) == (8, 3) and tuple(sep.v_proj_weight.shape) == (8, 5)
    assert nn.modules.activation.MultiheadAttention is nn.MultiheadAttention
    m2 = pickle.loads(pickle.dumps(m))
    assert np.array_equal(npy(m2.in_proj_weight), npy(m.in_proj_weight))


@pytest.mark.parametrize("need_weights", [True, False])
def test_matches_numpy_with_masks(devices, need_weights):
    rng = np.random.default_rng(0)
    m = nn.MultiheadAttention(8, 2).double().to(devices)
    q, k = rng.normal(size=(4, 3, 8)), rng.normal(size=(6, 3, 8))
    bool_mask = rng.random((4, 6)) < 0.3
    bool_mask[:, 0] = False
    kpm = np.zeros((3, 6), bool)
    kpm[1, 4:] = True
    add = np.where(bool_mask, -np.inf, 0.0) + np.where(kpm, -np.inf, 0.0)[:, None, None, :]
    t = lambda a: openreg.tensor(a, device=devices)
    out, w = m(t(q), t(k), t(k), key_padding_mask=t(kpm), attn_mask=t(bool_mask), need_weights=need_weights)
    # reference: per batch element masks, computed one batch at a time
    for b in range(3):
        ref_out, ref_w = _np_mha(m, q[:, b:b + 1], k[:, b:b + 1], k[:, b:b + 1], add[b, 0])
        np.testing.assert_allclose(npy(out[:, b:b + 1]), ref_out, rtol=1e-10, atol=1e-12)
        if need_weights:
            np.testing.assert_allclose(npy(w[b:b + 1]), ref_w, rtol=1e-10, atol=1e-12)
    assert w is None if not need_weights else tuple(w.shape) == (3, 4, 6)


def test_batch_first_unbatched_per_head_weights_and_causal(devices):
    m = nn.MultiheadAttention(4, 2, batch_first=True).double().to(devices)
    x = openreg.tensor(np.random.default_rng(1).normal(size=(2, 5, 4)), device=devices)
    out, w = m(x, x, x, average_attn_weights=False)
    assert tuple(out.shape) == (2, 5, 4) and tuple(w.shape) == (2, 2, 5, 5)
    single, w1 = m(x[0], x[0], x[0])
    assert tuple(single.shape) == (5, 4) and tuple(w1.shape) == (5, 5)
    np.testing.assert_allclose(npy(single), npy(out[0]), rtol=1e-12)
    causal = nn.Transformer.generate_square_subsequent_mask(5, device=devices, dtype=openreg.float64) \
        if hasattr(nn, "Transformer") else None
    if causal is None:
        causal = openreg.zeros(5, 5, dtype=openreg.float64, device=devices).masked_fill_(
            openreg.arange(5, device=devices).unsqueeze(0) > openreg.arange(5, device=devices).unsqueeze(1),
            float("-inf"))
    a, _ = m(x, x, x, attn_mask=causal, need_weights=False, is_causal=True)
    b, wb = m(x, x, x, attn_mask=causal)
    np.testing.assert_allclose(npy(a), npy(b), rtol=1e-10)
    assert np.all(np.triu(npy(wb[0]), 1) == 0)


def test_gradcheck(devices):
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=2).double().to(devices)
    rng = np.random.default_rng(2)
    q = openreg.tensor(rng.normal(size=(3, 2, 4)), device=devices, requires_grad=True)
    k = openreg.tensor(rng.normal(size=(5, 2, 3)), device=devices, requires_grad=True)
    v = openreg.tensor(rng.normal(size=(5, 2, 2)), device=devices, requires_grad=True)
    assert openreg.autograd.gradcheck(lambda q, k, v: m(q, k, v)[0], (q, k, v))
    assert openreg.autograd.gradcheck(lambda q, k, v: m(q, k, v, need_weights=False)[0], (q, k, v))


def test_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 1)
    m = nn.MultiheadAttention(4, 2)
    x = openreg.zeros(3, 2, 4)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 4, but got 5"):
        m(openreg.zeros(3, 2, 5), openreg.zeros(3, 2, 5), openreg.zeros(3, 2, 5))
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is .*, but should be \(3, 3\)"):
        m(x, x, x, attn_mask=openreg.zeros(2, 3))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask are supported"):
        m(x, x, x, key_padding_mask=openreg.zeros(2, 3, dtype=openreg.int64))
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        m(x, openreg.zeros(3, 4), openreg.zeros(3, 4))
    with pytest.raises(AssertionError, match=r"Expected key_padded_mask.shape\[1\] to be 3, but got 4"):
        m(x, x, x, key_padding_mask=openreg.zeros(2, 4, dtype=openreg.bool))


def test_matches_pytorch(devices):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for kw in ({"batch_first": True}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True, "add_zero_attn": True}):
        torch.manual_seed(0)
        tm = torch.nn.MultiheadAttention(8, 2, **kw).double()
        om = nn.MultiheadAttention(8, 2, **kw).double()
        om.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        om = om.to(devices)
        kdim, vdim = kw.get("kdim", 8), kw.get("vdim", 8)
        shape = (lambda n, e: (2, n, e)) if kw.get("batch_first") else (lambda n, e: (n, 2, e))
        q, k, v = rng.normal(size=shape(4, 8)), rng.normal(size=shape(6, kdim)), rng.normal(size=shape(6, vdim))
        kpm = np.zeros((2, 6), bool)
        kpm[0, -2:] = True
        tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
        oq, ok, ov = (openreg.tensor(a, device=devices, requires_grad=True) for a in (q, k, v))
        for need in (False, True):     # gradients below through the explicit-weights path (float64-exact)
            to, tw = tm(tq, tk, tv, key_padding_mask=torch.tensor(kpm), need_weights=need)
            oo, ow = om(oq, ok, ov, key_padding_mask=openreg.tensor(kpm, device=devices), need_weights=need)
            np.testing.assert_allclose(npy(oo), to.detach().numpy(), rtol=1e-9, atol=1e-12)
            if need:
                np.testing.assert_allclose(npy(ow), tw.detach().numpy(), rtol=1e-9, atol=1e-12)
        to.pow(2).sum().backward()
        oo.pow(2).sum().backward()
        for a, b in ((tq, oq), (tk, ok), (tv, ov)):
            np.testing.assert_allclose(npy(b.grad), a.grad.numpy(), rtol=1e-8, atol=1e-12)
        tg = {n: p.grad.numpy() for n, p in tm.named_parameters()}
        for n, p in om.named_parameters():
            np.testing.assert_allclose(npy(p.grad), tg[n], rtol=1e-8, atol=1e-12, err_msg=n)
