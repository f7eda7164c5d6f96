"""``count_nonzero`` and ``diff`` against NumPy, on the CPU and the device: values, dtypes, dims, prepend/append,
bool inputs, errors and the gradient through diff's slices."""
from __future__ import annotations

import numpy as np
import pytest

import openreg


def test_count_nonzero_over_every_dim_one_dim_and_several(devices):
    a = np.array([[0, 1, 2], [0, 0, 3]])
    x = openreg.from_numpy(a).to(devices)
    assert openreg.count_nonzero(x).item() == 3 and openreg.count_nonzero(x).dtype == openreg.int64
    assert openreg.count_nonzero(x, dim=0).tolist() == np.count_nonzero(a, axis=0).tolist()
    assert x.count_nonzero(-1).tolist() == [2, 1]
    assert openreg.count_nonzero(x, dim=(0, 1)).item() == 3
    assert openreg.count_nonzero(openreg.tensor([0.0, -0.0, float("nan")], device=devices)).item() == 1


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_diff_matches_numpy(devices, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((3, 6)).astype(np.float32)
    x = openreg.from_numpy(a).to(devices)
    for dim in (0, 1, -1):
        np.testing.assert_allclose(openreg.diff(x, n=n, dim=dim).cpu().numpy(), np.diff(a, n=n, axis=dim), rtol=1e-6)
    pre, app = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal((3, 1)).astype(np.float32)
    got = x.diff(n, 1, openreg.from_numpy(pre).to(devices), openreg.from_numpy(app).to(devices))
    np.testing.assert_allclose(got.cpu().numpy(), np.diff(a, n=n, axis=1, prepend=pre, append=app), rtol=1e-6)
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(openreg.diff(openreg.from_numpy(b).to(devices), n=n).cpu().numpy(), np.diff(b, n=n))


def test_diff_errors_and_gradient():
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        openreg.diff(openreg.tensor(1.0))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        openreg.diff(openreg.ones(3), n=-1)
    x = openreg.tensor([1.0, 2.0, 4.0], requires_grad=True)
    openreg.diff(x).sum().backward()
    assert x.grad.tolist() == [-1.0, 0.0, 1.0]
