"""LowRankMultivariateNormal, HalfCauchy, Pareto, Weibull, InverseGamma, Kumaraswamy, LogisticNormal,
NegativeBinomial, FisherSnedecor, ExponentialFamily (entropy and KL as Bregman divergences), and
biject_to/transform_to: closed forms (always run), torch.distributions when installed, gradients and sample
moments."""
from __future__ import annotations

import math

import numpy as np
import pytest
from distributions_vs_torch import assert_matches_pytorch, collapse_spaces, statistics

import openreg
from openreg import distributions as D
from openreg.autograd import gradcheck


def _f64(*values):
    return [openreg.tensor(v, dtype=openreg.float64) for v in values]


def _double(*values):
    return [openreg.tensor(v, dtype=openreg.float64, requires_grad=True) for v in values]


W = [[1.0, 0.5], [0.3, -0.2], [-1.0, 0.4]]


CASES = {
    "lowrank": lambda t, d: [(m := d.LowRankMultivariateNormal(t.tensor([0.5, -1., 0.]), t.tensor(W),
                                                               t.tensor([0.5, 1., 2.]))).log_prob(
        t.tensor([[0., 0., 0.], [1., -1., 2.]])), m.entropy(), m.variance, m.covariance_matrix, m.precision_matrix,
        m.scale_tril, m.rsample((4,)).shape, m.batch_shape, m.event_shape],
    "lowrank_batch": lambda t, d: [(m := d.LowRankMultivariateNormal(t.zeros(2, 3), t.tensor(W),
                                                                     t.tensor([0.5, 1., 2.]))).log_prob(t.ones(3)),
                                   m.entropy(), m.expand((4, 2)).batch_shape],
    "lowrank_bad_factor": lambda t, d: d.LowRankMultivariateNormal(t.zeros(3), t.ones(2, 1), t.ones(3)),
    "lowrank_bad_diag": lambda t, d: d.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(2)),
    "lowrank_bad_loc": lambda t, d: d.LowRankMultivariateNormal(t.tensor(0.), t.ones(3, 1), t.ones(3)),
    "kl_lowrank": lambda t, d: d.kl_divergence(
        d.LowRankMultivariateNormal(t.tensor([0.5, -1., 0.]), t.tensor(W), t.tensor([0.5, 1., 2.])),
        d.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(3))),
    "kl_mvn_lowrank": lambda t, d: d.kl_divergence(
        d.MultivariateNormal(t.tensor([0.5, -1., 0.]), scale_tril=t.eye(3) * 1.5),
        d.LowRankMultivariateNormal(t.zeros(3), t.tensor(W), t.ones(3))),
    "kl_lowrank_mvn": lambda t, d: d.kl_divergence(
        d.LowRankMultivariateNormal(t.zeros(3), t.tensor(W), t.ones(3)),
        d.MultivariateNormal(t.tensor([0.5, -1., 0.]), scale_tril=t.eye(3) * 1.5)),
    "kl_lowrank_shapes": lambda t, d: d.kl_divergence(d.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1),
                                                                                 t.ones(3)),
                                                      d.LowRankMultivariateNormal(t.zeros(2), t.ones(2, 1),
                                                                                  t.ones(2))),
    "half_cauchy": lambda t, d: statistics(d.HalfCauchy(t.tensor([1., 2.5])), t.tensor([0.5, 3.]), cdf=True,
                                           icdf=True),
    "half_cauchy_negative": lambda t, d: d.HalfCauchy(1.).log_prob(t.tensor(-1.)),
    "pareto": lambda t, d: statistics(d.Pareto(t.tensor([1., 2.]), t.tensor([3., 0.8])), t.tensor([1.5, 3.]),
                                      cdf=True, icdf=True)
    + [d.Pareto(t.tensor([1., 2.]), t.tensor([3., 0.8])).support],
    "pareto_below_scale": lambda t, d: d.Pareto(2., 3.).log_prob(t.tensor(1.)),
    "weibull": lambda t, d: statistics(d.Weibull(t.tensor([1., 2.]), t.tensor([0.7, 3.])), t.tensor([0.5, 3.]),
                                       cdf=True, icdf=True),
    "inverse_gamma": lambda t, d: statistics(d.InverseGamma(t.tensor([0.8, 3.]), t.tensor([1., 2.])),
                                             t.tensor([0.5, 3.]), cdf=True, icdf=True),
    "kumaraswamy": lambda t, d: statistics(d.Kumaraswamy(t.tensor([0.8, 3.]), t.tensor([1.5, 2.])),
                                           t.tensor([0.5, 0.3]), mode=False),
    "logistic_normal": lambda t, d: [(m := d.LogisticNormal(t.tensor([0.5, -1.]), t.tensor([1., 2.]))).log_prob(
        t.tensor([0.2, 0.3, 0.5])), m.rsample((4,)).shape, m.event_shape, m.batch_shape, m.loc, m.support],
    "negative_binomial": lambda t, d: statistics(d.NegativeBinomial(t.tensor([3., 0.5]), t.tensor([0.4, 0.8])),
                                                 t.tensor([2., 5.]), entropy=False),
    "negative_binomial_logits": lambda t, d: d.NegativeBinomial(t.tensor([3., 1.]), logits=t.tensor([-1., 2.]))
    .log_prob(t.tensor([0., 4.])),
    "negative_binomial_bad": lambda t, d: d.NegativeBinomial(3., t.tensor([1.])),
    "fisher": lambda t, d: [(m := d.FisherSnedecor(t.tensor([1., 4., 9.]), t.tensor([3., 6., 12.]))).mean,
                            m.variance, m.mode, m.log_prob(t.tensor([0.5, 1., 2.])), m.rsample((3,)).shape],
    "expfamily_entropy": lambda t, d: [d.ExponentialFamily.entropy(m) for m in (
        d.Normal(t.tensor([0., 1.]), t.tensor([1., 2.])), d.Exponential(t.tensor([0.5, 2.])),
        d.Gamma(t.tensor([0.5, 2.]), 3.), d.Bernoulli(t.tensor([0.2, 0.7])))],
    "expfamily_no_carrier_measure": lambda t, d: d.ExponentialFamily.entropy(d.Beta(t.tensor([0.5, 2.]), 3.)),
    "expfamily_bregman_kl": lambda t, d: [d.kl._kl_expfamily_expfamily(p, q) for p, q in (
        (d.Normal(t.tensor([0., 1.]), t.tensor([1., 2.])), d.Normal(0.5, 1.5)),
        (d.Gamma(t.tensor([0.5, 2.]), 3.), d.Gamma(1.5, t.tensor([1., 2.]))),
        (d.Poisson(t.tensor([0.5, 3.])), d.Poisson(t.tensor([1., 7.]))))],
    "expfamily_cross": lambda t, d: d.kl._kl_expfamily_expfamily(d.Normal(0., 1.), d.Exponential(1.)),
    "biject_to": lambda t, d: [d.biject_to(c)(t.tensor([-1., 0.5, 3.])) for c in (
        d.constraints.real, d.constraints.positive, d.constraints.greater_than(2.), d.constraints.less_than(3.),
        d.constraints.unit_interval, d.constraints.interval(-1., 2.), d.constraints.half_open_interval(0., 1.),
        d.constraints.simplex, d.constraints.independent(d.constraints.positive, 1))],
    "transform_to": lambda t, d: [d.transform_to(c)(t.tensor([[-1., 0.5], [3., 0.2]])) for c in (
        d.constraints.simplex, d.constraints.lower_cholesky, d.constraints.positive_definite)],
    "biject_to_ladj": lambda t, d: [(tr := d.biject_to(c)).log_abs_det_jacobian(x := t.tensor([-1., 0.5, 3.]), tr(x))
                                    for c in (d.constraints.positive, d.constraints.interval(-1., 2.),
                                              d.constraints.simplex)],
    "biject_to_unknown": lambda t, d: d.biject_to(d.constraints.lower_cholesky),
    "biject_to_reprs": lambda t, d: [d.biject_to(d.constraints.positive), d.transform_to(d.constraints.simplex)],
}


