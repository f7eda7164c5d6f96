"""``torch.special.zeta`` (Hurwitz zeta) and ``torch.special.polygamma`` against series evaluated in NumPy and
against PyTorch (values over the domain and its edges, the gradient in ``other``)."""
import math

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _zeta_ref(s, q, terms=20000):
    """sum_{k < terms} (k + q)**-s plus the Euler-Maclaurin tail at z = q + terms."""
    k = np.arange(terms, dtype=np.float64)
    z = q + terms
    return float(np.sum((k + q) ** -s) + z ** (1 - s) / (s - 1) + 0.5 * z ** -s + s / 12 * z ** (-s - 1))


@pytest.mark.parametrize("s,q", [(2.0, 1.0), (3.5, 0.25), (1.5, 7.0), (10.0, 0.8), (40.0, 2.0), (2.0, -2.5),
                                 (1.0001, 1.0)])
def test_zeta_equals_the_series(devices, s, q):
    if q < 0:   # q < 0 (integer s): zeta(s, q) = sum_{k < n} (q + k)**-s + zeta(s, q + n)
        expect = sum((q + k) ** -s for k in range(3)) + _zeta_ref(s, q + 3)
    else:
        expect = _zeta_ref(s, q)
    got = openreg.special.zeta(openreg.tensor([s], dtype=openreg.float64, device=devices), q)
    assert got.item() == pytest.approx(expect, rel=1e-12)


def test_zeta_known_values_and_domain():
    x = openreg.tensor([2.0, 4.0, 1.0, 0.5, 3.0], dtype=openreg.float64)
    got = openreg.special.zeta(x, openreg.tensor([1.0, 1.0, 1.0, 1.0, 0.0], dtype=openreg.float64)).tolist()
    assert got[0] == pytest.approx(math.pi ** 2 / 6, rel=1e-15) and got[1] == pytest.approx(math.pi ** 4 / 90)
    assert got[2] == math.inf and math.isnan(got[3]) and got[4] == math.inf       # s = 1, s < 1, a pole of q
    assert math.isnan(openreg.special.zeta(2.5, openreg.tensor([-1.5])).item())  # q < 0 needs an integer s
    assert openreg.special.zeta(openreg.tensor([2, 3]), 1).dtype == openreg.float32  # integers: default dtype


def test_zeta_gradient_in_other():
    s = openreg.tensor([2.5, 3.0], dtype=openreg.float64)
    q = openreg.tensor([0.7, 1.9], dtype=openreg.float64, requires_grad=True)
    assert openreg.autograd.gradcheck(lambda q: openreg.special.zeta(s, q), (q,))
    openreg.special.zeta(s, q).sum().backward()
    np.testing.assert_allclose(q.grad.numpy(), [-2.5 * _zeta_ref(3.5, 0.7), -3.0 * _zeta_ref(4.0, 1.9)],
                               rtol=1e-10)


def test_polygamma_in_special_and_its_gradient():
    x = openreg.tensor([0.6, 2.0], dtype=openreg.float64, requires_grad=True)
    np.testing.assert_allclose(openreg.special.polygamma(2, x).detach().numpy(),
                               [-2 * _zeta_ref(3.0, 0.6), -2 * _zeta_ref(3.0, 2.0)], rtol=1e-12)
    assert openreg.autograd.gradcheck(lambda x: openreg.special.polygamma(2, x), (x,))
    assert openreg.autograd.gradcheck(lambda x: openreg.digamma(x), (x,))


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zeta_equals_pytorchs(dtype):
    rng = np.random.default_rng(0)
    s = np.concatenate([rng.uniform(1.0, 30.0, 40), [1.0, 0.5, 2.0, 3.0, 4.0, 2.0, np.inf, np.nan, 5.0, np.inf,
                                                     np.inf, np.inf, 2.5, 0.5, 20.0]])
    q = np.concatenate([rng.uniform(-5.0, 20.0, 40), [1.0, 1.0, 0.0, -2.0, -2.5, np.inf, 1.0, 1.0, 1e-8, 0.5, 2.0,
                                                      -2.5, -np.inf, -1.0, -20.5]])
    s[:10] = np.round(s[:10])                              # integer s: negative q is in the domain
    ours = openreg.special.zeta(openreg.tensor(s.astype(dtype)), openreg.tensor(q.astype(dtype))).numpy()
    theirs = torch.special.zeta(torch.tensor(s.astype(dtype)), torch.tensor(q.astype(dtype))).numpy()
    rtol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(ours, theirs, rtol=rtol, equal_nan=True)
    for scalar_s in (2.0, 3.5):
        np.testing.assert_allclose(openreg.special.zeta(scalar_s, openreg.tensor(q[:20])).numpy(),
                                   torch.special.zeta(scalar_s, torch.tensor(q[:20])).numpy(), rtol=1e-10,
                                   equal_nan=True)
    qt = torch.tensor(q[:30].clip(0.1), requires_grad=True)
    qo = openreg.tensor(q[:30].clip(0.1), requires_grad=True)
    torch.special.zeta(torch.tensor(s[:30]), qt).sum().backward()
    openreg.special.zeta(openreg.tensor(s[:30]), qo).sum().backward()
    np.testing.assert_allclose(qo.grad.numpy(), qt.grad.numpy(), rtol=1e-9)
