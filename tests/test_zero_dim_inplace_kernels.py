"""Kernels that compute into their first intermediate array keep working on 0-d tensors (NumPy turns a 0-d
result into a scalar, which cannot be written into): sigmoid and sigmoid_backward, CPU and the device."""
import math

import pytest

import openreg


@pytest.mark.parametrize("device", ["cpu", "privateuseone"])
@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_sigmoid_of_a_zero_dim_tensor(device, dtype):
    x = openreg.tensor(0.4, dtype=dtype, device=device, requires_grad=True)
    y = openreg.sigmoid(x)
    y.backward()
    s = 1 / (1 + math.exp(-0.4))
    assert y.shape == () and y.item() == pytest.approx(s, rel=1e-6)
    assert x.grad.item() == pytest.approx(s * (1 - s), rel=1e-6)
    g = openreg.ops.aten.sigmoid_backward(openreg.tensor(2.0, dtype=dtype, device=device), y.detach())
    assert g.shape == () and g.item() == pytest.approx(2 * s * (1 - s), rel=1e-6)
