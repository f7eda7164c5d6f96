"""max_pool2d through whole-array compares over the strided window view: PyTorch's choice of index (first
maximum, NaN wins), and the backward for overlapping (scatter-add) and non-overlapping (plain write) windows."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg

aten = openreg.ops.aten


def _ref(x, k, s):
    """Values and flat indices of 2-d max pooling without padding (NumPy, first maximum, first NaN)."""
    n, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    vals, idx = np.empty((n, oh, ow), x.dtype), np.empty((n, oh, ow), np.int64)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                win = x[b, i * s:i * s + k, j * s:j * s + k].ravel()
                nan = np.flatnonzero(np.isnan(win))
                a = nan[0] if nan.size else int(np.argmax(win))
                vals[b, i, j], idx[b, i, j] = win[a], (i * s + a // k) * w + j * s + a % k
    return vals, idx


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (3, 2)])
def test_max_pool_indices_ties_nans_and_backward(dev, k, s):
    rng = np.random.default_rng(k * 10 + s)
    x = rng.integers(0, 3, (2, 7, 7)).astype(np.float64)      # many ties
    x[0, 1, 1] = x[0, 2, 4] = np.nan
    x[1, 3, 3] = x[1, 3, 4] = np.nan                          # two NaNs in one window
    out, idx = aten.max_pool2d_with_indices(openreg.tensor(x).to(dev), [k, k], [s, s])
    ref_vals, ref_idx = _ref(x, k, s)
    np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx)
    np.testing.assert_array_equal(out.cpu().numpy(), ref_vals)
    g = rng.standard_normal(ref_vals.shape)
    grad = aten.max_pool2d_with_indices_backward(openreg.tensor(g).to(dev), openreg.tensor(x).to(dev), [k, k],
                                                 [s, s], [0, 0], [1, 1], False, idx)
    expected = np.zeros((2, 49))
    for b in range(2):
        np.add.at(expected[b], ref_idx[b].ravel(), g[b].ravel())
    np.testing.assert_allclose(grad.cpu().numpy().reshape(2, 49), expected, rtol=1e-14)


def test_max_pool_matches_pytorch_with_padding_and_dilation():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    x = np.random.default_rng(1).standard_normal((2, 3, 9, 8))
    for kw in ({"kernel_size": 3, "stride": 2, "padding": 1}, {"kernel_size": 2, "dilation": 2},
               {"kernel_size": 3, "stride": 2, "ceil_mode": True}):
        t_out, t_idx = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        o_out, o_idx = openreg.nn.functional.max_pool2d(openreg.tensor(x), return_indices=True, **kw)
        np.testing.assert_array_equal(o_out.numpy(), t_out.numpy())
        np.testing.assert_array_equal(o_idx.numpy(), t_idx.numpy())


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("k,s", [((2, 2), (2, 2)), ((3, 5), (1, 2)), ((9, 2), (2, 1))])
def test_avg_pool_sums_each_window_in_row_major_order(dev, k, s):
    """Each window summed element after element, row by row (PyTorch's kernel order), then divided: bitwise."""
    x = np.random.default_rng(1).standard_normal((3, 12, 11)).astype(np.float32)
    oh, ow = (12 - k[0]) // s[0] + 1, (11 - k[1]) // s[1] + 1
    expected = np.empty((3, oh, ow), np.float32)
    for b in range(3):
        for i in range(oh):
            for j in range(ow):
                total = np.float32(0)
                for a in range(k[0]):
                    for c in range(k[1]):
                        total = np.float32(total + x[b, i * s[0] + a, j * s[1] + c])
                expected[b, i, j] = total / np.float32(k[0] * k[1])
    got = aten.avg_pool2d(openreg.tensor(x, device=dev), list(k), list(s)).cpu().numpy()
    np.testing.assert_array_equal(got, expected)