def _on_one_line(text: str) -> str:
    return text.replace("\n", " ")


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    assert_matches_pytorch(CASES[case], value_text=_on_one_line, error_text=collapse_spaces)


# -- closed forms (run without PyTorch) ---------------------------------------------------------------------
def _mean_sem(values):
    values = np.asarray(values, dtype=float)
    return values.mean(), values.std() / math.sqrt(values.size)


def test_lowrank_against_numpy():
    w, diag, mu = np.asarray(W), np.array([0.5, 1.0, 2.0]), np.array([0.5, -1.0, 0.0])
    cov = w @ w.T + np.diag(diag)
    m = D.LowRankMultivariateNormal(*_f64(mu, w, diag))
    xs = np.array([[0.0, 0.0, 0.0], [1.0, -1.0, 2.0]])
    expected = [-0.5 * (3 * math.log(2 * math.pi) + math.log(np.linalg.det(cov))
                        + (x - mu) @ np.linalg.solve(cov, x - mu)) for x in xs]
    np.testing.assert_allclose(m.log_prob(*_f64(xs)).tolist(), expected, rtol=1e-12)
    assert m.entropy().item() == pytest.approx(0.5 * (3 * (1 + math.log(2 * math.pi)) + math.log(np.linalg.det(cov))),
                                               rel=1e-12)
    np.testing.assert_allclose(m.covariance_matrix.tolist(), cov, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(m.precision_matrix.tolist(), np.linalg.inv(cov), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.scale_tril.tolist(), np.linalg.cholesky(cov), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.variance.tolist(), np.diag(cov), rtol=1e-12)
    full = D.MultivariateNormal(*_f64(mu, cov))
    assert D.kl_divergence(m, full).item() == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="Low Rank Multivariate Normals with different event shapes"):
        D.kl_divergence(m, D.LowRankMultivariateNormal(*_f64([0.0], [[1.0]], [1.0])))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 3 x m"):
        D.LowRankMultivariateNormal(openreg.zeros(3), openreg.ones(2, 1), openreg.ones(3))
    with pytest.raises(ValueError, match="IndependentConstraint"):
        D.LowRankMultivariateNormal(openreg.zeros(3), openreg.ones(3, 1), -openreg.ones(3))


