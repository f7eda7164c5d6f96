"""The branch-free kernels under ReLU, its gradient, clamp and max-pool: ``select`` is ``np.where`` and
``with_constant`` is the ufunc, bit for bit (NaN payloads and signed zeros included), at every size."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg.operators._compute import _CONSTANT_CHUNK, select, with_constant

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int64, np.uint8, np.bool_, np.complex64]
SHAPES = [((5000,), (5000,), (5000,)), ((5000,), (), (5000,)), ((5000,), (5000,), ()), ((40, 100), (1, 100), (40, 1)),
          ((40, 100), (), ()), ((7,), (7,), ())]


def _values(rng, dtype, shape):
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    v = rng.standard_normal(shape).astype(dtype)
    if np.issubdtype(dtype, np.floating) and v.ndim:
        v.flat[:3] = [np.nan, -0.0, np.inf]
    return v


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES)
def test_select_is_where_bit_for_bit(dtype, shapes):
    rng = np.random.default_rng(0)
    c = rng.random(shapes[0]) < 0.5
    a, b = _values(rng, dtype, shapes[1]), _values(rng, dtype, shapes[2])
    zero = np.zeros((), dtype)
    for x, y in ((a, b), (zero, b), (a, zero), (zero, zero)):
        got, want = select(np, c, x, y), np.where(c, x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(_bits(got), _bits(want))
    if np.issubdtype(dtype, np.floating):      # a negative zero is not the zero shortcut
        nz = np.array(-0.0, dtype)
        np.testing.assert_array_equal(_bits(select(np, c, a, nz)), _bits(np.where(c, a, nz)))


@pytest.mark.parametrize("n", [10, 5000, _CONSTANT_CHUNK, _CONSTANT_CHUNK + 7, 3 * _CONSTANT_CHUNK - 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_with_constant_is_the_ufunc_bit_for_bit(n, dtype):
    rng = np.random.default_rng(n)
    x = _values(rng, dtype, (n,))
    strided = _values(rng, dtype, (n, 2))[:, 1]
    for value in (np.zeros((), dtype), np.array(-0.0 if dtype is not np.int32 else -3, dtype), np.array(1.5, dtype)):
        for ufunc in (np.maximum, np.minimum):
            for first in (False, True):
                for arr in (x, strided, x.reshape(-1, 1) if n % 2 else x.reshape(2, -1)):
                    got = with_constant(np, ufunc, arr, value, constant_first=first)
                    want = ufunc(value, arr) if first else ufunc(arr, value)
                    assert got.shape == want.shape and got.flags.c_contiguous
                    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("n", [16, 70000])
def test_relu_keeps_negative_zero_and_nan_as_pytorch(devices, n):
    # PyTorch's relu is max(0, x) in that order: relu(-0.0) is -0.0, relu(nan) is nan
    x = np.linspace(-3, 3, n, dtype=np.float32)
    x[:3] = [-0.0, np.nan, 0.0]
    y = openreg.relu(openreg.from_numpy(x).to(devices)).cpu().numpy()
    assert np.signbit(y[0]) and y[0] == 0 and np.isnan(y[1]) and not np.signbit(y[2])
    np.testing.assert_array_equal(y[3:], np.maximum(x[3:], 0))
    g = openreg.from_numpy(x).to(devices).requires_grad_()
    openreg.relu(g).sum().backward()
    grad = g.grad.cpu().numpy()
    assert grad[0] == 0 and grad[1] == 1 and grad[2] == 0          # x <= 0 blocks, NaN passes its gradient
    np.testing.assert_array_equal(grad[3:], (x[3:] > 0).astype(np.float32))
