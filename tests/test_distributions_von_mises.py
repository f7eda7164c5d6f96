"""VonMises: the density integrates to 1 and gives the circular moments (midpoint rule on [-pi, pi), always
run), Best & Fisher sampling matches the mean resultant length I1/I0, gradients of log_prob (both sides of the
series/asymptotic switch of log I0), and torch.distributions when installed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import openreg
from openreg import distributions as D
from openreg.autograd import gradcheck

GRID = -math.pi + (np.arange(100000) + 0.5) * (2 * math.pi / 100000)


def _f64(*values):
    return [openreg.tensor(v, dtype=openreg.float64) for v in values]


@pytest.mark.parametrize("k", [0.0, 0.3, 2.0, 14.0, 16.0, 80.0])
def test_density_and_moments_by_integration(k):
    d = D.VonMises(*_f64(0.4, k), validate_args=False)    # k = 0 (uniform) lies outside the constraint
    dens = np.exp(np.asarray(d.log_prob(*_f64(GRID)).tolist()))
    assert dens.mean() * 2 * math.pi == pytest.approx(1.0, rel=1e-7)
    resultant = (np.exp(1j * (GRID - 0.4)) * dens).mean() * 2 * math.pi
    assert 1 - d.variance.item() == pytest.approx(resultant.real, rel=1e-7, abs=1e-12)
    assert d.mean.item() == d.mode.item() == pytest.approx(0.4)


@pytest.mark.parametrize("k", [0.01, 1.0, 5.0, 50.0])
def test_sampling(k):
    openreg.manual_seed(1)
    d = D.VonMises(openreg.tensor(0.3), openreg.tensor(k))
    s = np.asarray(d.sample((20000,)).tolist())
    assert (s >= -math.pi).all() and (s < math.pi).all()
    resultant = np.exp(1j * s).mean()
    assert abs(abs(resultant) - (1 - d.variance.item())) < 0.02     # ~4 standard errors
    if k >= 1:
        assert abs(np.angle(resultant) - 0.3) < 0.05
    assert D.VonMises(openreg.zeros(2, device="privateuseone:0"), 1.0).sample((3,)).device.type != "cpu"


def test_gradients():
    loc = openreg.tensor([0.1, -0.5, 2.0], dtype=openreg.float64, requires_grad=True)
    k = openreg.tensor([0.7, 14.5, 15.5], dtype=openreg.float64, requires_grad=True)
    x = openreg.tensor([0.3, 1.0, -2.0], dtype=openreg.float64)
    assert gradcheck(lambda a, b: D.VonMises(a, b).log_prob(x), [loc, k])
    assert gradcheck(lambda b: D.VonMises(0.0, b).variance, [k])


def test_matches_pytorch():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    x = [0.3, 1.0, -2.0, 3.0]
    for lib, dists in ((torch, torch.distributions), (openreg, D)):
        d = dists.VonMises(lib.tensor([0.1, -0.5, 2.0, 0.0]), lib.tensor([0.7, 3.0, 20.0, 300.0]))
        values = [d.log_prob(lib.tensor(x)).tolist(), d.variance.tolist(), d.mean.tolist()]
        if lib is torch:
            theirs = values
            their_repr = repr(d).replace("torch.", "openreg.")
        else:
            np.testing.assert_allclose(np.asarray(values), np.asarray(theirs), rtol=2e-5, atol=2e-6)
            assert repr(d) == their_repr and d.batch_shape == (4,) and not d.has_rsample
    with pytest.raises(ValueError, match="GreaterThan"):
        D.VonMises(0.0, -1.0)