def test_univariate_closed_forms():
    x = np.array([0.3, 1.2, 4.0])
    xt = _f64(x)[0]
    s, a = 1.5, 2.5
    hc = D.HalfCauchy(*_f64(s))
    np.testing.assert_allclose(hc.log_prob(xt).tolist(), np.log(2 / (math.pi * s * (1 + (x / s) ** 2))), rtol=1e-12)
    np.testing.assert_allclose(hc.cdf(xt).tolist(), 2 / math.pi * np.arctan(x / s), rtol=1e-12)
    xp = x + 1.0
    par = D.Pareto(*_f64(1.2, a))
    np.testing.assert_allclose(par.log_prob(*_f64(xp)).tolist(), np.log(a * 1.2 ** a / xp ** (a + 1)), rtol=1e-12)
    np.testing.assert_allclose(par.cdf(*_f64(xp)).tolist(), 1 - (1.2 / xp) ** a, rtol=1e-12)
    assert par.mean.item() == pytest.approx(a * 1.2 / (a - 1))
    wb = D.Weibull(*_f64(s, a))
    np.testing.assert_allclose(wb.log_prob(xt).tolist(),
                               np.log(a / s * (x / s) ** (a - 1)) - (x / s) ** a, rtol=1e-12)
    np.testing.assert_allclose(wb.cdf(xt).tolist(), 1 - np.exp(-(x / s) ** a), rtol=1e-12)
    assert wb.mean.item() == pytest.approx(s * math.gamma(1 + 1 / a), rel=1e-12)
    ig = D.InverseGamma(*_f64(a, s))
    np.testing.assert_allclose(ig.log_prob(xt).tolist(),
                               a * math.log(s) - math.lgamma(a) - (a + 1) * np.log(x) - s / x, rtol=1e-12)
    assert ig.mean.item() == pytest.approx(s / (a - 1)) and ig.variance.item() == pytest.approx(
        s ** 2 / ((a - 1) ** 2 * (a - 2)))
    u = np.array([0.1, 0.5, 0.9])
    kw = D.Kumaraswamy(*_f64(2.0, 3.0))
    np.testing.assert_allclose(kw.log_prob(*_f64(u)).tolist(), np.log(6 * u * (1 - u ** 2) ** 2), rtol=1e-12)
    assert kw.mean.item() == pytest.approx(3 * math.gamma(1.5) * math.gamma(3) / math.gamma(4.5), rel=1e-12)
    assert kw.mode.item() == pytest.approx((1 / 5) ** 0.5, rel=1e-12)     # ((a-1)/(ab-1))^(1/a)
    ln = D.LogisticNormal(*_f64([0.3], [0.7]))      # two categories: y_0 = sigmoid(x)
    y0 = 0.4
    z = math.log(y0 / (1 - y0))
    expected = -0.5 * ((z - 0.3) / 0.7) ** 2 - math.log(0.7 * math.sqrt(2 * math.pi)) - math.log(y0 * (1 - y0))
    assert ln.log_prob(*_f64([y0, 1 - y0])).item() == pytest.approx(expected, rel=1e-12)
    k = np.array([0.0, 2.0, 5.0])
    nb = D.NegativeBinomial(*_f64(3.0, 0.4))
    pmf = [math.lgamma(v + 3) - math.lgamma(v + 1) - math.lgamma(3) + 3 * math.log(0.6) + v * math.log(0.4)
           for v in k]
    np.testing.assert_allclose(nb.log_prob(*_f64(k)).tolist(), pmf, rtol=1e-12)
    assert nb.mean.item() == pytest.approx(3 * 0.4 / 0.6) and nb.variance.item() == pytest.approx(3 * 0.4 / 0.36)
    d1, d2 = 4.0, 6.0
    fs = D.FisherSnedecor(*_f64(d1, d2))
    log_b = math.lgamma(d1 / 2) + math.lgamma(d2 / 2) - math.lgamma((d1 + d2) / 2)
    np.testing.assert_allclose(fs.log_prob(xt).tolist(), 0.5 * (d1 * np.log(d1 * x) + d2 * math.log(d2)
                                                               - (d1 + d2) * np.log(d1 * x + d2)) - np.log(x) - log_b,
                               rtol=1e-12)


