"""Row scatter-adds (embedding backward, index_add_), in rounds or as one padded reduction, give np.add.at's
result bit for bit."""
import numpy as np
import pytest

import openreg
from openreg.operators import _scatter


@pytest.mark.parametrize("how", ["_add_rows_in_rounds", "_add_rows"])
@pytest.mark.parametrize("rows,n,shape", [(30, 512, (48,)), (5, 7, (3, 2)), (10000, 320, (16,)), (4, 2, (1,)),
                                          (30, 320, (2,)), (7, 300, (5, 3)), (3, 50, (1,))])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
def test_rounds_equal_add_at(how, rows, n, shape, dtype):
    rng = np.random.default_rng(rows + n)
    key = rng.integers(-rows, rows, n)                  # negative indices name the same rows as positive ones
    # magnitudes spread over decades, so that any other order of the additions rounds differently
    spread, scale = (1.5, 1.0) if dtype == np.float16 else (4.0, 100.0)      # float16: no overflow
    vals = (rng.standard_normal((n,) + shape) * np.exp(rng.standard_normal((n,) + shape) * spread) * scale).astype(dtype)
    start = (rng.standard_normal((rows,) + shape) * scale).astype(dtype)
    if dtype != np.int64:                               # signed zeros: -0.0 + -0.0 is -0.0, 0.0 + -0.0 is 0.0
        vals[rng.random(vals.shape) < 0.3] = -0.0
        start[: rows // 2] = -0.0
    expected = start.copy()
    np.add.at(expected, key, vals)
    got = start.copy()
    assert _scatter._row_key(got, key, vals)
    getattr(_scatter, how)(got, key, vals)
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_increasing_keys_add_each_row_once(dtype):
    """Strictly increasing keys (an embedding of positions) take one fancy add: np.add.at's result, signed zeros
    included; a repeated or wrapped-around key is not increasing and takes the general path."""
    rng = np.random.default_rng(1)
    for key in (np.arange(32), np.array([0, 3, 4, 9]), np.array([-5, -3, -1]), np.array([1, 1, 2]), np.array([9, -1])):
        vals = rng.standard_normal((key.size, 4)).astype(dtype)
        start = rng.standard_normal((40, 4)).astype(dtype)
        if dtype != np.int64:
            vals[0] = -0.0
            start[key[0]] = -0.0
        expected = start.copy()
        np.add.at(expected, key, vals)
        got = start.copy()
        _scatter._add_rows(got, key, vals)
        np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_padded_reduction_is_taken():
    """The embedding-backward shape (a small vocabulary, many tokens) takes the padded reduction."""
    key = np.arange(320) % 30
    dst, vals = np.zeros((30, 64), np.float32), np.ones((320, 64), np.float32)
    called = []
    orig = _scatter._add_rows_padded
    try:
        _scatter._add_rows_padded = lambda *a: called.append(1) or orig(*a)
        _scatter._add_rows(dst, key, vals)
    finally:
        _scatter._add_rows_padded = orig
    assert called and dst[0, 0] == 11 and dst[29, 0] == 10


def test_embedding_backward_accumulates_repeated_rows():
    w = openreg.zeros(3, 2, requires_grad=True)
    idx = openreg.tensor([[0, 2, 0], [2, 2, 1]])
    g = openreg.arange(12.0).reshape(2, 3, 2)
    (gw,) = openreg.autograd.grad(openreg.nn.functional.embedding(idx, w), [w], g)
    assert gw.tolist() == [[4.0, 6.0], [10.0, 11.0], [16.0, 19.0]]
