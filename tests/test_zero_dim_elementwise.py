"""Elementwise ops and their gradients on 0-d tensors, compared with PyTorch on the CPU and the device. NumPy
returns a scalar, not an array, for a 0-d input, so a kernel writing into its first result (``out=``) breaks
there only: lucidrains' denoising-diffusion-pytorch computes ``torch.tensor(start / tau).sigmoid()`` in its
sigmoid beta schedule and stopped at 'return arrays must be of ArrayType'."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg

torch = pytest.importorskip("torch")

UNARY = ["sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "abs", "neg", "reciprocal", "expm1",
         "log1p", "erf", "erfc", "atan", "sinh", "cosh", "tan", "asinh", "lgamma", "digamma", "relu", "square",
         "sign", "floor", "trunc", "frac", "exp2", "log2", "log10", "deg2rad"]
FUNCTIONAL = ["softplus", "silu", "gelu", "elu", "leaky_relu", "mish", "logsigmoid", "hardtanh", "selu", "celu",
              "hardswish", "hardsigmoid", "relu6", "softsign", "tanhshrink", "softshrink", "hardshrink"]


def _run(lib, fn, value, dtype, device):
    x = lib.tensor(value, dtype=getattr(lib, dtype), requires_grad=True)
    if lib is openreg:
        x = openreg.tensor(value, dtype=getattr(openreg, dtype), device=device, requires_grad=True)
    y = fn(lib, x)
    (y * 1.5).backward()
    return y.detach().cpu().numpy(), x.grad.cpu().numpy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY + FUNCTIONAL)
def test_zero_dim_values_and_gradients_equal_pytorchs(name, dtype, device):
    if name in UNARY:
        def fn(lib, x):
            return getattr(lib, name)(x)
    else:
        def fn(lib, x):
            return getattr(lib.nn.functional, name)(x)
    for value in (0.75, -2.5):     # off hardsigmoid/hardswish's kinks at +-3, where openreg's gradient differs
        if name in ("log", "sqrt", "rsqrt", "log2", "log10", "lgamma", "digamma") and value < 0:
            value = -value
        (yo, go), (yt, gt) = _run(openreg, fn, value, dtype, device), _run(torch, fn, value, dtype, "cpu")
        assert yo.shape == () and go.shape == ()
        tol = 1e-6 if dtype == "float32" else 1e-13
        np.testing.assert_allclose(yo, yt, rtol=tol, atol=tol)
        # PyTorch's float64 trigamma (digamma's derivative) is 4e-10 off the exact value and its float64
        # hardsigmoid backward multiplies by the float32 1/6; openreg's are exact
        loose = {"digamma": 1e-9, "hardsigmoid": 1e-7}.get(name) if dtype == "float64" else None
        np.testing.assert_allclose(go, gt, rtol=loose or tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
def test_the_sigmoid_beta_schedule_of_denoising_diffusion(device):
    def schedule(lib, dev, timesteps=20, start=-3, end=3, tau=1):
        t = lib.linspace(0, timesteps, timesteps + 1, dtype=lib.float64, device=dev) / timesteps
        v_start = lib.tensor(start / tau, device=dev).sigmoid()
        v_end = lib.tensor(end / tau, device=dev).sigmoid()
        a = (-((t * (end - start) + start) / tau).sigmoid() + v_end) / (v_end - v_start)
        a = a / a[0]
        return lib.clip(1 - (a[1:] / a[:-1]), 0, 0.999).cpu().numpy()
    np.testing.assert_allclose(schedule(openreg, device), schedule(torch, "cpu"), rtol=1e-12)
