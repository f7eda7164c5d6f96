"""addcmul/addcdiv/lerp beyond the record samples: value=, PyTorch's deprecated (value, tensor1, tensor2) order,
integer and bool inputs, broadcasting into in-place results, lerp's dtype checks and tensor weights, gradients.

Hand-written Adam/RMSprop copies (``exp_avg_sq.mul_(b2).addcmul_(1 - b2, g, g)``) and EMA updates
(``ema.lerp_(p, 1 - decay)``) stopped on the missing methods.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from device_params import DEVICES

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None


@pytest.mark.parametrize("device", DEVICES)
def test_values_against_numpy(device):
    rng = np.random.default_rng(0)
    s, a, b = (rng.standard_normal(sh).astype(np.float32) for sh in ((2, 3), (1, 3), (2, 1)))
    b = np.abs(b) + 0.5
    S, A_, B = (openreg.tensor(x, device=device) for x in (s, a, b))
    np.testing.assert_allclose(openreg.addcmul(S, A_, B, value=-0.5).cpu().numpy(), s - 0.5 * a * b, rtol=1e-6)
    np.testing.assert_allclose(S.addcdiv(A_, B, value=2).cpu().numpy(), s + 2 * a / b, rtol=1e-6)
    np.testing.assert_allclose(openreg.lerp(S, A_, 0.75).cpu().numpy(), s + 0.75 * (a - s), rtol=1e-5, atol=1e-6)
    w = openreg.tensor([[0.1], [0.9]], device=device)
    np.testing.assert_allclose(S.lerp(A_, w).cpu().numpy(), s + np.array([[0.1], [0.9]]) * (a - s), rtol=1e-5,
                               atol=1e-6)
    out = openreg.empty(0, device=device)
    openreg.addcmul(S, A_, B, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), s + a * b, rtol=1e-6)


def test_deprecated_value_first_order_warns_and_computes():
    t = openreg.ones(2)
    with pytest.warns(UserWarning, match="deprecated"):
        t.addcmul_(0.5, openreg.full((2,), 2.0), openreg.full((2,), 3.0))
    assert t.tolist() == [4.0, 4.0]
    with pytest.warns(UserWarning, match="deprecated"):
        r = openreg.addcdiv(openreg.ones(2), 2, openreg.full((2,), 3.0), openreg.full((2,), 2.0))
    assert r.tolist() == [4.0, 4.0]


def test_errors():
    i = openreg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        openreg.addcdiv(i, i, i)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        b = openreg.tensor([True])
        openreg.addcmul(b, b, b)
    with pytest.raises(NotImplementedError, match="lerp_kernel_scalar"):
        openreg.lerp(i, i, 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        openreg.lerp(openreg.ones(2), openreg.ones(2, dtype=openreg.float64), 0.5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        openreg.ones(2).addcmul_(openreg.ones(3, 1), openreg.ones(2))
    with pytest.raises(TypeError, match="must be Tensor"):
        openreg.addcmul(openreg.ones(2), openreg.ones(2), 2.0)
    t = openreg.ones(2)
    with pytest.raises(TypeError):
        t.addcmul_(openreg.ones(2), openreg.ones(2), 1, 2)
    assert t.tolist() == [1.0, 1.0]


def test_integer_addcmul_casts_value():
    i = openreg.tensor([1, 2])
    assert openreg.addcmul(i, i, i, value=2.5).tolist() == [3, 10]


def test_gradients():
    x = openreg.tensor([1.0, 3.0], requires_grad=True)
    y = openreg.tensor([2.0, 6.0], requires_grad=True)
    z = openreg.tensor([[2.0], [0.5]], requires_grad=True)
    openreg.addcdiv(x, y, z, value=0.3).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    np.testing.assert_allclose(y.grad.numpy(), [0.3 / 2 + 0.3 / 0.5] * 2, rtol=1e-6)
    np.testing.assert_allclose(z.grad.numpy(), [[-0.3 * 8 / 4], [-0.3 * 8 / 0.25]], rtol=1e-6)


def _behaviour(lib):
    out = []
    f, g, i = lib.tensor([1.0, 3.0]), lib.tensor([[2.0], [0.5], [4.0]]), lib.tensor([1, 2])
    calls = [
        lambda: lib.addcmul(f, i, i, value=2.5), lambda: lib.addcmul(f, f.double(), f),
        lambda: f.clone().addcmul_(f.double(), f), lambda: lib.addcdiv(f, f, g, value=-0.5),
        lambda: lib.lerp(f, f * 5, 0.5), lambda: lib.lerp(f, f * 3, lib.tensor([0.5, 0.2])),
        lambda: lib.lerp(f, g, 0.3), lambda: lib.lerp(f, f, lib.tensor(0.5, dtype=lib.float64)),
        lambda: lib.addcmul(f.half(), f.half(), f.half(), value=1e-4), lambda: lib.lerp(f.half(), f.half() * 3, 0.25),
        lambda: f.clone().lerp_(g, 0.3), lambda: lib.lerp(f, f, lib.tensor([0.5, 0.2], dtype=lib.float64)),
    ]
    for call in calls:
        try:
            r = call()
            out.append((str(r.dtype).split(".")[-1], np.round(np.asarray(r.tolist(), dtype=float), 4).tolist()))
        except Exception as e:  # noqa: BLE001 - the error type and message are what is compared
            out.append((type(e).__name__, str(e)[:60]))
    return out


@pytest.mark.skipif(torch is None, reason="needs PyTorch to compare with")
def test_same_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _behaviour(openreg) == _behaviour(torch)
