"""torch.*_window factories: values against NumPy's windows (np.hanning/hamming/blackman/bartlett/kaiser, whose
symmetric forms are periodic=False), periodic forms, dtypes, devices, requires_grad and PyTorch's errors; against
PyTorch when it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

NUMPY = {
    "hann_window": np.hanning, "hamming_window": np.hamming, "blackman_window": np.blackman,
    "bartlett_window": np.bartlett, "kaiser_window": lambda n: np.kaiser(n, 12.0),
}


@pytest.mark.parametrize("name", sorted(NUMPY))
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
def test_against_numpy(name, n, devices):
    fn = getattr(openreg, name)
    sym = fn(n, periodic=False, dtype=openreg.float64, device=devices)
    assert sym.device.type == openreg.device(devices).type and sym.dtype == openreg.float64
    np.testing.assert_allclose(sym.cpu().numpy(), NUMPY[name](n), rtol=1e-12, atol=1e-14)
    per = fn(n, dtype=openreg.float64, device=devices)
    expected = NUMPY[name](n + 1)[:n] if n > 1 else np.ones(n)
    np.testing.assert_allclose(per.cpu().numpy(), expected, rtol=1e-12, atol=1e-14)


def test_dtype_grad_and_errors():
    w = openreg.hann_window(8, requires_grad=True)
    assert w.dtype == openreg.get_default_dtype() and w.requires_grad and w.is_leaf
    assert openreg.hamming_window(4, True, 0.5, 0.5).tolist() == openreg.hann_window(4).tolist()
    with pytest.raises(RuntimeError, match="hann_window requires non-negative window_length, got window_length=-1"):
        openreg.hann_window(-1)
    with pytest.raises(RuntimeError, match="kaiser_window expects floating point dtypes"):
        openreg.kaiser_window(4, dtype=openreg.int64)


@needs_torch
@pytest.mark.parametrize("name", sorted(NUMPY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_pytorch(name, dtype):
    for n in (1, 5, 10):
        for periodic in (True, False):
            extra = (0.3, 0.6) if name == "hamming_window" else (4.5,) if name == "kaiser_window" else ()
            got = getattr(openreg, name)(n, periodic, *extra, dtype=getattr(openreg, dtype))
            ref = getattr(torch, name)(n, periodic, *extra, dtype=getattr(torch, dtype))
            np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6 if dtype == "float32" else 1e-12,
                                       atol=1e-6 if dtype == "float32" else 1e-14)
