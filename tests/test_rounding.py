"""Rounding, sign and classification ops against PyTorch: special values (NaN, ±inf, -0.0, halves), integer and
bool inputs, errors, on the CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE

import openreg

torch = pytest.importorskip("torch", reason="differential tests need PyTorch")

VALUES = [-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 2.7, -3.2, float("nan"), float("inf"), float("-inf")]
NAMES = ["floor", "ceil", "trunc", "round", "frac", "sign", "isnan", "isinf", "isfinite", "signbit"]


@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_matches_pytorch(name, dtype, device):
    data = np.array(VALUES) if dtype.startswith("float") else np.array([-3, 0, 2]) if dtype == "int64" else \
        np.array([True, False])
    ours_in = openreg.tensor(data.astype(dtype), device=device)
    theirs_in = torch.tensor(data.astype(dtype))
    try:
        expected = getattr(torch, name)(theirs_in)
    except Exception as e:  # noqa: BLE001 - the same error type is expected
        with pytest.raises(type(e)):
            getattr(openreg, name)(ours_in)
        return
    got = getattr(openreg, name)(ours_in)
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())
    if dtype.startswith("float"):   # the sign of zero too
        np.testing.assert_array_equal(np.signbit(got.cpu().numpy()), np.signbit(expected.numpy()))


def test_rounding_gradients_are_zero_and_frac_passes_through():
    x = openreg.tensor([1.3, -2.7], requires_grad=True)
    (x.floor() + x.ceil() + x.round() + x.trunc() + x.sign() + 3 * x.frac()).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_in_place_and_out():
    x = openreg.tensor([1.5, -1.5])
    x.floor_()
    assert x.tolist() == [1.0, -2.0]
    out = openreg.empty(0, dtype=openreg.bool)
    openreg.signbit(openreg.tensor([-1.0, 2.0]), out=out)
    assert out.tolist() == [True, False]
