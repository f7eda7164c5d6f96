"""Row scatter-adds (embedding backward, index_add_) in rounds give np.add.at's result bit for bit."""
import numpy as np
import pytest

import openreg
from openreg.operators import _scatter


@pytest.mark.parametrize("rows,n,shape", [(30, 512, (48,)), (5, 7, (3, 2)), (10000, 320, (16,)), (4, 2, (1,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_rounds_equal_add_at(rows, n, shape, dtype):
    rng = np.random.default_rng(rows + n)
    key = rng.integers(-rows, rows, n)                  # negative indices name the same rows as positive ones
    vals = (rng.standard_normal((n,) + shape) * 100).astype(dtype)
    start = (rng.standard_normal((rows,) + shape) * 100).astype(dtype)
    expected = start.copy()
    np.add.at(expected, key, vals)
    got = start.copy()
    assert _scatter._row_key(got, key, vals)
    _scatter._add_rows_in_rounds(got, key, vals)
    np.testing.assert_array_equal(got, expected)


def test_embedding_backward_accumulates_repeated_rows():
    w = openreg.zeros(3, 2, requires_grad=True)
    idx = openreg.tensor([[0, 2, 0], [2, 2, 1]])
    g = openreg.arange(12.0).reshape(2, 3, 2)
    (gw,) = openreg.autograd.grad(openreg.nn.functional.embedding(idx, w), [w], g)
    assert gw.tolist() == [[4.0, 6.0], [10.0, 11.0], [16.0, 19.0]]
