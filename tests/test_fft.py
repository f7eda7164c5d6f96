"""openreg.fft against NumPy's FFT: every transform with its n/s/dim/norm arguments, dtypes, errors, the
frequency helpers and shifts, on the CPU and the device; gradients by gradcheck through real views, and the
values and gradients against PyTorch when it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg.autograd import gradcheck

RNG = np.random.default_rng(5)
X = RNG.normal(size=(3, 6, 5))
Z = X + 1j * RNG.normal(size=X.shape)

# (name, openreg call, NumPy reference, input): NumPy's norm names are PyTorch's
CASES = [
    ("fft", lambda f, a: f.fft(a, dim=1), lambda a: np.fft.fft(a, axis=1), Z),
    ("fft_real_padded", lambda f, a: f.fft(a, n=7), lambda a: np.fft.fft(a, n=7), X),
    ("ifft_trimmed_ortho", lambda f, a: f.ifft(a, n=4, norm="ortho"), lambda a: np.fft.ifft(a, n=4, norm="ortho"), Z),
    ("ifft_real", lambda f, a: f.ifft(a, dim=0), lambda a: np.fft.ifft(a, axis=0), X),
    ("rfft_forward", lambda f, a: f.rfft(a, n=8, norm="forward"), lambda a: np.fft.rfft(a, n=8, norm="forward"), X),
    ("irfft", lambda f, a: f.irfft(a), lambda a: np.fft.irfft(a), Z),
    ("irfft_odd", lambda f, a: f.irfft(a, n=7, dim=1), lambda a: np.fft.irfft(a, n=7, axis=1), Z),
    ("hfft", lambda f, a: f.hfft(a, n=6), lambda a: np.fft.hfft(a, n=6), Z),
    ("ihfft", lambda f, a: f.ihfft(a), lambda a: np.fft.ihfft(a), X),
    ("fft2", lambda f, a: f.fft2(a), lambda a: np.fft.fft2(a), Z),
    ("ifft2_real", lambda f, a: f.ifft2(a), lambda a: np.fft.ifft2(a), X),
    ("rfft2", lambda f, a: f.rfft2(a), lambda a: np.fft.rfft2(a), X),
    ("irfft2", lambda f, a: f.irfft2(a, s=(6, 9)), lambda a: np.fft.irfft2(a, s=(6, 9)), Z),
    ("fftn_s", lambda f, a: f.fftn(a, s=(4, 3)), lambda a: np.fft.fftn(a, s=(4, 3), axes=(1, 2)), Z),
    ("ifftn_dims", lambda f, a: f.ifftn(a, dim=(0, 2), norm="forward"),
     lambda a: np.fft.ifftn(a, axes=(0, 2), norm="forward"), Z),
    ("rfftn", lambda f, a: f.rfftn(a), lambda a: np.fft.rfftn(a), X),
    ("irfftn_dims", lambda f, a: f.irfftn(a, dim=(0, 1)), lambda a: np.fft.irfftn(a, axes=(0, 1)), Z),
    # hfftn: the real transform of the Hermitian signal = unscaled inverse real transform of the conjugate half
    ("hfft2", lambda f, a: f.hfft2(a), lambda a: np.fft.irfft2(np.conj(a), norm="forward"), Z),
    ("hfftn_s_ortho", lambda f, a: f.hfftn(a, s=(4, 7), norm="ortho"),
     lambda a: np.fft.irfftn(np.conj(a), s=(4, 7), axes=(1, 2), norm="ortho"), Z),
    ("hfftn_all", lambda f, a: f.hfftn(a), lambda a: np.fft.irfftn(np.conj(a), norm="forward"), Z),
    ("ihfft2", lambda f, a: f.ihfft2(a), lambda a: np.conj(np.fft.rfft2(a, norm="forward")), X),
    ("ihfftn_dims", lambda f, a: f.ihfftn(a, dim=(0, 2), norm="forward"),
     lambda a: np.conj(np.fft.rfftn(a, axes=(0, 2), norm="backward")), X),
]


@pytest.mark.parametrize(("name", "call", "ref", "data"), CASES, ids=[c[0] for c in CASES])
def test_transforms_match_numpy(name, call, ref, data, devices):
    t = openreg.tensor(data.tolist(), dtype=openreg.complex128 if np.iscomplexobj(data) else openreg.float64,
                       device=devices)
    got = call(openreg.fft, t)
    want = ref(data)
    assert got.dtype.is_complex == np.iscomplexobj(want) and tuple(got.shape) == want.shape
    assert got.device == t.device
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_single_precision_and_integer_inputs(devices):
    x = openreg.tensor(X.tolist(), dtype=openreg.float32, device=devices)
    r = openreg.fft.rfft(x)
    assert r.dtype is openreg.complex64
    np.testing.assert_allclose(r.cpu().numpy(), np.fft.rfft(X), rtol=1e-5, atol=1e-5)
    assert openreg.fft.irfft(r).dtype is openreg.float32
    i = openreg.fft.fft(openreg.tensor([1, 2, 3], device=devices))
    assert i.dtype is openreg.complex64
    np.testing.assert_allclose(i.cpu().numpy(), np.fft.fft([1, 2, 3]), rtol=1e-6)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: openreg.fft.rfft(openreg.ones(3, dtype=openreg.complex64)),
     "rfft expects a real input tensor, but got ComplexFloat"),
    (lambda: openreg.fft.fft(openreg.ones(3, dtype=openreg.float16)), "Unsupported dtype Half"),
    (lambda: openreg.fft.fft(openreg.ones(3), n=0), r"Invalid number of data points \(0\) specified"),
    (lambda: openreg.fft.irfft(openreg.ones(1)), r"Invalid number of data points \(0\) specified"),
    (lambda: openreg.fft.fft(openreg.ones(3), norm="bad"), 'Invalid normalization mode: "bad"'),
    (lambda: openreg.fft.fftn(openreg.ones(4, 4), s=(3,), dim=(0, 1)),
     "When given, dim and shape arguments must have the same length"),
    (lambda: openreg.fft.fftn(openreg.ones(4, 4), dim=(0, 0)), "FFT dims must be unique"),
])
def test_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_frequencies_and_shifts(devices):
    np.testing.assert_allclose(openreg.fft.fftfreq(5, 0.1).numpy(), np.fft.fftfreq(5, 0.1), rtol=1e-6)
    np.testing.assert_allclose(openreg.fft.rfftfreq(6, dtype=openreg.float64).numpy(), np.fft.rfftfreq(6))
    assert openreg.fft.fftfreq(4, device=devices).device.type == openreg.device(devices).type
    t = openreg.arange(12, device=devices).reshape(3, 4)
    np.testing.assert_array_equal(openreg.fft.fftshift(t).cpu().numpy(), np.fft.fftshift(np.arange(12).reshape(3, 4)))
    np.testing.assert_array_equal(openreg.fft.ifftshift(t, dim=1).cpu().numpy(),
                                  np.fft.ifftshift(np.arange(12).reshape(3, 4), axes=1))


def test_out_argument():
    out = openreg.empty(0, dtype=openreg.complex128)
    r = openreg.fft.fft(openreg.tensor([1.0, 2.0], dtype=openreg.float64), out=out)
    assert r is out and out.tolist() == [3 + 0j, -1 + 0j]


@pytest.mark.parametrize("name", ["rfft2", "irfft2", "fftn", "ifft", "hfft", "ihfft", "hfft2", "ihfftn"])
def test_gradients(name, devices):
    def real(t):
        return openreg.view_as_real(t) if t.dtype.is_complex else t

    def cplx(t):
        return openreg.view_as_complex(t)
    x = openreg.tensor(RNG.normal(size=(2, 4, 5)).tolist(), dtype=openreg.float64, device=devices,
                       requires_grad=True)
    c = openreg.tensor(RNG.normal(size=(2, 4, 3, 2)).tolist(), dtype=openreg.float64, device=devices,
                       requires_grad=True)
    fn, inp = {
        "rfft2": (lambda a: real(openreg.fft.rfft2(a, norm="ortho")), x),
        "irfft2": (lambda a: openreg.fft.irfft2(cplx(a), s=(4, 5)), c),
        "fftn": (lambda a: real(openreg.fft.fftn(a, s=(3, 6))), x),
        "ifft": (lambda a: real(openreg.fft.ifft(cplx(a), n=4, dim=1)), c),
        "hfft": (lambda a: openreg.fft.hfft(cplx(a), n=4), c),
        "ihfft": (lambda a: real(openreg.fft.ihfft(a)), x),
        "hfft2": (lambda a: openreg.fft.hfft2(cplx(a), s=(4, 4)), c),
        "ihfftn": (lambda a: real(openreg.fft.ihfftn(a, norm="ortho")), x),
    }[name]
    assert gradcheck(fn, (inp,), check_forward_ad=True)


def test_spectral_convolution_matches_torch_when_installed():
    """The Fourier Neural Operator's layer: rfft2, a complex weight on the low modes written into a zero
    spectrum, irfft2; values and gradients (also of the complex weight) against PyTorch."""
    torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")
    x0 = RNG.normal(size=(2, 3, 8, 8))
    w0 = RNG.normal(size=(3, 4, 2, 2)) + 1j * RNG.normal(size=(3, 4, 2, 2))

    def run(m):
        x = m.tensor(x0, requires_grad=True)
        w = m.tensor(w0, requires_grad=True)
        xf = m.fft.rfft2(x)
        out = m.zeros(2, 4, 8, 5, dtype=m.complex128)
        out[:, :, :2, :2] = m.einsum("bixy,ioxy->boxy", xf[:, :, :2, :2], w)
        out[:, :, -2:, :2] = m.einsum("bixy,ioxy->boxy", xf[:, :, -2:, :2], w.conj())
        y = m.fft.irfft2(out, s=(8, 8))
        loss = (y * y).sum()
        loss.backward()
        return loss.item(), x.grad.numpy(), w.grad.numpy()
    ours, theirs = run(openreg), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["hfft2", "hfftn", "ihfft2", "ihfftn"])
def test_hermitian_nd_transforms_equal_pytorchs(name):
    torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")
    data = Z if name.startswith("h") else X
    kwargs = {"hfftn": {"s": (3, 4, 6)}, "ihfftn": {"dim": (0, 1), "norm": "ortho"}}.get(name, {})
    results, weights = [], None
    for lib in (torch, openreg):
        t = lib.tensor(data, requires_grad=True)
        y = getattr(lib.fft, name)(t, **kwargs)
        if weights is None:
            weights = np.random.default_rng(1).normal(size=tuple(y.shape) + (2,)) @ [1, 1j]
        loss = (y * lib.tensor(weights if y.dtype.is_complex else weights.real)).sum()
        (loss.real if y.dtype.is_complex else loss).backward()
        results.append((y.detach().numpy(), t.grad.numpy()))
    for ours, theirs in zip(results[1], results[0]):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
