"""The continuous distributions beyond Normal/Uniform -- MultivariateNormal, Exponential, Laplace, Cauchy,
Gumbel, LogNormal, HalfNormal -- and TransformedDistribution with the transforms module: values against
closed forms (NumPy/math, always run) and against torch.distributions when PyTorch is installed (values,
shapes, PyTorch's ValueError wording), gradients through log_prob/rsample/kl_divergence, and sample moments
under fixed seeds."""
from __future__ import annotations

import math

import numpy as np
import pytest
from distributions_vs_torch import assert_matches_pytorch

import openreg
from openreg import distributions as D
from openreg.autograd import gradcheck

COV = [[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.5]]
COV_B = [[[1.0, 0.2], [0.2, 0.5]], [[3.0, -1.0], [-1.0, 2.0]]]


def _tensor(t, v):
    return t.tensor(v)


CASES = {
    # MultivariateNormal
    "mvn_cov_log_prob": lambda t, d: d.MultivariateNormal(t.tensor([0.5, -1., 0.]), t.tensor(COV)).log_prob(
        t.tensor([[0., 0., 0.], [1., -1., 2.]])),
    "mvn_tril_log_prob": lambda t, d: d.MultivariateNormal(t.zeros(2), scale_tril=t.tensor(
        [[1.5, 0.], [0.3, 0.7]])).log_prob(t.tensor([0.4, -0.2])),
    "mvn_prec_log_prob": lambda t, d: d.MultivariateNormal(t.zeros(3), precision_matrix=t.tensor(COV)).log_prob(
        t.tensor([0.4, -0.2, 1.0])),
    "mvn_prec_scale_tril": lambda t, d: d.MultivariateNormal(t.zeros(3), precision_matrix=t.tensor(COV)).scale_tril,
    "mvn_cov_precision": lambda t, d: d.MultivariateNormal(t.zeros(3), t.tensor(COV)).precision_matrix,
    "mvn_tril_covariance": lambda t, d: d.MultivariateNormal(t.zeros(2), scale_tril=t.tensor(
        [[1.5, 0.], [0.3, 0.7]])).covariance_matrix,
    "mvn_batch_log_prob": lambda t, d: d.MultivariateNormal(t.zeros(2), t.tensor(COV_B)).log_prob(
        t.tensor([[[0.3, 0.1]], [[-1., 2.]], [[0., 0.]]])),
    "mvn_batch_shapes": lambda t, d: ((m := d.MultivariateNormal(t.zeros(3, 1, 2), t.tensor(COV_B))).batch_shape,
                                      m.event_shape, m.sample((4,)).shape),
    "mvn_entropy": lambda t, d: d.MultivariateNormal(t.zeros(2), t.tensor(COV_B)).entropy(),
    "mvn_variance": lambda t, d: d.MultivariateNormal(t.zeros(3), t.tensor(COV)).variance,
    "mvn_expand": lambda t, d: d.MultivariateNormal(t.zeros(3), t.tensor(COV)).expand((4, 2)).covariance_matrix.shape,
    "mvn_none": lambda t, d: d.MultivariateNormal(t.zeros(3)),
    "mvn_two": lambda t, d: d.MultivariateNormal(t.zeros(3), t.tensor(COV), scale_tril=t.eye(3)),
    "mvn_scalar_loc": lambda t, d: d.MultivariateNormal(t.tensor(0.), t.eye(1)),
    "mvn_vector_cov": lambda t, d: d.MultivariateNormal(t.zeros(2), t.ones(2)),
    "mvn_not_pd": lambda t, d: d.MultivariateNormal(t.zeros(2), t.tensor([[1., 2.], [2., 1.]])),
    "mvn_not_symmetric": lambda t, d: d.MultivariateNormal(t.zeros(2), t.tensor([[1., 0.5], [0., 1.]])),
    "mvn_bad_tril": lambda t, d: d.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1., 0.5], [0., 1.]])),
    "mvn_value_shape": lambda t, d: d.MultivariateNormal(t.zeros(3), t.tensor(COV)).log_prob(t.zeros(2)),
    "kl_mvn": lambda t, d: d.kl_divergence(d.MultivariateNormal(t.tensor([0.5, -1., 0.]), t.tensor(COV)),
                                           d.MultivariateNormal(t.zeros(3), scale_tril=t.eye(3) * 2)),
    "kl_mvn_batch": lambda t, d: d.kl_divergence(d.MultivariateNormal(t.zeros(2), t.tensor(COV_B)),
                                                 d.MultivariateNormal(t.ones(2), t.tensor(COV_B[0]))),
    # Exponential, Laplace, Cauchy
    "exponential_log_prob": lambda t, d: d.Exponential(t.tensor([0.5, 2.])).log_prob(t.tensor([[1.], [3.]])),
    "exponential_stats": lambda t, d: t.stack([(m := d.Exponential(t.tensor([0.5, 2.]))).mean, m.variance,
                                               m.stddev, m.entropy(), m.cdf(t.tensor([1., 1.])),
                                               m.icdf(t.tensor([0.3, 0.9]))]),
    "exponential_bad_rate": lambda t, d: d.Exponential(t.tensor([0., 1.])),
    "exponential_negative_value": lambda t, d: d.Exponential(1.).log_prob(t.tensor(-1.)),
    "laplace_log_prob": lambda t, d: d.Laplace(t.tensor([0., 1.]), t.tensor([1., 3.])).log_prob(t.tensor([-0.5, 4.])),
    "laplace_stats": lambda t, d: t.stack([(m := d.Laplace(t.tensor([0., 1.]), t.tensor([1., 3.]))).mean,
                                           m.variance, m.stddev, m.entropy(), m.cdf(t.tensor([-0.5, 4.])),
                                           m.icdf(t.tensor([0.2, 0.7]))]),
    "laplace_bad_scale": lambda t, d: d.Laplace(0., -1.),
    "cauchy_log_prob": lambda t, d: d.Cauchy(t.tensor([0., 1.]), t.tensor([1., 3.])).log_prob(t.tensor([-0.5, 4.])),
    "cauchy_stats": lambda t, d: t.stack([(m := d.Cauchy(t.tensor([0., 1.]), t.tensor([1., 3.]))).mean,
                                          m.variance, m.mode, m.entropy(), m.cdf(t.tensor([-0.5, 4.])),
                                          m.icdf(t.tensor([0.2, 0.7]))]),
    # Gumbel, LogNormal, HalfNormal
    "gumbel_log_prob": lambda t, d: d.Gumbel(t.tensor([0., 1.]), t.tensor([1., 3.])).log_prob(t.tensor([-0.5, 4.])),
    "gumbel_stats": lambda t, d: t.stack([(m := d.Gumbel(t.tensor([0., 1.]), t.tensor([1., 3.]))).mean,
                                          m.variance, m.stddev, m.mode, m.entropy(), m.cdf(t.tensor([-0.5, 4.])),
                                          m.icdf(t.tensor([0.2, 0.7]))]),
    "gumbel_shapes": lambda t, d: ((m := d.Gumbel(t.zeros(2, 3), 1.)).batch_shape, m.event_shape,
                                   m.rsample((5,)).shape, m.support, m.has_rsample),
    "lognormal_log_prob": lambda t, d: d.LogNormal(t.tensor([0., 1.]), t.tensor([1., .5])).log_prob(
        t.tensor([0.5, 4.])),
    "lognormal_stats": lambda t, d: t.stack([(m := d.LogNormal(t.tensor([0., 1.]), t.tensor([1., .5]))).mean,
                                             m.variance, m.mode, m.entropy(), m.cdf(t.tensor([0.5, 4.])),
                                             m.icdf(t.tensor([0.2, 0.7]))]),
    "lognormal_out_of_support": lambda t, d: d.LogNormal(0., 1.).log_prob(t.tensor(-1.)),
    "lognormal_bad_scale": lambda t, d: d.LogNormal(0., 0.),
    "lognormal_repr": lambda t, d: d.LogNormal(0., 1.),
    "halfnormal_log_prob": lambda t, d: d.HalfNormal(t.tensor([1., 2.])).log_prob(t.tensor([0.5, 3.])),
    "halfnormal_stats": lambda t, d: t.stack([(m := d.HalfNormal(t.tensor([1., 2.]))).mean, m.variance, m.mode,
                                              m.entropy(), m.cdf(t.tensor([0.5, 3.])), m.icdf(t.tensor([0.2, 0.7]))]),
    "halfnormal_support": lambda t, d: d.HalfNormal(1.).support,
    # KL pairs
    "kl_exponential": lambda t, d: d.kl_divergence(d.Exponential(t.tensor([0.5, 2.])), d.Exponential(1.5)),
    "kl_laplace": lambda t, d: d.kl_divergence(d.Laplace(t.tensor([0., 1.]), 2.), d.Laplace(0.5, t.tensor([1., 3.]))),
    "kl_cauchy": lambda t, d: d.kl_divergence(d.Cauchy(t.tensor([0., 1.]), 2.), d.Cauchy(0.5, t.tensor([1., 3.]))),
    "kl_gumbel": lambda t, d: d.kl_divergence(d.Gumbel(t.tensor([0., 1.]), 2.), d.Gumbel(0.5, t.tensor([1., 3.]))),
    "kl_halfnormal": lambda t, d: d.kl_divergence(d.HalfNormal(t.tensor([1., 2.])), d.HalfNormal(1.5)),
    "kl_lognormal": lambda t, d: d.kl_divergence(d.LogNormal(t.tensor([0., 1.]), 2.), d.LogNormal(0.5, 1.)),
    "kl_normal_laplace": lambda t, d: d.kl_divergence(d.Normal(t.tensor([0., 1.]), 2.), d.Laplace(0.5, 1.5)),
    "kl_normal_gumbel": lambda t, d: d.kl_divergence(d.Normal(t.tensor([0., 1.]), 2.), d.Gumbel(0.5, 1.5)),
    "kl_gumbel_normal": lambda t, d: d.kl_divergence(d.Gumbel(t.tensor([0., 1.]), 2.), d.Normal(0.5, 1.5)),
    "kl_laplace_normal": lambda t, d: d.kl_divergence(d.Laplace(t.tensor([0., 1.]), 2.), d.Normal(0.5, 1.5)),
    "kl_exponential_normal": lambda t, d: d.kl_divergence(d.Exponential(t.tensor([0.5, 2.])), d.Normal(0.5, 1.5)),
    "kl_exponential_gumbel": lambda t, d: d.kl_divergence(d.Exponential(t.tensor([0.5, 2.])), d.Gumbel(0.5, 1.5)),
    "kl_uniform_exponential": lambda t, d: d.kl_divergence(d.Uniform(t.tensor([-1., 1.]), 3.), d.Exponential(1.5)),
    "kl_uniform_gumbel": lambda t, d: d.kl_divergence(d.Uniform(t.tensor([-1., 1.]), 3.), d.Gumbel(0.5, 1.5)),
    "kl_normal_exponential": lambda t, d: d.kl_divergence(d.Normal(t.tensor([0., 1.]), 2.), d.Exponential(1.5)),
    "kl_laplace_uniform": lambda t, d: d.kl_divergence(d.Laplace(t.tensor([0., 1.]), 2.), d.Uniform(0., 1.5)),
    # TransformedDistribution and transforms
    "tanh_normal_log_prob": lambda t, d: d.TransformedDistribution(
        d.Normal(t.tensor([0.1, -0.3]), t.tensor([1., 2.])), [d.TanhTransform()]).log_prob(t.tensor([0.5, -0.99])),
    "affine_exp_log_prob": lambda t, d: d.TransformedDistribution(
        d.Normal(t.tensor([0.1, -0.3]), 1.), [d.AffineTransform(1., t.tensor([2., -0.5])), d.ExpTransform()]
    ).log_prob(t.tensor([0.5, 3.])),
    "affine_exp_cdf": lambda t, d: d.TransformedDistribution(
        d.Normal(t.tensor([0.1, -0.3]), 1.), [d.AffineTransform(1., -2.), d.ExpTransform()]).cdf(t.tensor([0.5, 3.])),
    "affine_icdf": lambda t, d: d.TransformedDistribution(
        d.Normal(t.tensor([0.1, -0.3]), 1.), [d.AffineTransform(1., -2.)]).icdf(t.tensor([0.2, 0.9])),
    "sigmoid_log_prob": lambda t, d: d.TransformedDistribution(
        d.Normal(t.tensor([0.1, -0.3]), 1.), d.SigmoidTransform()).log_prob(t.tensor([0.5, 0.1])),
    "independent_affine_event": lambda t, d: (
        (m := d.TransformedDistribution(d.Normal(t.zeros(2, 3), 1.), [d.AffineTransform(0., t.ones(3) * 2,
                                                                                         event_dim=1)])).batch_shape,
        m.event_shape, m.log_prob(t.ones(2, 3))),
    "stick_breaking": lambda t, d: (
        (m := d.TransformedDistribution(d.Independent(d.Normal(t.zeros(2), 1.), 1), d.StickBreakingTransform())
         ).event_shape, m.log_prob(t.tensor([0.2, 0.3, 0.5]))),
    "transformed_bad": lambda t, d: d.TransformedDistribution(d.Normal(0., 1.), 3),
    "transformed_bad_list": lambda t, d: d.TransformedDistribution(d.Normal(0., 1.), [3]),
    "transformed_out_of_support": lambda t, d: d.TransformedDistribution(
        d.Normal(0., 1.), [d.ExpTransform()]).log_prob(t.tensor(-1.)),
    "transformed_support": lambda t, d: d.TransformedDistribution(d.Normal(t.zeros(2), 1.), [d.SigmoidTransform()]
                                                                  ).support,
    "compose_repr": lambda t, d: d.ComposeTransform([d.ExpTransform(), d.AffineTransform(0., 1.)]),
    "compose_inv": lambda t, d: d.ComposeTransform([d.ExpTransform(), d.AffineTransform(1., 2.)]).inv(t.tensor(4.)),
    "inverse_repr": lambda t, d: d.ExpTransform().inv,
    "transform_event_dim": lambda t, d: d.ComposeTransform([d.ExpTransform(), d.SoftmaxTransform()]).domain,
    "transform_bad_cache": lambda t, d: d.ExpTransform(cache_size=2),
    "transform_ladjs": lambda t, d: t.stack([tr.log_abs_det_jacobian(x := t.tensor([0.3, -1.2, 2.0]), tr(x))
                                             for tr in (d.ExpTransform(), d.SigmoidTransform(), d.TanhTransform(),
                                                        d.SoftplusTransform(), d.AffineTransform(0.5, -3.),
                                                        d.ExpTransform().inv.inv)]),
    "power_transform": lambda t, d: t.stack([(tr := d.PowerTransform(t.tensor(2.5)))(x := t.tensor([0.3, 1.2, 2.])),
                                             tr.inv(tr(x)), tr.log_abs_det_jacobian(x, tr(x))]),
    "softplus_inverse": lambda t, d: d.SoftplusTransform().inv(t.tensor([0.3, 1.2, 2.0])),
    "stick_breaking_roundtrip": lambda t, d: t.cat([(tr := d.StickBreakingTransform())(x := t.tensor([0.3, -1.2, 2.])),
                                                    tr.inv(tr(x)), tr.log_abs_det_jacobian(x, tr(x)).reshape(1)]),
    "lower_cholesky_transform": lambda t, d: d.LowerCholeskyTransform()(t.tensor([[0.1, 5.], [2., -1.]])),
    "softmax_transform": lambda t, d: d.SoftmaxTransform()(t.tensor([[0.1, 5.], [2., -1.]])),
    "constraint_checks": lambda t, d: t.stack([
        d.constraints.positive_definite.check(t.tensor(COV_B)), d.constraints.lower_cholesky.check(t.tensor(COV_B)),
        d.constraints.symmetric.check(t.tensor(COV_B)), d.constraints.positive_semidefinite.check(t.tensor(COV_B)),
        d.constraints.lower_triangular.check(t.tensor([[[1., 0.], [2., 1.]], [[1., 1.], [0., 1.]]]))]).float(),
    "constraint_one_hot": lambda t, d: d.constraints.one_hot.check(t.tensor([[0., 1.], [1., 1.], [0.5, 0.5]])),
    "constraint_reprs": lambda t, d: [d.constraints.positive_definite, d.constraints.lower_cholesky,
                                      d.constraints.half_open_interval(0., 1.), d.constraints.positive_integer],
}


