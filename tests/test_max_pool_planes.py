"""Max pooling's per-plane path (pooling._window_max_indices, NaN-free input) gives the same maxima and the same
first-maximum indices as comparing and selecting window offset by offset (the path NaN input takes)."""
import numpy as np
import pytest

import openreg
from openreg.operators import pooling


@pytest.mark.parametrize("k,s,p,d", [((2, 2), (2, 2), (0, 0), (1, 1)), ((3, 3), (2, 2), (1, 1), (1, 1)),
                                     ((3, 2), (1, 2), (1, 0), (2, 1)), ((2, 3), (3, 1), (0, 1), (1, 2))])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_planes_path_matches_offset_by_offset(k, s, p, d, dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, (6, 9, 11)).astype(dtype)       # few values: many ties inside the windows
    h, w = x.shape[1:]
    out = tuple(pooling.pool_out_size(n, k[i], s[i], p[i], d[i], False) for i, n in enumerate((h, w)))
    fill = float("-inf") if dtype == np.float32 else int(np.iinfo(dtype).min)
    win = pooling._windows(np, x, openreg.device("cpu"), k, s, p, d, out, fill)
    vals, arg = pooling._window_max(np, win, dtype == np.float32)
    idx = (np.arange(out[0]).reshape(-1, 1) * s[0] - p[0] + (arg // k[1]) * d[0]) * w + \
        np.arange(out[1]).reshape(1, -1) * s[1] - p[1] + (arg % k[1]) * d[1]
    fast_vals, fast_idx = pooling._window_max_indices(np, win, w, s, p, d, out)
    np.testing.assert_array_equal(fast_vals, vals)
    np.testing.assert_array_equal(fast_idx, idx)


def test_nan_input_takes_the_first_nan():
    x = openreg.tensor([[[[1.0, float("nan")], [float("nan"), 5.0]]]])
    out, idx = openreg.ops.aten.max_pool2d_with_indices(x, [2, 2])
    assert np.isnan(out.item()) and idx.item() == 1
