"""ContinuousBernoulli (closed forms away from p = 1/2, Taylor series inside ``lims``) and the KL pairs of it
and of Pareto: against numerical integration of the density (always run) and torch.distributions."""
from __future__ import annotations

import math

import numpy as np
import pytest
from distributions_vs_torch import assert_matches_pytorch, collapse_spaces

import openreg
from openreg import distributions as D
from openreg.autograd import gradcheck

GRID = (np.arange(200000) + 0.5) / 200000     # midpoint rule on [0, 1]


def _f64(*values):
    return [openreg.tensor(v, dtype=openreg.float64) for v in values]


@pytest.mark.parametrize("p", [0.05, 0.3, 0.4995, 0.5, 0.5005, 0.8])
def test_density_moments_and_cdf_by_integration(p):
    d = D.ContinuousBernoulli(*_f64(p))
    dens = np.exp(np.asarray(d.log_prob(*_f64(GRID)).tolist()))
    assert dens.mean() == pytest.approx(1.0, rel=1e-6)                  # normalized
    mean = (GRID * dens).mean()
    assert d.mean.item() == pytest.approx(mean, rel=1e-6)
    assert d.variance.item() == pytest.approx(((GRID - mean) ** 2 * dens).mean(), rel=1e-5)
    entropy = -(dens * np.log(dens)).mean()
    assert d.entropy().item() == pytest.approx(entropy, rel=1e-5, abs=1e-8)
    x = _f64([0.1, 0.35, 0.9])[0]
    cdf = [dens[GRID < v].mean() * (GRID < v).mean() for v in (0.1, 0.35, 0.9)]
    inside = 0.499 < p <= 0.501      # inside lims the CDF is the uniform one (PyTorch's approximation)
    np.testing.assert_allclose(d.cdf(x).tolist(), cdf, rtol=2e-3 if inside else 1e-4)
    np.testing.assert_allclose(d.icdf(d.cdf(x)).tolist(), x.tolist(), rtol=1e-6)


def test_sampling_and_gradients():
    openreg.manual_seed(0)
    d = D.ContinuousBernoulli(openreg.tensor(0.2))
    s = np.asarray(d.sample((40000,)).tolist())
    assert ((s >= 0) & (s <= 1)).all() and abs(s.mean() - d.mean.item()) < 5 * s.std() / 200
    probs = openreg.tensor([0.2, 0.7], dtype=openreg.float64, requires_grad=True)
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).log_prob(openreg.tensor([0.3, 0.9], dtype=openreg.float64)),
                     [probs])
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).entropy(), [probs])
    logits = openreg.tensor([-1.0, 0.5], dtype=openreg.float64, requires_grad=True)

    def sample(lg):
        openreg.manual_seed(3)
        return D.ContinuousBernoulli(logits=lg).rsample((3,))
    assert gradcheck(sample, [logits])
    assert isinstance(d, D.ExponentialFamily)
    np.testing.assert_allclose(D.ExponentialFamily.entropy(D.ContinuousBernoulli(*_f64([0.2, 0.7]))).tolist(),
                               D.ContinuousBernoulli(*_f64([0.2, 0.7])).entropy().tolist(), rtol=1e-9)


def test_kl_by_integration():
    p, q = D.ContinuousBernoulli(*_f64(0.2)), D.ContinuousBernoulli(*_f64(0.7))
    lp, lq = (np.asarray(d.log_prob(*_f64(GRID)).tolist()) for d in (p, q))
    assert D.kl_divergence(p, q).item() == pytest.approx((np.exp(lp) * (lp - lq)).mean(), rel=1e-6)
    b = D.Beta(*_f64(2.0, 3.0))
    lb = np.asarray(b.log_prob(*_f64(GRID)).tolist())
    assert D.kl_divergence(b, q).item() == pytest.approx((np.exp(lb) * (lb - lq)).mean(), rel=1e-5)
    u = D.Uniform(*_f64(0.2, 0.6))
    inside = (GRID >= 0.2) & (GRID < 0.6)
    assert D.kl_divergence(u, q).item() == pytest.approx(
        (-math.log(0.4) - lq[inside]).mean(), rel=1e-5)
    assert D.kl_divergence(D.Pareto(*_f64(2.0, 3.0)), D.Pareto(*_f64(1.0, 2.0))).item() == pytest.approx(
        math.log(3 / 2) + 2 * math.log(2) + 2 / 3 - 1, rel=1e-12)
    assert D.kl_divergence(D.Pareto(*_f64(1.0, 3.0)), D.Pareto(*_f64(2.0, 2.0))).item() == math.inf


