"""special.ndtr, log_ndtr, erfcx, xlog1py, entr, multigammaln: against Python's math.erfc/lgamma (accurate in
both tails) on both devices, against PyTorch where PyTorch itself is accurate (its ndtr loses the lower tail),
and gradients against PyTorch."""
from __future__ import annotations

import math

import numpy as np
import pytest

import openreg
from openreg import special

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

X = np.concatenate([np.linspace(-38, 38, 153), [-1.0, -0.999, 0.0, 26.5, 1e3, 1e10]])


def _ref_ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _ref_erfcx(x):
    if x < 25:
        try:
            return math.exp(x * x) * math.erfc(x)
        except OverflowError:
            return math.inf
    s, term = 1.0, 1.0
    for k in range(1, 12):
        term *= -(2 * k - 1) / (2 * x * x)
        s += term
    return s / (x * math.sqrt(math.pi))


def _ref_log_ndtr(x):
    if x < -5:
        return math.log(_ref_erfcx(-x / math.sqrt(2)) / 2) - x * x / 2
    return math.log1p(-0.5 * math.erfc(x / math.sqrt(2))) if x > 0 else math.log(_ref_ndtr(x))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_against_math(dtype, devices):
    rtol = 1e-12 if dtype == "float64" else 2e-6
    t = openreg.tensor(X, dtype=getattr(openreg, dtype), device=devices)
    xs = t.cpu().numpy().astype(np.float64)
    for name, ref in [("ndtr", _ref_ndtr), ("log_ndtr", _ref_log_ndtr), ("erfcx", _ref_erfcx)]:
        got = getattr(special, name)(t)
        assert got.dtype == t.dtype and got.device == t.device
        expected = np.array([ref(float(v)) for v in xs])
        with np.errstate(over="ignore"):
            expected = expected.astype(dtype)
        finite = np.isfinite(expected) & (np.abs(expected) > np.finfo(dtype).tiny)
        np.testing.assert_allclose(got.cpu().numpy()[finite], expected[finite], rtol=rtol)
        assert (got.cpu().numpy()[~finite] == expected[~finite]).all() or name != "erfcx"


def test_small_functions(devices):
    def t(v):
        return openreg.tensor(v, dtype=openreg.float64, device=devices)
    assert special.entr(t([0.0, 0.5, -1.0])).cpu().tolist() == [0.0, -0.5 * math.log(0.5), -math.inf]
    got = special.xlog1py(t([0.0, 0.0, 2.0]), t([-1.0, math.nan, 1.0])).cpu().tolist()
    assert got[0] == 0.0 and math.isnan(got[1]) and got[2] == pytest.approx(2 * math.log(2))
    v = [2.5, 7.25]
    expected = [3 * 2 / 4 * math.log(math.pi) + sum(math.lgamma(a - i / 2) for i in range(3)) for a in v]
    np.testing.assert_allclose(special.multigammaln(t(v), 3).cpu().numpy(), expected, rtol=1e-13)
    assert special.ndtr(openreg.tensor([0, 1])).dtype == openreg.get_default_dtype()
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        special.multigammaln(t(v), 0)


@needs_torch
@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "erfcx", "entr", "xlog1py", "multigammaln"])
def test_matches_pytorch(name):
    x = np.linspace(-6 if name != "ndtr" else -2, 30, 37) if name != "entr" else np.linspace(0, 5, 11)
    extra = {"xlog1py": (np.linspace(-0.9, 4, 37),), "multigammaln": (2,)}.get(name, ())
    if name == "multigammaln":
        x = np.linspace(1.1, 9, 37)
    conv = [(openreg.tensor(e) if isinstance(e, np.ndarray) else e) for e in extra]
    tconv = [(torch.tensor(e) if isinstance(e, np.ndarray) else e) for e in extra]
    a, b = openreg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got, ref = getattr(special, name)(a, *conv), getattr(torch.special, name)(b, *tconv)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-300)
    got.sum().backward()
    ref.sum().backward()
    ok = np.isfinite(b.grad.numpy())
    np.testing.assert_allclose(a.grad.numpy()[ok], b.grad.numpy()[ok], rtol=1e-8, atol=1e-300)


def test_bessel_against_numpy(devices):
    x = np.concatenate([np.linspace(-60, 60, 241), [29.999, 30.001, 700.0]])
    t = openreg.tensor(x, dtype=openreg.float64, device=devices)
    np.testing.assert_allclose(special.i0(t).cpu().numpy(), np.i0(x), rtol=1e-13)
    np.testing.assert_allclose(special.i0e(t).cpu().numpy(), np.exp(-np.abs(x)) * np.i0(x), rtol=1e-13)
    np.testing.assert_allclose(openreg.i0(t).cpu().numpy(), np.i0(x), rtol=1e-13)
    g = openreg.tensor(x, dtype=openreg.float64, device=devices, requires_grad=True)
    special.i0(g).sum().backward()             # i0' = i1
    np.testing.assert_allclose(g.grad.cpu().numpy(), special.i1(t).cpu().numpy(), rtol=1e-12)
    np.testing.assert_allclose(special.i1e(t).cpu().numpy(), np.exp(-np.abs(x)) * special.i1(t).cpu().numpy(),
                               rtol=1e-12)
    assert special.i1(-t).cpu().tolist() == (-special.i1(t)).cpu().tolist()
    f32 = special.i0e(openreg.tensor([1.0, 100.0], device=devices))
    assert f32.dtype == openreg.float32 and f32.cpu().numpy() == pytest.approx(np.exp(-np.abs([1.0, 100.0])) *
                                                                                np.i0([1.0, 100.0]), rel=1e-6)


@needs_torch
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_matches_pytorch(name):
    x = np.concatenate([np.linspace(-80, 80, 321), [0.0, 500.0]])
    a, b = openreg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got, ref = getattr(special, name)(a), getattr(torch.special, name)(b)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-13)
    got.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-11, atol=1e-300)


def test_ndtri_inverts_ndtr(devices):
    p = np.array([1e-300, 1e-100, 1e-10, 1e-3, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-10])
    x = special.ndtri(openreg.tensor(p, device=devices)).cpu().numpy()
    back = np.array([_ref_ndtr(float(v)) for v in x])
    np.testing.assert_allclose(back, p, rtol=1e-12)
    edge = special.ndtri(openreg.tensor([0.0, 1.0, -0.5, 2.0], dtype=openreg.float64, device=devices)).cpu().tolist()
    assert edge[:2] == [-math.inf, math.inf] and all(math.isnan(v) for v in edge[2:])
    g = openreg.tensor([0.3], dtype=openreg.float64, requires_grad=True)
    special.ndtri(g).sum().backward()
    z = special.ndtri(g.detach()).item()
    assert g.grad.item() == pytest.approx(math.sqrt(2 * math.pi) * math.exp(z * z / 2), rel=1e-12)


@needs_torch
def test_ndtri_matches_pytorch():
    p = np.concatenate([[0.0, 1.0, 1e-300, 1e-20, 0.001], np.linspace(0.01, 0.99, 99)])
    np.testing.assert_allclose(special.ndtri(openreg.tensor(p)).numpy(), torch.special.ndtri(torch.tensor(p)).numpy(),
                               rtol=1e-14)
