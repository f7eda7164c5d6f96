"""sort/argsort/topk order on tensors large enough for the packed-key sort: equal elements (ties, -0.0 and 0.0,
NaNs) keep their original order ascending and descending, NaN sorts as the largest value; against NumPy's stable
argsort on the CPU and the device, for every dtype the packed keys cover and one they do not (float64)."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg

RNG = np.random.default_rng(0)


def _stable(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return (n - 1) - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis=axis)


def _data(dtype, shape):
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype.startswith("float") or dtype == "bfloat16":
        special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.5, -1.5, 1e-40, -2.0], dtype=np.float32)
        x = np.where(RNG.random(shape) < 0.5, RNG.standard_normal(shape), RNG.choice(special, shape))
        return x.astype(np.float32 if dtype == "bfloat16" else dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -50), min(info.max, 50), shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "int16", "int8", "uint8",
                                   "int64", "bool"])
def test_sort_argsort_topk_stable(device, dtype):
    for shape, dim in (((40, 33), 1), ((40, 33), 0), ((6, 50, 7), 1), ((300,), 0)):
        x = _data(dtype, shape)
        t = openreg.tensor(x, device=device)
        if dtype == "bfloat16":
            t = t.to(openreg.bfloat16)
            x = t.float().cpu().numpy()
        for descending in (False, True):
            expected = _stable(x, dim, descending)
            values, indices = t.sort(dim, descending=descending)
            np.testing.assert_array_equal(indices.cpu().numpy(), expected)
            np.testing.assert_array_equal(t.argsort(dim, descending=descending).cpu().numpy(), expected)
            got = values.float().cpu().numpy() if dtype == "bfloat16" else values.cpu().numpy()
            np.testing.assert_array_equal(got, np.take_along_axis(x, expected, dim))
            if dtype == "bool":
                continue
            for k in (0, 1, 5, shape[dim]):
                v, i = t.topk(k, dim, largest=descending)
                np.testing.assert_array_equal(i.cpu().numpy(), np.take(expected, np.arange(k), axis=dim))
                assert tuple(v.shape) == tuple(i.shape)


def test_signed_zeros_are_equal_and_keep_order():
    x = openreg.tensor([0.0, -0.0] * 200)
    assert x.argsort().tolist() == list(range(400))
    assert x.argsort(descending=True).tolist() == list(range(400))
    assert x.topk(3).indices.tolist() == [0, 1, 2]