CASES = {
    "cb": lambda t, d: [(m := d.ContinuousBernoulli(t.tensor([0.05, 0.3, 0.4995, 0.5, 0.8]))).mean, m.variance,
                        m.entropy(), m.log_prob(t.tensor([0.1, 0.3, 0.5, 0.7, 0.9])),
                        m.cdf(t.tensor([0.1, 0.3, 0.5, 0.7, 0.9])), m.icdf(t.tensor([0.1, 0.3, 0.5, 0.7, 0.9])),
                        m.logits, m.batch_shape, m.support],
    "cb_logits": lambda t, d: d.ContinuousBernoulli(logits=t.tensor([-2., 0., 3.])).log_prob(
        t.tensor([0.2, 0.5, 0.9])),
    "cb_bad": lambda t, d: d.ContinuousBernoulli(t.tensor([1.5]), validate_args=True),
    "cb_out": lambda t, d: d.ContinuousBernoulli(t.tensor([0.5])).log_prob(t.tensor([1.5])),
    "cb_expfamily_entropy": lambda t, d: d.ExponentialFamily.entropy(d.ContinuousBernoulli(t.tensor([0.2, 0.7]))),
    "kl_cb": lambda t, d: d.kl_divergence(d.ContinuousBernoulli(t.tensor([0.2, 0.6])), d.ContinuousBernoulli(0.7)),
    "kl_beta_cb": lambda t, d: d.kl_divergence(d.Beta(t.tensor([2., 0.5]), 3.), d.ContinuousBernoulli(0.7)),
    "kl_uniform_cb": lambda t, d: d.kl_divergence(d.Uniform(t.tensor([0.2, -0.5]), 0.6),
                                                  d.ContinuousBernoulli(0.7)),
    "kl_cb_exponential": lambda t, d: d.kl_divergence(d.ContinuousBernoulli(t.tensor([0.2, 0.6])),
                                                      d.Exponential(1.5)),
    "kl_cb_normal": lambda t, d: d.kl_divergence(d.ContinuousBernoulli(t.tensor([0.2, 0.6])), d.Normal(0.3, 2.)),
    "kl_cb_uniform": lambda t, d: d.kl_divergence(d.ContinuousBernoulli(t.tensor([0.2, 0.6])),
                                                  d.Uniform(t.tensor([-1., 0.5]), 2.)),
    "kl_normal_cb": lambda t, d: d.kl_divergence(d.Normal(t.tensor([0.2, 0.6]), 1.), d.ContinuousBernoulli(0.3)),
    "kl_pareto": lambda t, d: d.kl_divergence(d.Pareto(t.tensor([1., 2.]), 3.), d.Pareto(1.5, t.tensor([2., 4.]))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    assert_matches_pytorch(CASES[case], error_text=collapse_spaces)


def test_reshape_and_cdf_transforms_and_mixture_support():
    t = D.ReshapeTransform((2, 3), (6,))
    x = openreg.arange(12.0).reshape(2, 2, 3)
    assert t(x).shape == (2, 6) and t.inv(t(x)).tolist() == x.tolist()
    assert t.log_abs_det_jacobian(x, t(x)).tolist() == [0.0, 0.0] and t.forward_shape((5, 2, 3)) == (5, 6)
    with pytest.raises(ValueError, match="different numbers of elements"):
        D.ReshapeTransform((2, 3), (5,))
    base = D.Normal(*_f64(0.5, 2.0))
    c = D.CumulativeDistributionTransform(base)
    v = _f64([-1.0, 0.5, 3.0])[0]
    np.testing.assert_allclose(c(v).tolist(), base.cdf(v).tolist(), rtol=1e-12)
    np.testing.assert_allclose(c.inv(c(v)).tolist(), v.tolist(), rtol=1e-9)
    np.testing.assert_allclose(c.log_abs_det_jacobian(v, c(v)).tolist(), base.log_prob(v).tolist(), rtol=1e-12)
    flat = D.TransformedDistribution(D.Independent(D.Normal(openreg.zeros(2, 3), 1.0), 2), t)
    assert flat.event_shape == (6,) and flat.log_prob(openreg.zeros(6)).item() == pytest.approx(
        -3 * math.log(2 * math.pi))
    gmm = D.MixtureSameFamily(D.Categorical(openreg.tensor([0.3, 0.7])), D.Gamma(openreg.ones(2), 1.0))
    assert repr(gmm.support) == "MixtureSameFamilyConstraint(GreaterThanEq(lower_bound=0.0))"
    assert gmm.support.check(openreg.tensor([1.0, -1.0])).tolist() == [True, False]


def test_reshape_transform_matches_pytorch():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    for lib, dists in ((torch, torch.distributions), (openreg, D)):
        t = dists.transforms.ReshapeTransform((2, 3), (6,))
        with pytest.raises(ValueError, match="Shape mismatch"):
            t.forward_shape((4, 3))
        assert str(t.domain).replace("torch.", "openreg.") == "IndependentConstraint(Real(), 2)"
        assert dists.MixtureSameFamily(dists.Categorical(lib.tensor([0.3, 0.7])),
                                       dists.Normal(lib.zeros(2), 1.0)).support.check(lib.tensor([0.1])).tolist() == [True]
