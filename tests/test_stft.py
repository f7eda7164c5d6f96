"""openreg.stft / istft (and the Tensor methods) against a NumPy reference and against PyTorch: centering and
padding modes, win_length < n_fft, hop, normalization, onesided, batches, complex inputs, align_to_window, the
inverse with and without ``length``, gradients, the device, PyTorch's warnings and errors. openai/whisper's
log_mel_spectrogram stopped at ``torch.stft`` (AttributeError)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from device_params import DEVICES

import openreg
from openreg.autograd import gradcheck

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")

RNG = np.random.default_rng(11)
X = RNG.standard_normal((2, 120))


def _np_stft(x, n_fft, hop, win, window, center, normalized, onesided):
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode="reflect")
    w = np.ones(win) if window is None else window
    left = (n_fft - win) // 2
    w = np.pad(w, (left, n_fft - win - left))
    n = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., t * hop:t * hop + n_fft] * w for t in range(n)], axis=-2)
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n_fft", "hop", "win", "center", "normalized", "onesided", "batched"), [
    (16, None, None, True, False, None, True), (16, 3, 10, True, False, None, False),
    (15, 4, None, False, True, None, True), (16, 5, 12, True, False, False, True)])
def test_stft_matches_numpy(device, n_fft, hop, win, center, normalized, onesided, batched):
    x = X if batched else X[0]
    window = np.hanning(win or n_fft)
    got = openreg.stft(openreg.tensor(x, device=device), n_fft, hop, win, openreg.tensor(window, device=device),
                       center=center, normalized=normalized, onesided=onesided, return_complex=True)
    want = _np_stft(x, n_fft, hop or n_fft // 4, win or n_fft, window, center, normalized, onesided is not False)
    assert got.device.type == device.split(":")[0] and got.dtype is openreg.complex128
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-10, atol=1e-10)
    if center:       # the inverse gives the signal back (NOLA holds for these windows and hops)
        back = openreg.istft(got, n_fft, hop, win, openreg.tensor(window, device=device), normalized=normalized,
                             onesided=onesided, length=x.shape[-1])
        np.testing.assert_allclose(back.cpu().numpy(), x, rtol=1e-9, atol=1e-9)


def test_stft_tensor_method_real_view_and_gradients():
    x = openreg.tensor(X[0, :40], requires_grad=True)
    w = openreg.hann_window(8, dtype=openreg.float64)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        real = x.stft(8, 2, window=w, return_complex=False)
    assert real.shape == (5, 21, 2)
    assert gradcheck(lambda t: openreg.stft(t, 8, 2, window=w, return_complex=True).abs(), (x,))
    spec = openreg.stft(x.detach(), 8, 2, window=w, return_complex=True).requires_grad_()
    assert gradcheck(lambda s: s.istft(8, 2, window=w, length=40), (spec,))


def test_stft_warnings_and_errors():
    x = openreg.ones(100)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter be given for real inputs"):
        openreg.stft(x, 16, window=openreg.hann_window(16))
    with pytest.warns(UserWarning, match="A window was not provided"):
        openreg.stft(x, 16, return_complex=True)
    with pytest.raises(RuntimeError, match=r"expected 0 < n_fft < 100, but got n_fft=0"):
        openreg.stft(x, 0, window=openreg.ones(1), return_complex=True)
    with pytest.raises(RuntimeError, match="expected hop_length > 0, but got hop_length=0"):
        openreg.stft(x, 16, 0, window=openreg.ones(16), return_complex=True)
    with pytest.raises(RuntimeError, match="expected 0 < win_length <= n_fft, but got win_length=20"):
        openreg.stft(x, 16, win_length=20, window=openreg.ones(20), return_complex=True)
    with pytest.raises(RuntimeError, match=r"window tensor of size equal to win_length=16, but got window with size \[5\]"):
        openreg.stft(x, 16, window=openreg.ones(5), return_complex=True)
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        openreg.stft(openreg.ones(2, 2, 100), 16, window=openreg.ones(16), return_complex=True)
    with pytest.raises(RuntimeError, match="align_to_window should only be set when center = false"):
        openreg.stft(x, 16, window=openreg.ones(16), return_complex=True, align_to_window=True)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input"):
        openreg.istft(openreg.ones(9, 5), 16, window=openreg.ones(16))
    with pytest.raises(RuntimeError, match="window overlap add min"):
        openreg.istft(openreg.ones(9, 5, dtype=openreg.complex64), 16, 16, window=openreg.hann_window(16))


@needs_torch
@pytest.mark.parametrize("kw", [
    {"n_fft": 32}, {"n_fft": 32, "hop_length": 7}, {"n_fft": 32, "win_length": 20}, {"n_fft": 32, "center": False},
    {"n_fft": 32, "normalized": True}, {"n_fft": 32, "onesided": False}, {"n_fft": 32, "pad_mode": "constant"},
    {"n_fft": 32, "win_length": 20, "center": False, "align_to_window": True}, {"n_fft": 31, "hop_length": 5}])
@pytest.mark.parametrize("with_window", [True, False])
def test_stft_istft_match_pytorch(kw, with_window):
    x = RNG.standard_normal((2, 200)).astype(np.float32)
    n = kw.get("win_length", kw["n_fft"])
    tw, ow = (torch.hann_window(n), openreg.hann_window(n)) if with_window else (None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sig in (x, x[0]):
            want = torch.stft(torch.tensor(sig), window=tw, return_complex=True, **kw)
            got = openreg.stft(openreg.tensor(sig), window=ow, return_complex=True, **kw)
            assert got.dtype is openreg.complex64
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
            if kw.get("center", True) and "pad_mode" not in kw:
                inv = {k: v for k, v in kw.items() if k != "pad_mode"}
                np.testing.assert_allclose(openreg.istft(got, window=ow, length=200, **inv).numpy(),
                                           torch.istft(want, window=tw, length=200, **inv).numpy(), atol=2e-6)
                np.testing.assert_allclose(openreg.istft(got, window=ow, **inv).numpy(),
                                           torch.istft(want, window=tw, **inv).numpy(), atol=2e-6)


@needs_torch
def test_stft_complex_input_and_gradient_match_pytorch():
    z = (RNG.standard_normal(100) + 1j * RNG.standard_normal(100)).astype(np.complex64)
    got = openreg.stft(openreg.tensor(z), 16, window=openreg.hann_window(16))
    want = torch.stft(torch.tensor(z), 16, window=torch.hann_window(16))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    back = openreg.istft(got, 16, window=openreg.hann_window(16), return_complex=True, onesided=False)
    np.testing.assert_allclose(back.numpy(), torch.istft(want, 16, window=torch.hann_window(16), return_complex=True,
                                                         onesided=False).numpy(), atol=2e-6)
    x = RNG.standard_normal((2, 150)).astype(np.float32)
    a, b = openreg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    openreg.stft(a, 32, 8, window=openreg.hann_window(32), return_complex=True).abs().pow(2).sum().backward()
    torch.stft(b, 32, 8, window=torch.hann_window(32), return_complex=True).abs().pow(2).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)