def _without_transforms_module(text: str) -> str:
    return text.replace("distributions.transforms.", "")


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    assert_matches_pytorch(CASES[case], value_text=_without_transforms_module)


# -- closed forms (run without PyTorch) ---------------------------------------------------------------------
def _mvn_log_prob_np(x, mu, cov):
    diff = np.asarray(x, float) - np.asarray(mu, float)
    cov = np.asarray(cov, float)
    k = len(mu)
    return -0.5 * (k * math.log(2 * math.pi) + math.log(np.linalg.det(cov)) + diff @ np.linalg.solve(cov, diff))


@pytest.mark.parametrize("form", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_against_numpy(form):
    cov = np.asarray(COV)
    mu = [0.5, -1.0, 0.0]
    arg = {"covariance_matrix": cov, "precision_matrix": np.linalg.inv(cov),
           "scale_tril": np.linalg.cholesky(cov)}[form]
    m = D.MultivariateNormal(openreg.tensor(mu, dtype=openreg.float64),
                             **{form: openreg.tensor(arg, dtype=openreg.float64)})
    xs = [[0.0, 0.0, 0.0], [1.0, -1.0, 2.0]]
    got = m.log_prob(openreg.tensor(xs, dtype=openreg.float64)).tolist()
    np.testing.assert_allclose(got, [_mvn_log_prob_np(x, mu, cov) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(m.covariance_matrix.tolist(), cov, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(m.precision_matrix.tolist(), np.linalg.inv(cov), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.scale_tril.tolist(), np.linalg.cholesky(cov), rtol=1e-12, atol=1e-14)
    entropy = 0.5 * (3 * (1 + math.log(2 * math.pi)) + math.log(np.linalg.det(cov)))
    assert m.entropy().item() == pytest.approx(entropy, rel=1e-12)
    np.testing.assert_allclose(m.variance.tolist(), np.diag(cov), rtol=1e-12)


def test_mvn_kl_against_numpy():
    c0, c1 = np.asarray(COV), np.asarray(COV) + np.eye(3)
    m0, m1 = np.array([0.5, -1.0, 0.0]), np.array([0.0, 0.3, 1.0])
    diff = m1 - m0
    expected = 0.5 * (np.trace(np.linalg.solve(c1, c0)) + diff @ np.linalg.solve(c1, diff) - 3
                      + math.log(np.linalg.det(c1) / np.linalg.det(c0)))
    p = D.MultivariateNormal(openreg.tensor(m0, dtype=openreg.float64), openreg.tensor(c0, dtype=openreg.float64))
    q = D.MultivariateNormal(openreg.tensor(m1, dtype=openreg.float64), openreg.tensor(c1, dtype=openreg.float64))
    assert D.kl_divergence(p, q).item() == pytest.approx(expected, rel=1e-12)
    assert D.kl_divergence(p, p).item() == pytest.approx(0.0, abs=1e-12)


def test_univariate_closed_forms():
    x = np.array([0.3, 1.7, 4.0])
    xt = openreg.tensor(x, dtype=openreg.float64)

    def f64(*values):
        return [openreg.tensor(v, dtype=openreg.float64) for v in values]

    checks = [
        (D.Exponential(*f64(1.5)), np.log(1.5) - 1.5 * x, 1 - np.exp(-1.5 * x), 1 - math.log(1.5), 1 / 1.5, 1 / 2.25),
        (D.Laplace(*f64(1.0, 2.0)), -np.log(4.0) - np.abs(x - 1) / 2,
         np.where(x < 1, 0.5 * np.exp((x - 1) / 2), 1 - 0.5 * np.exp(-(x - 1) / 2)), 1 + math.log(4.0), 1.0, 8.0),
        (D.Cauchy(*f64(1.0, 2.0)), -np.log(math.pi * 2 * (1 + ((x - 1) / 2) ** 2)),
         np.arctan((x - 1) / 2) / math.pi + 0.5, math.log(8 * math.pi), math.nan, math.inf),
        (D.LogNormal(*f64(0.5, 0.8)), -np.log(x * 0.8 * math.sqrt(2 * math.pi)) - (np.log(x) - 0.5) ** 2 / 1.28,
         None, 0.5 + 0.5 + 0.5 * math.log(2 * math.pi * 0.64), math.exp(0.5 + 0.32),
         (math.exp(0.64) - 1) * math.exp(1 + 0.64)),
        (D.HalfNormal(*f64(2.0)), math.log(2) - np.log(2 * math.sqrt(2 * math.pi)) - x ** 2 / 8, None,
         0.5 * math.log(math.pi * 4 / 2) + 0.5, 2 * math.sqrt(2 / math.pi), 4 * (1 - 2 / math.pi)),
        (D.Gumbel(*f64(1.0, 2.0)), -math.log(2) - (x - 1) / 2 - np.exp(-(x - 1) / 2), np.exp(-np.exp(-(x - 1) / 2)),
         math.log(2) + 1 + np.euler_gamma, 1 + 2 * np.euler_gamma, math.pi ** 2 / 6 * 4),
    ]
    for d, log_prob, cdf, entropy, mean, variance in checks:
        name = type(d).__name__
        np.testing.assert_allclose(d.log_prob(xt).tolist(), log_prob, rtol=1e-12, err_msg=name)
        if cdf is not None:
            np.testing.assert_allclose(d.cdf(xt).tolist(), cdf, rtol=1e-12, err_msg=name)
            np.testing.assert_allclose(d.icdf(d.cdf(xt)).tolist(), x, rtol=1e-9, err_msg=name)
        assert d.entropy().item() == pytest.approx(entropy, rel=1e-12), name
        np.testing.assert_allclose(d.mean.item(), mean, rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(d.variance.item(), variance, rtol=1e-12, err_msg=name)


def test_tanh_squashed_gaussian_log_prob_closed_form():
    """SAC's policy: ``a = tanh(u)``, ``log pi(a) = log N(u) - log(1 - tanh(u)^2)``."""
    u = np.array([0.3, -1.2, 2.5])
    base = D.Normal(openreg.tensor([0.1, 0.0, -0.5], dtype=openreg.float64), openreg.tensor(1.5, dtype=openreg.float64))
    d = D.TransformedDistribution(base, [D.TanhTransform(cache_size=1)])
    a = openreg.tanh(openreg.tensor(u, dtype=openreg.float64))
    normal = -0.5 * ((u - np.array([0.1, 0.0, -0.5])) / 1.5) ** 2 - math.log(1.5 * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(d.log_prob(a).tolist(), normal - np.log(1 - np.tanh(u) ** 2), rtol=1e-9)
    d2 = D.TransformedDistribution(base, D.TanhTransform(cache_size=1))
    x = d2.rsample((4,))
    assert d2.transforms[0].inv(x) is d2.transforms[0]._cached_x_y[0]    # cache_size=1 returns the preimage
    assert d.has_rsample and d.event_shape == () and d.batch_shape == (3,)


def test_transform_inverses_and_jacobians_numerically():
    x = openreg.tensor([0.3, -1.2, 2.0], dtype=openreg.float64)
    for t in (D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(), D.SoftplusTransform(),
              D.AffineTransform(0.5, -3.0), D.ComposeTransform([D.AffineTransform(0.1, 0.5), D.TanhTransform()])):
        y = t(x)
        np.testing.assert_allclose(t.inv(y).tolist(), x.tolist(), rtol=1e-9, err_msg=repr(t))
        h = 1e-6
        slope = (np.asarray(t(x + h).tolist()) - np.asarray(t(x - h).tolist())) / (2 * h)
        np.testing.assert_allclose(t.log_abs_det_jacobian(x, y).tolist(), np.log(np.abs(slope)), rtol=1e-6,
                                   err_msg=repr(t))
        assert t.inv.inv is t and t.bijective
    sb = D.StickBreakingTransform()
    y = sb(x)
    assert y.shape == (4,) and y.sum().item() == pytest.approx(1.0) and bool((y > 0).all())
    np.testing.assert_allclose(sb.inv(y).tolist(), x.tolist(), rtol=1e-9)


def test_errors():
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(openreg.zeros(2))
    with pytest.raises(ValueError, match="PositiveDefinite"):
        D.MultivariateNormal(openreg.zeros(2), openreg.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="LowerCholesky"):
        D.MultivariateNormal(openreg.zeros(2), scale_tril=openreg.tensor([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="GreaterThan"):
        D.Exponential(openreg.tensor([0.0]))
    with pytest.raises(ValueError, match="support"):
        D.LogNormal(0.0, 1.0).log_prob(openreg.tensor(-1.0))
    with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [3])
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        D.ExpTransform(cache_size=2)
    with pytest.raises(NotImplementedError, match="Exponential and q type Laplace"):
        D.kl_divergence(D.Exponential(1.0), D.Laplace(0.0, 1.0))


# -- gradients ------------------------------------------------------------------------------------------------
def _double(*values):
    return [openreg.tensor(v, dtype=openreg.float64, requires_grad=True) for v in values]


def _tril(raw):
    return raw.tril(-1) + raw.diagonal(dim1=-2, dim2=-1).exp().diag_embed()


def _cov(raw):
    low = _tril(raw)
    return low @ low.mT


X3 = [[0.3, -0.2, 1.0], [1.0, 0.5, -0.4]]


@pytest.mark.parametrize(("name", "fn", "inputs"), [
    ("mvn_tril_log_prob", lambda loc, raw: D.MultivariateNormal(loc, scale_tril=_tril(raw)).log_prob(
        openreg.tensor(X3, dtype=openreg.float64)), ([0.1, 0.0, -0.3], [[0.1, 0, 0], [0.3, -0.2, 0], [0.5, 0.1, 0.4]])),
    ("mvn_cov_log_prob", lambda loc, raw: D.MultivariateNormal(loc, _cov(raw)).log_prob(
        openreg.tensor(X3, dtype=openreg.float64)), ([0.1, 0.0, -0.3], [[0.1, 0, 0], [0.3, -0.2, 0], [0.5, 0.1, 0.4]])),
    ("mvn_precision_log_prob", lambda loc, raw: D.MultivariateNormal(
        loc, precision_matrix=_cov(raw)).log_prob(openreg.tensor(X3, dtype=openreg.float64)),
     ([0.1, 0.0, -0.3], [[0.1, 0, 0], [0.3, -0.2, 0], [0.5, 0.1, 0.4]])),
    ("mvn_kl", lambda a, b: D.kl_divergence(D.MultivariateNormal(openreg.zeros(2, dtype=openreg.float64),
                                                                 scale_tril=_tril(a)),
                                            D.MultivariateNormal(openreg.ones(2, dtype=openreg.float64),
                                                                 scale_tril=_tril(b))),
     ([[0.1, 0], [0.3, -0.2]], [[0.5, 0], [-0.3, 0.2]])),
    ("exponential_log_prob", lambda r: D.Exponential(r).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.7, 2.0],)),
    ("laplace_log_prob", lambda loc, s: D.Laplace(loc, s).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.1, 1.0], [0.7, 2.0])),
    ("cauchy_log_prob", lambda loc, s: D.Cauchy(loc, s).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.1, 1.0], [0.7, 2.0])),
    ("gumbel_log_prob", lambda loc, s: D.Gumbel(loc, s).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.1, 1.0], [0.7, 2.0])),
    ("lognormal_log_prob", lambda loc, s: D.LogNormal(loc, s).log_prob(openreg.tensor([0.5, 2.0],
                                                                                    dtype=openreg.float64)),
     ([0.1, 1.0], [0.7, 2.0])),
    ("tanh_normal_log_prob", lambda loc, s: D.TransformedDistribution(D.Normal(loc, s), D.TanhTransform()).log_prob(
        openreg.tensor([0.5, -0.9], dtype=openreg.float64)), ([0.1, 1.0], [0.7, 2.0])),
    ("kl_laplace", lambda a, b: D.kl_divergence(D.Laplace(a, 1.5), D.Laplace(0.2, b)), ([0.1, 1.0], [0.7, 2.0])),
    ("kl_gumbel", lambda a, b: D.kl_divergence(D.Gumbel(a, 1.5), D.Gumbel(0.2, b)), ([0.1, 1.0], [0.7, 2.0])),
])
def test_gradients_flow(name, fn, inputs):
    assert gradcheck(fn, _double(*inputs))


