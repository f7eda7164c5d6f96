"""nn.TransformerEncoderLayer / TransformerEncoder / TransformerDecoderLayer / TransformerDecoder / Transformer:
submodule names, norm_first, activations, masks, causal detection, errors, and agreement with PyTorch (forward
and gradients from the same weights) when it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg import nn


def npy(x):
    return np.asarray(x.detach().cpu())


def test_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(4)
    a = npy(m)
    assert a.dtype == np.float32 and a.shape == (4, 4)
    assert np.all(np.isneginf(a[np.triu_indices(4, 1)])) and np.all(a[np.tril_indices(4)] == 0)
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=openreg.float64).dtype == openreg.float64


def test_names_clones_and_activation():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    names = {n for n, _ in layer.named_parameters()}
    assert {"self_attn.in_proj_weight", "self_attn.out_proj.weight", "linear1.weight", "linear2.bias",
            "norm1.weight", "norm2.bias"} <= names
    enc = nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(8))
    assert len(enc.layers) == 3 and enc.layers[0] is not layer
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    np.testing.assert_array_equal(npy(enc.layers[0].linear1.weight), npy(enc.layers[2].linear1.weight))
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation is F.gelu
    assert nn.TransformerEncoderLayer(8, 2, activation=openreg.tanh).activation is openreg.tanh
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    dec = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)
    assert {"multihead_attn.in_proj_weight", "norm3.weight"} <= {n for n, _ in dec.named_parameters()}
    model = nn.Transformer(8, 2, 1, 1, 16)
    assert {"encoder.norm.weight", "decoder.layers.0.multihead_attn.in_proj_bias"} <= set(model.state_dict())
    assert nn.modules.transformer.Transformer is nn.Transformer


def test_post_norm_layer_matches_its_definition(devices):
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0).double().to(devices)
    x = openreg.tensor(np.random.default_rng(0).normal(size=(5, 3, 4)), device=devices)
    sa = layer.self_attn(x, x, x, need_weights=False)[0]
    h = layer.norm1(x + sa)
    ref = layer.norm2(h + layer.linear2(F.relu(layer.linear1(h))))
    np.testing.assert_allclose(npy(layer(x)), npy(ref), rtol=1e-12)
    layer.norm_first = True
    h = x + layer.self_attn(layer.norm1(x), layer.norm1(x), layer.norm1(x), need_weights=False)[0]
    ref = h + layer.linear2(F.relu(layer.linear1(layer.norm2(h))))
    np.testing.assert_allclose(npy(layer(x)), npy(ref), rtol=1e-12)


def test_causal_mask_detection_and_shapes(devices):
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2).double().to(devices)
    x = openreg.tensor(np.random.default_rng(1).normal(size=(2, 5, 4)), device=devices)
    mask = nn.Transformer.generate_square_subsequent_mask(5, device=devices, dtype=openreg.float64)
    a = enc(x, mask=mask)                 # detected as causal
    b = enc(x, mask=mask, is_causal=False)
    np.testing.assert_allclose(npy(a), npy(b), rtol=1e-10)
    # a causal mask: changing the last position cannot change earlier outputs
    x2 = x.clone()
    x2[:, -1] = 7.0
    np.testing.assert_allclose(npy(enc(x2, mask=mask)[:, :-1]), npy(a[:, :-1]), rtol=1e-10)
    kpm = openreg.tensor([[False] * 5, [False, False, False, True, True]], device=devices)
    assert tuple(enc(x, src_key_padding_mask=kpm).shape) == (2, 5, 4)
    model = nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, batch_first=True).double().to(devices)
    out = model(x, x[:, :3], tgt_mask=nn.Transformer.generate_square_subsequent_mask(3, device=devices,
                                                                                        dtype=openreg.float64))
    assert tuple(out.shape) == (2, 3, 4)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(x, x[:1])
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        model(x, openreg.zeros(2, 3, 6, dtype=openreg.float64, device=devices))


def test_gradcheck_encoder_layer(devices):
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, activation="gelu").double()
    layer = layer.to(devices)
    x = openreg.tensor(np.random.default_rng(2).normal(size=(3, 2, 4)), device=devices, requires_grad=True)
    mask = openreg.tensor(np.triu(np.full((3, 3), -1e9), 1), device=devices)
    assert openreg.autograd.gradcheck(lambda x: layer(x, src_mask=mask), (x,), atol=1e-5)


def test_matches_pytorch(devices):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for kw in ({"norm_first": True, "activation": "gelu"}, {"batch_first": True}):
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # PyTorch's note that its nested-tensor fast path is off
            tm = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, **kw).double()
        om = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, **kw).double()
        om.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        om = om.to(devices)
        src, tgt = rng.normal(size=(5, 2, 8)), rng.normal(size=(4, 2, 8))
        if kw.get("batch_first"):
            src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
        kpm = np.zeros((2, 5), bool)
        kpm[1, -1] = True
        tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
        omask = nn.Transformer.generate_square_subsequent_mask(4, device=devices, dtype=openreg.float64)
        ts = torch.tensor(src, requires_grad=True)
        os_ = openreg.tensor(src, device=devices, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            to = tm(ts, torch.tensor(tgt), tgt_mask=tmask, src_key_padding_mask=torch.tensor(kpm),
                    memory_key_padding_mask=torch.tensor(kpm))
        oo = om(os_, openreg.tensor(tgt, device=devices), tgt_mask=omask,
                src_key_padding_mask=openreg.tensor(kpm, device=devices),
                memory_key_padding_mask=openreg.tensor(kpm, device=devices))
        np.testing.assert_allclose(npy(oo), to.detach().numpy(), rtol=1e-9, atol=1e-11)
        to.pow(2).sum().backward()
        oo.pow(2).sum().backward()
        # SDPA's float64 backward is ~1e-7 accurate here (float32 logsumexp, see GAPS); compare at that level
        np.testing.assert_allclose(npy(os_.grad), ts.grad.numpy(), rtol=1e-5, atol=1e-7)
