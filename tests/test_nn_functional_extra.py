"""nn.functional grid_sample/affine_grid, embedding_bag, local_response_norm, max_unpool1d/2d, lp_pool1d/2d,
multi_margin_loss, channel_shuffle, alpha_dropout/feature_alpha_dropout, gumbel_softmax and their modules: values
and gradients against NumPy references (torch-free) and, when installed, PyTorch, on the CPU and the device."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg import nn

try:
    import torch
    TF = torch.nn.functional
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _np(t):
    return t.detach().cpu().numpy()


def _t(a, device, grad=False):
    return openreg.tensor(a, device=device, requires_grad=grad)


# -- NumPy references -----------------------------------------------------------------------------------------------
def _ref_grid_sample_2d(x, grid, mode, padding_mode, align_corners):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def src(coord, size):
        coord = (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2
        if padding_mode == "border":
            coord = min(max(coord, 0), size - 1)
        elif padding_mode == "reflection":
            lo, hi = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            if lo == hi:
                coord = 0.0
            else:
                span = (hi - lo) / 2
                d = abs(coord - lo / 2)
                flips, extra = divmod(d, span)
                coord = extra + lo / 2 if flips % 2 == 0 else span - extra + lo / 2
            coord = min(max(coord, 0), size - 1)
        return coord

    def at(b, yy, xx):
        if 0 <= yy < h and 0 <= xx < w:
            return x[b, :, yy, xx]
        return np.zeros(c)

    for b, i, j in itertools.product(range(n), range(grid.shape[1]), range(grid.shape[2])):
        gx, gy = src(grid[b, i, j, 0], w), src(grid[b, i, j, 1], h)
        if mode == "nearest":
            out[b, :, i, j] = at(b, int(np.rint(gy)), int(np.rint(gx)))
            continue
        x0, y0 = int(np.floor(gx)), int(np.floor(gy))
        fx, fy = gx - x0, gy - y0
        out[b, :, i, j] = ((1 - fx) * (1 - fy) * at(b, y0, x0) + fx * (1 - fy) * at(b, y0, x0 + 1)
                           + (1 - fx) * fy * at(b, y0 + 1, x0) + fx * fy * at(b, y0 + 1, x0 + 1))
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_numpy(devices, mode, padding_mode, align_corners):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.6, 1.6, (2, 3, 4, 2))
    out = F.grid_sample(_t(x, devices), _t(grid, devices), mode=mode, padding_mode=padding_mode,
                        align_corners=align_corners)
    np.testing.assert_allclose(_np(out), _ref_grid_sample_2d(x, grid, mode, padding_mode, align_corners),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_identity_reproduces_input_and_gradients_flow(devices, align_corners):
    x = _t(np.random.default_rng(2).standard_normal((2, 3, 4, 5)).astype(np.float32), devices, grad=True)
    theta = _t(np.tile(np.eye(2, 3, dtype=np.float32), (2, 1, 1)), devices, grad=True)
    grid = F.affine_grid(theta, [2, 3, 4, 5], align_corners=align_corners)
    assert tuple(grid.shape) == (2, 4, 5, 2)
    y = F.grid_sample(x, grid, align_corners=align_corners)
    np.testing.assert_allclose(_np(y), _np(x), rtol=1e-5, atol=1e-6)
    (y * y).sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * _np(x), rtol=1e-4, atol=1e-5)
    assert theta.grad is not None and np.isfinite(_np(theta.grad)).all()
    grid3 = F.affine_grid(_t(np.eye(3, 4, dtype=np.float32)[None], devices), [1, 1, 2, 3, 4],
                          align_corners=align_corners)
    assert tuple(grid3.shape) == (1, 2, 3, 4, 3)
    v = _t(np.arange(24.0, dtype=np.float32).reshape(1, 1, 2, 3, 4), devices)
    np.testing.assert_allclose(_np(F.grid_sample(v, grid3, align_corners=align_corners)), _np(v), atol=1e-5)


def test_grid_sample_and_affine_grid_errors():
    x, grid = openreg.zeros(1, 1, 2, 2), openreg.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'cubic'"):
        F.grid_sample(x, grid, mode="cubic", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(NotImplementedError, match="bicubic"):
        F.grid_sample(x, grid, mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid and input to have same batch size"):
        F.grid_sample(openreg.zeros(2, 1, 2, 2), grid, align_corners=False)
    with pytest.raises(RuntimeError, match="expected input and grid to have same dtype"):
        F.grid_sample(x, grid.double(), align_corners=False)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        F.grid_sample(x, grid)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape Nx2x3 for size"):
        F.affine_grid(openreg.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(ValueError, match="Expected theta to have floating point type"):
        F.affine_grid(openreg.zeros(1, 2, 3, dtype=openreg.int64), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(openreg.zeros(1, 2, 3), [1, 1, 2], align_corners=False)
    with pytest.raises(ValueError, match="Expected non-zero, positive output size"):
        F.affine_grid(openreg.zeros(1, 2, 3), [1, 1, 0, 2], align_corners=False)


@needs_torch
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_spatial_transformer_matches_pytorch(devices, dims, mode, padding_mode, align_corners):
    rng = np.random.default_rng(dims)
    shape = (2, 3, 5, 6) if dims == 2 else (2, 3, 4, 5, 3)
    size = [2, 3, 4, 7] if dims == 2 else [2, 3, 3, 4, 2]
    x = rng.standard_normal(shape).astype(np.float32)
    th = ((np.eye(dims + 1)[:dims][None] + 0.3 * rng.standard_normal((2, dims, dims + 1))) * 1.4).astype(np.float32)
    tx, tth = torch.tensor(x, requires_grad=True), torch.tensor(th, requires_grad=True)
    tout = TF.grid_sample(tx, TF.affine_grid(tth, size, align_corners=align_corners), mode=mode,
                          padding_mode=padding_mode, align_corners=align_corners)
    (tout ** 2).sum().backward()
    ox, oth = _t(x, devices, grad=True), _t(th, devices, grad=True)
    oout = F.grid_sample(ox, F.affine_grid(oth, size, align_corners=align_corners), mode=mode,
                         padding_mode=padding_mode, align_corners=align_corners)
    (oout ** 2).sum().backward()
    np.testing.assert_allclose(_np(oout), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(ox.grad), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    if mode == "bilinear":
        np.testing.assert_allclose(_np(oth.grad), tth.grad.numpy(), rtol=1e-3, atol=1e-3)


# -- embedding_bag ---------------------------------------------------------------------------------------------------
def _ref_embedding_bag(inp, w, offsets, mode, psw=None, include_last_offset=False, padding_idx=None):
    ends = list(offsets[1:]) + ([] if include_last_offset else [len(inp)])
    starts = offsets[:-1] if include_last_offset else offsets
    out = np.zeros((len(starts), w.shape[1]))
    for b, (s, e) in enumerate(zip(starts, ends)):
        rows = [w[inp[i]] * (1 if psw is None else psw[i]) for i in range(s, e) if inp[i] != padding_idx]
        if rows:
            out[b] = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode](rows, axis=0)
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last_offset", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_matches_numpy(devices, mode, include_last_offset, padding_idx):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((10, 4))
    inp = rng.integers(0, 10, 12)
    inp[3] = 2
    offsets = np.array([0, 3, 3, 7, 12]) if include_last_offset else np.array([0, 3, 3, 7])
    psw = rng.standard_normal(12) if mode == "sum" else None
    ow = _t(w, devices, grad=True)
    out = F.embedding_bag(_t(inp, devices), ow, _t(offsets, devices), mode=mode,
                          per_sample_weights=None if psw is None else _t(psw, devices),
                          include_last_offset=include_last_offset, padding_idx=padding_idx)
    ref = _ref_embedding_bag(inp, w, offsets, mode, psw, include_last_offset, padding_idx)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-12, atol=1e-12)
    out.sum().backward()
    if mode == "sum" and padding_idx is None:
        expect = np.zeros_like(w)
        np.add.at(expect, inp, psw[:, None] * np.ones((1, 4)))
        np.testing.assert_allclose(_np(ow.grad), expect, rtol=1e-12)
    bag = nn.EmbeddingBag(10, 4, mode=mode, padding_idx=padding_idx, include_last_offset=include_last_offset,
                          _weight=_t(w, devices))
    np.testing.assert_allclose(_np(bag(_t(inp, devices), _t(offsets, devices),
                                       None if psw is None else _t(psw, devices))), ref, rtol=1e-12, atol=1e-12)
    two_d = F.embedding_bag(_t(inp.reshape(3, 4), devices), _t(w, devices), mode=mode)
    np.testing.assert_allclose(_np(two_d), _ref_embedding_bag(inp, w, [0, 4, 8], mode), rtol=1e-12)


def test_embedding_bag_errors_and_module():
    w = openreg.ones(5, 2)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(openreg.tensor([0, 1]), w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(openreg.tensor([[0, 1]]), w, openreg.tensor([0]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(openreg.tensor([[0, 1]]), w, mode="min")
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(openreg.tensor([[0, 1]]), w, per_sample_weights=openreg.ones(1, 2))
    with pytest.raises(ValueError, match="weight has to be a 2D Tensor"):
        F.embedding_bag(openreg.tensor([[0, 1]]), openreg.ones(5))
    bag = nn.EmbeddingBag(7, 3, padding_idx=0)
    assert bag.weight[0].tolist() == [0.0, 0.0, 0.0] and bag.mode == "mean"
    assert repr(bag) == "EmbeddingBag(7, 3, mode=mean, padding_idx=0)"
    frozen = nn.EmbeddingBag.from_pretrained(openreg.ones(4, 2))
    assert not frozen.weight.requires_grad and list(frozen.state_dict()) == ["weight"]


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_pytorch(devices, mode):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((10, 4)).astype(np.float32)
    inp, offsets = rng.integers(0, 10, 12), np.array([0, 3, 3, 7])
    tw, ow = torch.tensor(w, requires_grad=True), _t(w, devices, grad=True)
    t = TF.embedding_bag(torch.tensor(inp), tw, torch.tensor(offsets), mode=mode, padding_idx=4)
    o = F.embedding_bag(_t(inp, devices), ow, _t(offsets, devices), mode=mode, padding_idx=4)
    np.testing.assert_allclose(_np(o), t.detach().numpy(), rtol=1e-6, atol=1e-6)
    (t * torch.arange(t.numel()).reshape(t.shape)).sum().backward()
    (o * openreg.arange(o.numel(), device=devices).reshape(o.shape)).sum().backward()
    np.testing.assert_allclose(_np(ow.grad), tw.grad.numpy(), rtol=1e-6, atol=1e-6)


# -- local response norm, unpooling, lp pooling, multi-margin, channel shuffle ------------------------------------------
def _ref_lrn(x, size, alpha, beta, k):
    c = x.shape[1]
    sq = np.pad(x ** 2, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    div = sum(sq[:, j:j + c] for j in range(size)) / size
    return x / (k + alpha * div) ** beta


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm_matches_numpy(devices, size):
    x = np.random.default_rng(size).standard_normal((2, 6, 3, 2))
    out = F.local_response_norm(_t(x, devices), size, 1e-2, 0.75, 2.0)
    np.testing.assert_allclose(_np(out), _ref_lrn(x, size, 1e-2, 0.75, 2.0), rtol=1e-12)
    mod = nn.LocalResponseNorm(size, 1e-2, 0.75, 2.0)
    np.testing.assert_allclose(_np(mod(_t(x[..., 0], devices))), _ref_lrn(x[..., 0], size, 1e-2, 0.75, 2.0),
                               rtol=1e-12)
    assert repr(mod) == f"LocalResponseNorm({size}, alpha=0.01, beta=0.75, k=2.0)"
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality input \(got 2 dimensions\)"):
        F.local_response_norm(openreg.ones(2, 3), 2)


def test_max_unpool_round_trip(devices):
    x = _t(np.random.default_rng(0).standard_normal((2, 3, 4, 6)), devices, grad=True)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    u = F.max_unpool2d(y, idx, 2)
    xn, un = _np(x), _np(u)
    assert un.shape == xn.shape and (un != 0).sum() == y.numel()
    np.testing.assert_array_equal(un[un != 0], xn[un != 0])
    np.testing.assert_array_equal(un.reshape(2, 3, 2, 2, 3, 2).max(axis=(3, 5)), _np(y))
    u.sum().backward()
    assert _np(x.grad).sum() == y.numel()
    m = nn.MaxUnpool2d(2)
    big = _np(m(y, idx, output_size=[2, 3, 5, 7])).reshape(2, 3, -1)  # the flat indices index the larger output
    expect = np.zeros((2, 3, 35))
    np.put_along_axis(expect, _np(idx).reshape(2, 3, -1), _np(y).reshape(2, 3, -1), axis=2)
    np.testing.assert_array_equal(big, expect)
    y1, i1 = F.max_pool1d(_t(np.arange(6.0)[None, None], devices), 2, return_indices=True)
    assert nn.MaxUnpool1d(2)(y1, i1).tolist() == [[[0.0, 1.0, 0.0, 3.0, 0.0, 5.0]]]
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(y, idx, 2, output_size=[9, 9])
    with pytest.raises(RuntimeError, match="Expected shape of indices to be same as that of the input tensor"):
        F.max_unpool2d(y, idx[..., :1], 2)


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0])
def test_lp_pool_matches_numpy(devices, norm_type):
    x = np.abs(np.random.default_rng(0).standard_normal((1, 2, 4, 6))) + 0.1
    out = F.lp_pool2d(_t(x, devices), norm_type, (2, 3))
    ref = (x ** norm_type).reshape(1, 2, 2, 2, 2, 3).sum(axis=(3, 5)) ** (1 / norm_type)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-12)
    np.testing.assert_allclose(_np(nn.LPPool2d(norm_type, (2, 3))(_t(x, devices))), ref, rtol=1e-12)
    out1 = nn.LPPool1d(norm_type, 3)(_t(x[:, :, 0], devices))
    np.testing.assert_allclose(_np(out1), (x[:, :, 0] ** norm_type).reshape(1, 2, 2, 3).sum(-1) ** (1 / norm_type),
                               rtol=1e-12)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_margin_loss_matches_numpy(devices, p, reduction):
    rng = np.random.default_rng(p)
    x, y, w = rng.standard_normal((5, 4)), rng.integers(0, 4, 5), rng.random(4)
    terms = np.maximum(0, 0.7 - x[np.arange(5), y][:, None] + x) ** p * w[y][:, None]
    terms[np.arange(5), y] = 0
    ref = terms.sum(1) / 4
    ref = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    out = F.multi_margin_loss(_t(x, devices), _t(y, devices), p=p, margin=0.7, weight=_t(w, devices),
                              reduction=reduction)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-12)
    mod = nn.MultiMarginLoss(p=p, margin=0.7, weight=_t(w, devices), reduction=reduction)
    np.testing.assert_allclose(_np(mod(_t(x, devices), _t(y, devices))), ref, rtol=1e-12)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(_t(x, devices), _t(y, devices), p=3)


def test_channel_shuffle(devices):
    x = np.arange(2 * 6 * 3.0).reshape(2, 6, 3)
    ref = x.reshape(2, 3, 2, 3).transpose(0, 2, 1, 3).reshape(2, 6, 3)
    np.testing.assert_array_equal(_np(F.channel_shuffle(_t(x, devices), 3)), ref)
    np.testing.assert_array_equal(_np(nn.ChannelShuffle(3)(_t(x, devices))), ref)
    assert repr(nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 6 channels and 4 "
                                           "groups."):
        F.channel_shuffle(_t(x, devices), 4)


def test_alpha_dropout_keeps_moments_and_gumbel_softmax(devices):
    openreg.manual_seed(0)
    z = openreg.randn(200000, device=devices)
    y = F.alpha_dropout(z, 0.3, training=True)
    assert abs(y.mean().item()) < 0.02 and abs(y.std().item() - 1) < 0.02
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * 0.3 + 1) * 0.7)
    dropped = _np(y)[np.isclose(_np(y), -alpha * a * 0.7, rtol=0, atol=1e-6)]  # SELU's saturation, rescaled
    assert 0.27 < dropped.size / 200000 < 0.33
    assert F.alpha_dropout(z, 0.3) is z and nn.AlphaDropout(0.3).eval()(z) is z
    f = F.feature_alpha_dropout(openreg.randn(4000, 20, 3, device=devices), 0.5, training=True)
    assert abs(f.mean().item()) < 0.03 and abs(f.std().item() - 1) < 0.03
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        nn.FeatureAlphaDropout(-0.1)
    logits = _t(np.log([[0.7, 0.2, 0.1]] * 4000), devices, grad=True)
    soft = F.gumbel_softmax(logits, tau=1.0)
    np.testing.assert_allclose(_np(soft.sum(-1)), 1.0, rtol=1e-6)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    hn = _np(hard)
    assert set(np.unique(hn)) <= {0.0, 1.0} and (hn.sum(-1) == 1).all()
    np.testing.assert_allclose(hn.mean(0), [0.7, 0.2, 0.1], atol=0.03)  # Gumbel-max samples the categorical
    (hard * _t(np.array([1.0, 2.0, 3.0]), devices)).sum().backward()
    assert logits.grad is not None and np.abs(_np(logits.grad)).sum() > 0
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        F.gumbel_softmax(logits, eps=1e-5)


@needs_torch
def test_misc_match_pytorch(devices):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 7, 3, 4)).astype(np.float32)
    for size in (2, 3):
        tx, ox = torch.tensor(x, requires_grad=True), _t(x, devices, grad=True)
        t, o = TF.local_response_norm(tx, size), F.local_response_norm(ox, size)
        np.testing.assert_allclose(_np(o), t.detach().numpy(), rtol=1e-5, atol=1e-6)
        (t ** 2).sum().backward()
        (o ** 2).sum().backward()
        np.testing.assert_allclose(_np(ox.grad), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    ty, ti = TF.max_pool2d(torch.tensor(x), 2, 1, return_indices=True)
    oy, oi = F.max_pool2d(_t(x, devices), 2, 1, return_indices=True)
    np.testing.assert_array_equal(_np(F.max_unpool2d(oy, oi, 2, 1)), TF.max_unpool2d(ty, ti, 2, 1).numpy())
    xa = np.abs(x) + 0.1
    for nt in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(_np(F.lp_pool2d(_t(xa, devices), nt, (2, 3), stride=1)),
                                   TF.lp_pool2d(torch.tensor(xa), nt, (2, 3), stride=1).numpy(), rtol=1e-5)
    inp, tg = rng.standard_normal((5, 4)).astype(np.float32), rng.integers(0, 4, 5)
    for p in (1, 2):
        tx, ox = torch.tensor(inp, requires_grad=True), _t(inp, devices, grad=True)
        t = TF.multi_margin_loss(tx, torch.tensor(tg), p=p)
        o = F.multi_margin_loss(ox, _t(tg, devices), p=p)
        np.testing.assert_allclose(_np(o), t.detach().numpy(), rtol=1e-6)
        t.backward()
        o.backward()
        np.testing.assert_allclose(_np(ox.grad), tx.grad.numpy(), rtol=1e-6, atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cs = torch.nn.ChannelShuffle(3)(torch.tensor(x[:, :6]))
    np.testing.assert_array_equal(_np(F.channel_shuffle(_t(x[:, :6], devices), 3)), cs.numpy())