@pytest.mark.parametrize(("name", "make"), [
    ("mvn", lambda loc, raw: D.MultivariateNormal(loc, scale_tril=_tril(raw))),
    ("exponential", lambda loc, raw: D.Exponential(raw.exp().sum(-1))),
    ("laplace", lambda loc, raw: D.Laplace(loc, raw.exp().sum(-1))),
    ("cauchy", lambda loc, raw: D.Cauchy(loc, raw.exp().sum(-1))),
    ("gumbel", lambda loc, raw: D.Gumbel(loc, raw.exp().sum(-1))),
    ("lognormal", lambda loc, raw: D.LogNormal(loc, raw.exp().sum(-1))),
    ("halfnormal", lambda loc, raw: D.HalfNormal(raw.exp().sum(-1) + loc.abs())),
    ("tanh_normal", lambda loc, raw: D.TransformedDistribution(D.Normal(loc, raw.exp().sum(-1)),
                                                               [D.AffineTransform(0.5, 2.0), D.TanhTransform()])),
])
def test_rsample_gradcheck_with_fixed_noise(name, make):
    """rsample is a differentiable function of the parameters for a fixed seed."""
    def sample(loc, raw):
        openreg.manual_seed(7)
        return make(loc, raw).rsample((3,))
    assert make(*_double([0.0, 0.0, 0.0], [[0.0] * 3] * 3)).has_rsample
    assert gradcheck(sample, _double([0.1, 0.0, -0.3], [[0.1, 0, 0], [0.3, -0.2, 0], [0.5, 0.1, 0.4]]))