def test_exponential_family_entropy_and_bregman_kl():
    for d in (D.Normal(*_f64([0.0, 1.0], [1.0, 2.0])), D.Exponential(*_f64([0.5, 2.0])),
              D.Gamma(*_f64([0.5, 2.0], [3.0, 1.0])), D.Bernoulli(*_f64([0.2, 0.7]))):
        assert isinstance(d, D.ExponentialFamily)
        np.testing.assert_allclose(D.ExponentialFamily.entropy(d).tolist(), d.entropy().tolist(), rtol=1e-12,
                                   err_msg=type(d).__name__)
    for p, q in ((D.Normal(*_f64([0.0, 1.0], [1.0, 2.0])), D.Normal(*_f64(0.5, 1.5))),
                 (D.Gamma(*_f64([0.5, 2.0], 3.0)), D.Gamma(*_f64(1.5, [1.0, 2.0]))),
                 (D.Poisson(*_f64([0.5, 3.0])), D.Poisson(*_f64([1.0, 7.0]))),
                 (D.Beta(*_f64([0.5, 2.0], 3.0)), D.Beta(*_f64(1.5, [1.0, 2.0]))),
                 (D.Dirichlet(*_f64([[0.5, 2.0, 1.0]])), D.Dirichlet(*_f64([1.5, 1.0, 0.3])))):
        np.testing.assert_allclose(D.kl._kl_expfamily_expfamily(p, q).tolist(), D.kl_divergence(p, q).tolist(),
                                   rtol=1e-10, err_msg=type(p).__name__)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))
    with pytest.raises(NotImplementedError):
        D.ExponentialFamily.entropy(D.Beta(2.0, 3.0))     # no carrier measure, as PyTorch


@pytest.mark.parametrize("name", ["real", "positive", "greater_than", "greater_than_eq", "less_than",
                                  "unit_interval", "interval", "half_open_interval", "simplex", "independent"])
def test_biject_to_maps_onto_the_constraint_and_back(name):
    c = D.constraints
    constraint = {"real": c.real, "positive": c.positive, "greater_than": c.greater_than(2.0),
                  "greater_than_eq": c.greater_than_eq(-1.0), "less_than": c.less_than(3.0),
                  "unit_interval": c.unit_interval, "interval": c.interval(-1.0, 2.0),
                  "half_open_interval": c.half_open_interval(0.5, 1.5), "simplex": c.simplex,
                  "independent": c.independent(c.positive, 1)}[name]
    x = openreg.tensor([[-1.5, 0.2, 2.0], [0.7, -0.1, 0.3]], dtype=openreg.float64)
    for registry in (D.biject_to, D.transform_to):
        t = registry(constraint)
        y = t(x)
        assert bool(constraint.check(y).all()), (name, y)
        if registry is D.biject_to:
            np.testing.assert_allclose(t.inv(y).tolist(), x.tolist(), rtol=1e-9, atol=1e-12)
    assert gradcheck(lambda v: D.biject_to(constraint)(v), _double(x.tolist()))


