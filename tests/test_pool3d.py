"""3-d pooling (F.max_pool3d / avg_pool3d / adaptive_avg_pool3d and MaxPool3d / AvgPool3d / AdaptiveAvgPool3d):
values, indices and gradients against a NumPy loop over windows, and against torch when it is installed."""
import itertools

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 5, 6, 7))


def _np_pool(x, k, s, p, op):
    """Reference: loop over output positions of (N, C, D, H, W), zero-padded windows clipped for avg (count
    including pad), -inf padded for max; returns values and flat argmax indices."""
    size = x.shape[2:]
    out = [(size[i] + 2 * p - k) // s + 1 for i in range(3)]
    vals = np.zeros(x.shape[:2] + tuple(out))
    idx = np.zeros(x.shape[:2] + tuple(out), dtype=np.int64)
    for o in itertools.product(*[range(n) for n in out]):
        lo = [o[i] * s - p for i in range(3)]
        hi = [lo[i] + k for i in range(3)]
        cl = [max(lo[i], 0) for i in range(3)]
        ch = [min(hi[i], size[i]) for i in range(3)]
        win = x[:, :, cl[0]:ch[0], cl[1]:ch[1], cl[2]:ch[2]].reshape(x.shape[:2] + (-1,))
        if op == "max":
            a = win.argmax(-1)
            vals[(...,) + o] = win.max(-1)
            wd, wh, ww = ch[0] - cl[0], ch[1] - cl[1], ch[2] - cl[2]
            dd, hh, w_ = a // (wh * ww) + cl[0], (a // ww) % wh + cl[1], a % ww + cl[2]
            idx[(...,) + o] = (dd * size[1] + hh) * size[2] + w_
            assert wd > 0
        else:
            vals[(...,) + o] = win.sum(-1) / np.prod([min(hi[i], size[i] + p) - lo[i] for i in range(3)])
    return vals, idx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_max_pool3d_against_numpy(device, k, s, p):
    x = openreg.tensor(X, device=device, requires_grad=True)
    out, idx = F.max_pool3d(x, k, s, p, return_indices=True)
    ref, ref_idx = _np_pool(X, k, s, p, "max")
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref)
    np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx)
    out.sum().backward()
    expected = np.zeros((6, X[0, 0].size))
    for r, row in enumerate(ref_idx.reshape(6, -1)):
        np.add.at(expected[r], row, 1.0)
    np.testing.assert_array_equal(x.grad.cpu().numpy().reshape(6, -1), expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 2, 1)])
def test_avg_pool3d_against_numpy(device, k, s, p):
    x = openreg.tensor(X, device=device, requires_grad=True)
    out = openreg.nn.AvgPool3d(k, s, p)(x)
    ref, _ = _np_pool(X, k, s, p, "avg")
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref, rtol=1e-12)
    out.sum().backward()
    # each output spreads 1 / divisor over the real elements of its window: the sum is avg_pool3d of ones
    ones, _ = _np_pool(np.ones_like(X), k, s, p, "avg")
    assert x.grad.shape == x.shape and float(x.grad.sum()) == pytest.approx(float(ones.sum()), rel=1e-12)


def test_adaptive_avg_pool3d_and_errors():
    x = openreg.tensor(X)
    out = openreg.nn.AdaptiveAvgPool3d((2, 3, 1))(x)
    d0 = [(0, 3), (2, 5)]
    h0 = [(0, 2), (2, 4), (4, 6)]
    for i, (a, b) in enumerate(d0):
        for j, (c, e) in enumerate(h0):
            np.testing.assert_allclose(out[:, :, i, j, 0].numpy(), X[:, :, a:b, c:e, :].mean((2, 3, 4)), rtol=1e-12)
    assert F.adaptive_avg_pool3d(openreg.ones(3, 4, 4, 4), 1).shape == (3, 1, 1, 1)
    with pytest.raises(RuntimeError, match="non-empty 4D or 5D"):
        F.max_pool3d(openreg.ones(4, 4), 2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.avg_pool3d(openreg.ones(1, 1, 4, 4, 4), 3, padding=2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.max_pool3d(openreg.ones(1, 1, 2, 2, 2), 3)
    with pytest.raises(RuntimeError, match="Expected 4D or 5D tensor"):
        F.adaptive_avg_pool3d(openreg.ones(4, 4), 2)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("kwargs", [{"kernel_size": 2},
                                    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                                    {"kernel_size": (2, 3, 2), "stride": (1, 2, 2), "dilation": (1, 2, 1)},
                                    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
                                    {"kernel_size": 2, "divisor_override": 3}])
def test_against_torch(kwargs):
    for name in ("max_pool3d", "avg_pool3d"):
        kw = dict(kwargs)
        if name == "max_pool3d":
            if "count_include_pad" in kw or "divisor_override" in kw:
                continue
            kw["return_indices"] = True
        elif "dilation" in kw:
            continue
        res = []
        for fw in (openreg, torch):
            x = fw.tensor(X, requires_grad=True)
            out = getattr(fw.nn.functional, name)(x, **kw)
            vals = out[0] if isinstance(out, tuple) else out
            (vals * fw.tensor(np.arange(vals.numel()).reshape(vals.shape) % 5)).sum().backward()
            res.append([o.detach().numpy() for o in (out if isinstance(out, tuple) else (out,))] + [x.grad.numpy()])
        for a, b in zip(*res):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    for size in (1, (2, None, 3), 4):
        a = F.adaptive_avg_pool3d(openreg.tensor(X), size).numpy()
        b = torch.nn.functional.adaptive_avg_pool3d(torch.tensor(X), size).numpy()
        np.testing.assert_allclose(a, b, rtol=1e-12)