# -- sampling ---------------------------------------------------------------------------------------------
def test_sample_moments():
    openreg.manual_seed(0)
    n = 40000
    m = D.MultivariateNormal(openreg.tensor([1.0, -2.0, 0.5], dtype=openreg.float64),
                             openreg.tensor(COV, dtype=openreg.float64))
    s = np.asarray(m.sample((n,)).tolist())
    np.testing.assert_allclose(s.mean(0), [1.0, -2.0, 0.5], atol=0.04)
    np.testing.assert_allclose(np.cov(s.T), COV, atol=0.06)
    for d in (D.Exponential(2.0), D.Laplace(1.0, 2.0), D.Gumbel(1.0, 2.0), D.LogNormal(0.2, 0.5), D.HalfNormal(2.0)):
        s = np.asarray(d.sample((n,)).tolist())
        mean, std = d.mean.item(), d.stddev.item()
        assert abs(s.mean() - mean) < 5 * std / math.sqrt(n), type(d).__name__
        assert abs(s.std() - std) < 0.05 * std, type(d).__name__
    c = np.asarray(D.Cauchy(1.0, 2.0).sample((n,)).tolist())
    assert abs(np.median(c) - 1.0) < 0.06 and abs(np.percentile(c, 75) - 3.0) < 0.1   # quartiles: loc +- scale
    openreg.manual_seed(5)
    a = D.Gumbel(0.0, 1.0).sample((3,)).tolist()
    openreg.manual_seed(5)
    assert D.Gumbel(0.0, 1.0).sample((3,)).tolist() == a