def test_transform_to_matrices():
    raw = openreg.tensor([[0.3, 5.0], [-1.2, 0.4]], dtype=openreg.float64)
    low = D.transform_to(D.constraints.lower_cholesky)(raw)
    assert bool(D.constraints.lower_cholesky.check(low))
    pd = D.transform_to(D.constraints.positive_definite)(raw)
    assert bool(D.constraints.positive_definite.check(pd))
    np.testing.assert_allclose(D.transform_to(D.constraints.positive_definite).inv(pd).tolist(),
                               raw.tril().tolist(), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        D.biject_to(D.constraints.lower_cholesky)
    registry = D.constraint_registry.ConstraintRegistry()
    registry.register(D.constraints.positive, lambda con: D.ExpTransform())
    assert isinstance(registry(D.constraints.greater_than(3.0)), D.ExpTransform)


@pytest.mark.parametrize(("name", "fn", "inputs"), [
    ("lowrank_log_prob", lambda loc, w, d: D.LowRankMultivariateNormal(loc, w, d).log_prob(
        openreg.tensor([[0.3, -0.2, 1.0], [1.0, 0.5, -0.4]], dtype=openreg.float64)),
     ([0.1, 0.0, -0.3], W, [0.5, 1.0, 2.0])),
    ("lowrank_entropy", lambda w, d: D.LowRankMultivariateNormal(openreg.zeros(3, dtype=openreg.float64), w,
                                                                   d).entropy(), (W, [0.5, 1.0, 2.0])),
    ("half_cauchy", lambda s: D.HalfCauchy(s).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.7, 2.0],)),
    ("pareto", lambda s, a: D.Pareto(s, a).log_prob(openreg.tensor([2.5, 3.0], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 0.5])),
    ("weibull", lambda s, k: D.Weibull(s, k).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 0.5])),
    ("inverse_gamma", lambda c, r: D.InverseGamma(c, r).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 0.5])),
    ("kumaraswamy", lambda a, b: D.Kumaraswamy(a, b).log_prob(openreg.tensor([0.3, 0.8], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 0.5])),
    ("negative_binomial", lambda r, p: D.NegativeBinomial(r, p).log_prob(openreg.tensor([0.0, 3.0],
                                                                                       dtype=openreg.float64)),
     ([0.7, 2.0], [0.3, 0.6])),
    ("fisher", lambda a, b: D.FisherSnedecor(a, b).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 5.0])),
])
def test_gradients_flow(name, fn, inputs):
    assert gradcheck(fn, _double(*inputs))


def test_sample_moments():
    openreg.manual_seed(0)
    n = 40000
    for d in (D.Pareto(1.0, 5.0), D.Weibull(1.5, 2.0), D.InverseGamma(5.0, 2.0), D.Kumaraswamy(2.0, 3.0),
              D.NegativeBinomial(3.0, openreg.tensor(0.4)), D.FisherSnedecor(6.0, 12.0)):
        s = np.asarray(d.sample((n,)).tolist())
        mean, sem = _mean_sem(s)
        assert abs(mean - d.mean.item()) < 5 * sem, type(d).__name__
        assert abs(s.var() / d.variance.item() - 1) < 0.2, type(d).__name__
    h = np.asarray(D.HalfCauchy(2.0).sample((n,)).tolist())
    assert (h >= 0).all() and abs(np.median(h) - 2.0) < 0.08      # the median of |Cauchy(0, s)| is s
    m = D.LowRankMultivariateNormal(*_f64([1.0, -1.0, 0.0], W, [0.5, 1.0, 2.0]))
    s = np.asarray(m.sample((n,)).tolist())
    np.testing.assert_allclose(np.cov(s.T), m.covariance_matrix.tolist(), atol=0.08)
    y = np.asarray(D.LogisticNormal(*_f64([0.3, -0.5], [0.7, 1.0])).sample((n,)).tolist())
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-12)
