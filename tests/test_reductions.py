"""Reductions and softmax against NumPy: dims (int, list, negative, none), keepdim, dtype=, errors."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg._array_bridge import host_array

RNG = np.random.default_rng(7)


def T(arr, device="cpu"):
    t = openreg.from_numpy(np.array(arr, order="C"))
    return t if device == "cpu" else t.to(device)


def N(t) -> np.ndarray:
    return np.array(host_array(t))


DIMS = [None, 0, 1, -1, (0, 2), [1, -1]]


def _axis(dim):
    return tuple(dim) if isinstance(dim, list) else dim


@pytest.mark.parametrize("name, np_fn", [("sum", np.sum), ("mean", np.mean), ("amax", np.amax),
                                         ("amin", np.amin)])
def test_multi_dim_reductions(devices, name, np_fn):
    a = RNG.uniform(-2, 2, size=(2, 3, 4)).astype(np.float32)
    x = T(a, devices)
    for dim in DIMS:
        for keepdim in (False, True):
            if dim is None:
                r = getattr(x, name)() if not keepdim else getattr(openreg, name)(x, keepdim=True) \
                    if name in ("sum", "mean") else getattr(x, name)((), keepdim)
            else:
                r = getattr(x, name)(dim, keepdim)
            expected = np_fn(a, axis=_axis(dim), keepdims=keepdim)
            assert r.dtype is openreg.float32
            assert tuple(r.shape) == np.shape(expected), (name, dim, keepdim)
            np.testing.assert_allclose(N(r), expected, rtol=1e-5, atol=1e-6)


def test_integer_and_bool_sum_prod_promote_to_int64(devices):
    for dtype in (np.int8, np.uint8, np.int32, np.bool_):
        a = RNG.integers(0, 3, size=(3, 4)).astype(dtype)
        x = T(a, devices)
        assert x.sum().dtype is openreg.int64
        assert x.sum().item() == int(a.astype(np.int64).sum())
        assert N(x.sum(1)).tolist() == a.astype(np.int64).sum(1).tolist()
        assert x.prod().dtype is openreg.int64
        assert N(x.prod(0)).tolist() == a.astype(np.int64).prod(0).tolist()
    x = T(np.array([100, 100], dtype=np.int8), devices)
    assert x.sum().item() == 200  # no int8 overflow


def test_dtype_argument_converts_first(devices):
    a = np.array([[1.5, 2.5], [3.5, 4.5]], dtype=np.float32)
    x = T(a, devices)
    r = x.sum(dtype=openreg.float64)
    assert r.dtype is openreg.float64 and r.item() == 12.0
    r = x.sum(0, dtype=openreg.int32)
    assert r.dtype is openreg.int32 and N(r).tolist() == [4, 6]
    i = T(np.array([1, 2, 4]), devices)
    r = i.mean(dtype=openreg.float64)
    assert r.dtype is openreg.float64 and r.item() == pytest.approx(7 / 3)
    assert i.prod(dtype=openreg.float32).dtype is openreg.float32


def test_mean_of_integers_raises():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype. Input dtype must be either "
                                           "a floating point or complex dtype. Got: Long"):
        T(np.array([1, 2])).mean()
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point or complex dtype. "
                                           "Got: Int"):
        T(np.array([1.0])).mean(dtype=openreg.int32)


def test_half_precision_sums_accumulate_in_float32():
    a = np.full(4096, 0.1, dtype=np.float16)
    r = T(a).sum()
    assert r.dtype is openreg.float16
    assert abs(r.item() - 409.6) < 0.5
    b = T(a.astype(np.float32)).to(openreg.bfloat16)
    assert b.sum().dtype is openreg.bfloat16
    assert abs(b.sum().item() - 409.6) < 4


def test_zero_dim_and_empty(devices):
    z = T(np.array(3.0), devices)
    assert z.sum().item() == 3.0
    assert z.sum(0).item() == 3.0
    assert z.sum(-1, keepdim=True).shape == ()
    assert z.amax().item() == 3.0
    assert z.argmax().item() == 0
    e = T(np.zeros((0, 3), dtype=np.float32), devices)
    assert e.sum().item() == 0.0
    assert N(e.sum(0)).tolist() == [0.0, 0.0, 0.0]
    assert e.prod().item() == 1.0
    assert np.isnan(e.mean().item())
    assert N(e.amax(1)).shape == (0,)
    assert e.softmax(1).shape == (0, 3) and e.log_softmax(0).shape == (0, 3)
    with pytest.raises(IndexError, match="amax\\(\\): Expected reduction dim 0 to have non-zero size."):
        e.amax(0)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        e.amin()
    with pytest.raises(IndexError, match="argmax\\(\\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(RuntimeError, match="argmax\\(\\): does not support bool input"):
        T(np.array([True]), devices).argmax()


def test_out_of_range_dims_raise_index_error():
    x = openreg.ones(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but "
                                         r"got 5\)"):
        x.sum(5)
    for fn in (lambda: x.mean(-3), lambda: x.prod(2), lambda: x.amax(2), lambda: x.argmax(2),
               lambda: x.softmax(2), lambda: x.log_softmax(-3)):
        with pytest.raises(IndexError, match="Dimension out of range"):
            fn()
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.sum((0, 0))


def test_argmax_argmin(devices):
    a = RNG.permutation(24).reshape(2, 3, 4).astype(np.float32)
    x = T(a, devices)
    assert x.argmax().item() == int(a.argmax())
    assert x.argmin().item() == int(a.argmin())
    assert x.argmax().dtype is openreg.int64
    assert x.argmax(keepdim=True).shape == (1, 1, 1)
    for dim in (0, 1, -1):
        np.testing.assert_array_equal(N(x.argmax(dim)), a.argmax(dim))
        np.testing.assert_array_equal(N(openreg.argmin(x, dim, keepdim=True)), a.argmin(dim, keepdims=True))
    n = T(np.array([1.0, np.nan, 5.0]), devices)
    assert n.argmax().item() == 1  # NaN counts as the maximum, as in PyTorch
    assert np.isnan(n.amax().item())


def _np_softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_and_log_softmax(devices):
    a = RNG.normal(size=(3, 5)).astype(np.float32) * 10
    x = T(a, devices)
    for dim in (0, 1, -1):
        np.testing.assert_allclose(N(x.softmax(dim)), _np_softmax(a, dim), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(N(openreg.log_softmax(x, dim)), np.log(_np_softmax(a, dim)), rtol=1e-4,
                                   atol=1e-5)
    big = T(np.array([1000.0, 1000.0], dtype=np.float32), devices)
    assert N(big.softmax(0)).tolist() == [0.5, 0.5]  # stable for large inputs
    r = x.softmax(1, dtype=openreg.float64)
    assert r.dtype is openreg.float64
    h = x.to(openreg.float16).softmax(1)
    assert h.dtype is openreg.float16
    np.testing.assert_allclose(N(h), _np_softmax(a, 1), atol=2e-3)
    assert openreg.ops.aten._softmax.default(x.to(openreg.float16), 1, True).dtype is openreg.float32
    assert T(np.array(2.0), devices).softmax(0).item() == 1.0
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        T(np.array([1, 2]), devices).softmax(0)
    assert T(np.array([1, 2]), devices).softmax(0, dtype=openreg.float32).dtype is openreg.float32


def test_reduction_out_variants(devices):
    a = RNG.uniform(size=(3, 4)).astype(np.float32)
    x = T(a, devices)
    out = openreg.empty(0, device=devices)
    assert openreg.sum(x, 1, out=out) is out
    np.testing.assert_allclose(N(out), a.sum(1), rtol=1e-6)
    out = openreg.empty(0, device=devices)
    openreg.mean(x, [0, 1], keepdim=True, out=out)
    assert out.shape == (1, 1)
    np.testing.assert_allclose(N(out), a.mean(keepdims=True), rtol=1e-6)
    out = openreg.empty(0, device=devices)
    openreg.amax(x, 0, out=out)
    np.testing.assert_allclose(N(out), a.max(0))
    idx = openreg.empty(0, dtype=openreg.int64, device=devices)
    openreg.argmax(x, 1, out=idx)
    assert N(idx).tolist() == a.argmax(1).tolist()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        openreg.sum(x, 0, out=openreg.empty(0, dtype=openreg.int64, device=devices))
    out = openreg.empty(0, device=devices)
    openreg.prod(x, 1, out=out)
    np.testing.assert_allclose(N(out), a.prod(1), rtol=1e-5)