def test_device_parameters_stay_on_the_device():
    dev = "privateuseone:0"
    m = D.MultivariateNormal(openreg.zeros(2, device=dev), openreg.eye(2, device=dev) * 2)
    s = m.rsample((3,))
    assert s.device.type != "cpu" and m.log_prob(s).device.type != "cpu"
    for d in (D.Exponential(openreg.ones(2, device=dev)), D.Laplace(openreg.zeros(2, device=dev), 1.0),
              D.Cauchy(openreg.zeros(2, device=dev), 1.0), D.Gumbel(openreg.zeros(2, device=dev), 1.0),
              D.TransformedDistribution(D.Normal(openreg.zeros(2, device=dev), 1.0), D.TanhTransform())):
        x = d.sample()
        assert x.device.type != "cpu" and d.log_prob(x).device.type != "cpu", type(d).__name__
    cpu = D.MultivariateNormal(openreg.zeros(2), openreg.eye(2) * 2).log_prob(openreg.tensor([0.3, -1.0]))
    assert m.log_prob(openreg.tensor([0.3, -1.0], device=dev)).cpu().item() == pytest.approx(cpu.item(), rel=1e-6)


def test_zero_dim_float32_erf():
    """``Normal(0., 1.).cdf(tensor(x))`` on 0-dim float32 values: erf's in-place float32 steps once failed on them."""
    assert openreg.erf(openreg.tensor(0.5)).item() == pytest.approx(math.erf(0.5), rel=1e-6)
    assert D.HalfNormal(1.0).cdf(openreg.tensor(1.0)).item() == pytest.approx(math.erf(1 / math.sqrt(2)), rel=1e-6)
