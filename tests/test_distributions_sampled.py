"""The sampling operators behind the gamma family and the counts (``_standard_gamma`` with its implicit
gradient ``_standard_gamma_grad``, ``_sample_dirichlet``, ``poisson``, ``binomial``; ``igamma``/``igammac``)
and the distributions built on them -- Gamma, Chi2, Beta, Dirichlet, StudentT, Poisson, Binomial, Geometric,
Multinomial, OneHotCategorical, MixtureSameFamily, RelaxedOneHotCategorical, RelaxedBernoulli: closed forms
(math/NumPy, always run), torch.distributions when PyTorch is installed, gradients, and sample moments under
fixed seeds with tolerances of several standard errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from distributions_vs_torch import assert_matches_pytorch, statistics

import openreg
from openreg import distributions as D
from openreg.autograd import gradcheck

DEVICES = ["cpu", "privateuseone:0"]


def _f64(*values):
    return [openreg.tensor(v, dtype=openreg.float64) for v in values]


def _double(*values):
    return [openreg.tensor(v, dtype=openreg.float64, requires_grad=True) for v in values]


def _lower_gamma_reference(a: float, x: float) -> float:
    """P(a, x) = exp(-x) sum_k x^(a+k) / Gamma(a+k+1): every term positive, summed in Python floats."""
    total, k = 0.0, 0
    while True:
        term = math.exp((a + k) * math.log(x) - x - math.lgamma(a + k + 1))
        total += term
        if term < 1e-17 * total and k > x:
            return total
        k += 1


def _mean_sem(values):
    values = np.asarray(values, dtype=float)
    return values.mean(), values.std() / math.sqrt(values.size)


# -- operators ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.5, 60.0])
def test_standard_gamma_moments(alpha, device):
    g = openreg.Generator(device=device).manual_seed(1) if device != "cpu" else openreg.Generator().manual_seed(1)
    x = openreg._standard_gamma(openreg.full((40000,), alpha, dtype=openreg.float64, device=device), generator=g)
    assert x.device.type == openreg.device(device).type and x.dtype == openreg.float64
    s = np.asarray(x.cpu().tolist())
    assert (s > 0).all()
    mean, sem = _mean_sem(s)
    assert abs(mean - alpha) < 5 * sem
    third = np.mean((s - alpha) ** 3)          # the third central moment of Gamma(alpha, 1) is 2 alpha
    assert abs(s.var() / alpha - 1) < 0.05 and abs(third / (2 * alpha) - 1) < 0.25


def test_standard_gamma_is_seeded_and_keeps_dtype():
    a = openreg.tensor([[0.5, 2.0], [7.0, 30.0]])
    openreg.manual_seed(3)
    x = openreg._standard_gamma(a)
    openreg.manual_seed(3)
    assert x.tolist() == openreg._standard_gamma(a).tolist() and x.dtype == openreg.float32 and x.shape == (2, 2)
    assert openreg._standard_gamma(a, generator=openreg.Generator().manual_seed(0)).tolist() == \
        openreg._standard_gamma(a, generator=openreg.Generator().manual_seed(0)).tolist()
    assert openreg._standard_gamma(openreg.tensor([0.0, float("nan")])).tolist()[0] == 0.0
    with pytest.raises(NotImplementedError, match="_standard_gamma"):
        openreg._standard_gamma(openreg.tensor([1, 2]))


@pytest.mark.parametrize(("alpha", "x"), [(0.3, 1e-4), (0.3, 0.5), (1.0, 1.0), (2.5, 0.7), (2.5, 9.0), (12.0, 10.0),
                                          (40.0, 55.0), (200.0, 190.0)])
def test_standard_gamma_grad_is_the_implicit_derivative(alpha, x):
    """dx/dalpha at fixed CDF: -(dP/dalpha) / pdf(x), against an independent series for P."""
    h = 1e-6 * alpha
    dp = (_lower_gamma_reference(alpha + h, x) - _lower_gamma_reference(alpha - h, x)) / (2 * h)
    pdf = math.exp((alpha - 1) * math.log(x) - x - math.lgamma(alpha))
    got = openreg._standard_gamma_grad(*_f64([alpha], [x])).item()
    assert got == pytest.approx(-dp / pdf, rel=1e-5)


def test_standard_gamma_grad_matches_pytorch():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    alpha = np.array([0.05, 0.3, 0.9, 1.0, 2.5, 7.0, 15.0, 80.0, 500.0])
    x = np.array([1e-3, 0.2, 2.0, 1.0, 3.0, 4.0, 20.0, 70.0, 520.0])
    ours = openreg._standard_gamma_grad(*_f64(alpha, x)).tolist()
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).tolist()
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)    # PyTorch's are approximations to ~1e-3


def test_gamma_rsample_gradients_are_unbiased():
    """d E[x] / d alpha = 1 and d E[x^2] / d alpha = 2 alpha + 1: means of the implicit gradients."""
    for alpha in (0.4, 3.0):
        a = openreg.full((20000,), alpha, dtype=openreg.float64, requires_grad=True)
        openreg.manual_seed(0)
        x = openreg._standard_gamma(a)
        (grad,) = openreg.autograd.grad(x.sum(), a)
        g = np.asarray(grad.tolist())
        s = np.asarray(x.detach().tolist())
        mean, sem = _mean_sem(g)
        assert abs(mean - 1.0) < 5 * sem
        mean, sem = _mean_sem(2 * s * g)
        assert abs(mean - (2 * alpha + 1)) < 5 * sem


@pytest.mark.parametrize("device", DEVICES)
def test_sample_dirichlet(device):
    c = openreg.tensor([0.5, 2.0, 4.0], dtype=openreg.float64, device=device).expand(30000, 3)
    openreg.manual_seed(2)
    s = np.asarray(openreg._sample_dirichlet(c).cpu().tolist())
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    expected_mean = np.array([0.5, 2.0, 4.0]) / 6.5
    sem = np.sqrt(expected_mean * (1 - expected_mean) / (6.5 + 1) / 30000)
    assert (np.abs(s.mean(0) - expected_mean) < 5 * sem).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rate", [0.0, 0.7, 4.0, 13.0, 250.0])
def test_poisson_moments_and_pmf(rate, device):
    openreg.manual_seed(4)
    s = np.asarray(openreg.poisson(openreg.full((40000,), rate, device=device)).cpu().tolist())
    assert (s == np.floor(s)).all() and (s >= 0).all()
    if rate == 0:
        assert (s == 0).all()
        return
    mean, sem = _mean_sem(s)
    assert abs(mean - rate) < 5 * sem and abs(s.var() / rate - 1) < 0.05
    k = np.arange(int(rate + 4 * math.sqrt(rate)) + 1)
    pmf = np.exp(k * math.log(rate) - rate - np.array([math.lgamma(v + 1) for v in k]))
    freq = np.array([(s == v).mean() for v in k])
    assert (np.abs(freq - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / 40000) + 1e-3).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "p"), [(10, 0.3), (8, 0.95), (100, 0.4), (400, 0.97), (3000, 0.01), (5, 0.0), (5, 1.0)])
def test_binomial_moments_and_pmf(n, p, device):
    openreg.manual_seed(5)
    s = np.asarray(openreg.binomial(openreg.full((40000,), float(n), device=device),
                                    openreg.full((40000,), p, device=device)).cpu().tolist())
    assert (s == np.floor(s)).all() and (s >= 0).all() and (s <= n).all()
    if p in (0.0, 1.0):
        assert (s == n * p).all()
        return
    mean, sem = _mean_sem(s)
    assert abs(mean - n * p) < 5 * sem and abs(s.var() / (n * p * (1 - p)) - 1) < 0.05
    k = np.arange(n + 1)
    pmf = np.exp([math.lgamma(n + 1) - math.lgamma(v + 1) - math.lgamma(n - v + 1) + v * math.log(p)
                  + (n - v) * math.log1p(-p) for v in k])
    freq = np.array([(s == v).mean() for v in k])
    assert (np.abs(freq - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / 40000) + 1e-3).all()


def test_binomial_broadcasts_and_checks():
    out = openreg.binomial(openreg.tensor([[3.0], [5.0]]), openreg.tensor([0.0, 1.0, 1.0]))
    assert out.tolist() == [[0.0, 3.0, 3.0], [0.0, 5.0, 5.0]]
    with pytest.raises(RuntimeError, match="same dtype"):
        openreg.binomial(openreg.tensor([3.0]), openreg.tensor([0.5], dtype=openreg.float64))
    with pytest.raises(RuntimeError, match="non-negative"):
        openreg.poisson(openreg.tensor([-1.0]))
    assert openreg.ops.aten.poisson(openreg.empty(2, 3, device="meta")).shape == (2, 3)


def test_igamma_closed_forms_and_gradient():
    x = np.array([0.01, 0.5, 1.0, 3.0, 12.0, 40.0])
    for a, upper in ((1.0, np.exp(-x)), (0.5, np.array([math.erfc(math.sqrt(v)) for v in x])),
                     (2.0, (1 + x) * np.exp(-x))):
        p = openreg.igamma(*_f64(np.full_like(x, a), x)).tolist()
        q = openreg.special.gammaincc(*_f64(np.full_like(x, a), x)).tolist()
        np.testing.assert_allclose(p, 1 - upper, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(q, upper, rtol=1e-10, atol=1e-300)    # the tail itself, not 1 - P
    for a, v in ((0.3, 0.2), (7.5, 4.0), (150.0, 140.0), (150.0, 170.0)):
        assert openreg.special.gammainc(*_f64(a, v)).item() == pytest.approx(_lower_gamma_reference(a, v), rel=1e-11)
    a = openreg.tensor([0.7, 2.5, 9.0], dtype=openreg.float64)
    assert gradcheck(lambda v: openreg.igamma(a, v), _double([0.4, 3.0, 7.0]))
    assert gradcheck(lambda v: openreg.igammac(a, v), _double([0.4, 3.0, 7.0]))


def test_igamma_matches_pytorch():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    a = np.array([0.1, 0.5, 1.0, 3.0, 30.0, 100.0, 1000.0])
    x = np.array([0.05, 2.0, 0.3, 3.5, 25.0, 130.0, 990.0])
    for ours, theirs in ((openreg.igamma, torch.igamma), (openreg.igammac, torch.igammac)):
        for dt in ("float32", "float64"):
            o = ours(openreg.tensor(a, dtype=getattr(openreg, dt)), openreg.tensor(x, dtype=getattr(openreg, dt)))
            t = theirs(torch.tensor(a, dtype=getattr(torch, dt)), torch.tensor(x, dtype=getattr(torch, dt)))
            # PyTorch's float64 values are off by up to ~1e-9 for large arguments (mpmath agrees with ours)
            np.testing.assert_allclose(o.tolist(), t.tolist(), rtol=1e-5 if dt == "float32" else 1e-8, atol=1e-30)


# -- distributions against PyTorch --------------------------------------------------------------------------
CASES = {
    "gamma": lambda t, d: statistics(d.Gamma(t.tensor([0.5, 2., 9.]), t.tensor([1., 3., 0.5])),
                                     t.tensor([0.3, 1.2, 20.]), cdf=True),
    "gamma_scalar_shapes": lambda t, d: ((m := d.Gamma(2., 3.)).batch_shape, m.rsample((4,)).shape, m.support),
    "gamma_bad": lambda t, d: d.Gamma(t.tensor([0., 1.]), 1.),
    "gamma_out_of_support": lambda t, d: d.Gamma(1., 1.).log_prob(t.tensor(-1.)),
    "chi2": lambda t, d: statistics(d.Chi2(t.tensor([1., 4., 11.])), t.tensor([0.3, 1.2, 20.]), cdf=True) + [
        d.Chi2(t.tensor([1., 4., 11.])).df],
    "beta": lambda t, d: statistics(d.Beta(t.tensor([0.5, 2., 9.]), t.tensor([1., 3., 0.5])),
                                    t.tensor([0.3, 0.6, 0.99])),
    "beta_numbers": lambda t, d: ((m := d.Beta(2., 3.)).batch_shape, m.concentration1, m.concentration0,
                                  m.sample((3,)).shape),
    "beta_bad": lambda t, d: d.Beta(t.tensor([-1.]), t.tensor([1.])),
    "beta_out_of_support": lambda t, d: d.Beta(2., 3.).log_prob(t.tensor(1.5)),
    "dirichlet": lambda t, d: statistics(d.Dirichlet(t.tensor([[0.5, 2., 3.], [4., 1., 1.5]])),
                                         t.tensor([0.2, 0.3, 0.5])),
    "dirichlet_mode_below_one": lambda t, d: d.Dirichlet(t.tensor([[0.5, 0.7, 0.3], [2., 2., 3.]])).mode,
    "dirichlet_shapes": lambda t, d: ((m := d.Dirichlet(t.ones(2, 4))).batch_shape, m.event_shape,
                                      m.rsample((3,)).shape, m.expand((5, 2)).batch_shape),
    "dirichlet_scalar": lambda t, d: d.Dirichlet(t.tensor(1.)),
    "dirichlet_off_simplex": lambda t, d: d.Dirichlet(t.ones(3)).log_prob(t.tensor([0.2, 0.2, 0.2])),
    "student_t": lambda t, d: statistics(d.StudentT(t.tensor([0.8, 1.5, 3., 10.]), t.tensor([0., 1., -1., 2.]),
                                                    t.tensor([1., 2., 0.5, 1.])), t.tensor([0.3, 1.2, -2., 2.])),
    "student_t_default": lambda t, d: ((m := d.StudentT(5.)).batch_shape, m.loc, m.scale, m.log_prob(t.tensor(1.))),
    "poisson": lambda t, d: statistics(d.Poisson(t.tensor([0.5, 3., 40.])), t.tensor([0., 2., 38.]), entropy=False),
    "poisson_zero_rate": lambda t, d: d.Poisson(t.tensor([0., 0.])).log_prob(t.tensor([0., 1.])),
    "poisson_not_integer": lambda t, d: d.Poisson(2.).log_prob(t.tensor(1.5)),
    "poisson_shapes": lambda t, d: ((m := d.Poisson(2.)).batch_shape, m.sample((3,)).shape, m.support),
    "binomial": lambda t, d: statistics(d.Binomial(t.tensor([5., 10., 10.]), t.tensor([0.3, 0.5, 0.9])),
                                        t.tensor([1., 10., 7.]), entropy=False),
    "binomial_entropy": lambda t, d: d.Binomial(6, t.tensor([0.3, 0.5, 0.9])).entropy(),
    "binomial_logits": lambda t, d: d.Binomial(4, logits=t.tensor([-1., 2.])).log_prob(t.tensor([1., 3.])),
    "binomial_enumerate": lambda t, d: d.Binomial(3, t.tensor([0.3, 0.5])).enumerate_support(),
    "binomial_too_many": lambda t, d: d.Binomial(3, t.tensor([0.3])).log_prob(t.tensor([4.])),
    "binomial_both": lambda t, d: d.Binomial(3, t.tensor([0.3]), logits=t.tensor([0.3])),
    "binomial_inhomogeneous": lambda t, d: d.Binomial(t.tensor([3., 4.]), t.tensor([0.3, 0.4])).entropy(),
    "geometric": lambda t, d: statistics(d.Geometric(t.tensor([0.1, 0.5, 1.])), t.tensor([3., 0., 0.])),
    "geometric_logits": lambda t, d: d.Geometric(logits=t.tensor([-1., 2.])).log_prob(t.tensor([1., 3.])),
    "geometric_zero": lambda t, d: d.Geometric(t.tensor([0., 0.5])),
    "multinomial": lambda t, d: [(m := d.Multinomial(5, t.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]))).mean,
                                 m.variance, m.log_prob(t.tensor([[1., 1., 3.], [5., 0., 0.]])), m.entropy(),
                                 m.sample((4,)).shape, m.sample().sum(-1)],
    "multinomial_logits": lambda t, d: d.Multinomial(3, logits=t.tensor([0., -1., 2.])).log_prob(
        t.tensor([0., 1., 2.])),
    "multinomial_bad_count": lambda t, d: d.Multinomial(3, t.tensor([0.2, 0.8])).log_prob(t.tensor([3., 1.])),
    "multinomial_tensor_count": lambda t, d: d.Multinomial(t.tensor(3), t.tensor([0.2, 0.8])),
    "one_hot": lambda t, d: [(m := d.OneHotCategorical(t.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]))).mean,
                             m.variance, m.mode, m.log_prob(t.tensor([[0., 0., 1.], [1., 0., 0.]])), m.entropy(),
                             m.sample((4,)).shape, m.enumerate_support(), m.batch_shape, m.event_shape],
    "one_hot_not_one_hot": lambda t, d: d.OneHotCategorical(t.tensor([0.2, 0.8])).log_prob(t.tensor([1., 1.])),
    "mixture": lambda t, d: [(m := d.MixtureSameFamily(d.Categorical(t.tensor([0.3, 0.7])), d.Normal(
        t.tensor([-1., 2.]), t.tensor([0.5, 1.])))).mean, m.variance, m.log_prob(t.tensor([0., 1.5])),
        m.cdf(t.tensor([0., 1.5])), m.sample((5,)).shape, m.batch_shape],
    "mixture_mvn": lambda t, d: [(m := d.MixtureSameFamily(d.Categorical(t.tensor([[0.3, 0.7], [0.5, 0.5]])),
                                                           d.Independent(d.Normal(t.zeros(2, 2, 3), 1.), 1))).mean,
                                 m.variance, m.log_prob(t.ones(2, 3)), m.sample((4,)).shape, m.event_shape],
    "mixture_bad_k": lambda t, d: d.MixtureSameFamily(d.Categorical(t.tensor([0.3, 0.7])), d.Normal(t.zeros(3), 1.)),
    "mixture_bad_mix": lambda t, d: d.MixtureSameFamily(d.Normal(0., 1.), d.Normal(t.zeros(3), 1.)),
    "relaxed_one_hot": lambda t, d: [(m := d.RelaxedOneHotCategorical(t.tensor(0.7), t.tensor([0.2, 0.3, 0.5])))
                                     .log_prob(t.tensor([0.1, 0.2, 0.7])), m.rsample((3,)).shape, m.probs,
                                     m.temperature, m.support, m.batch_shape, m.event_shape],
    "relaxed_bernoulli": lambda t, d: [(m := d.RelaxedBernoulli(t.tensor(0.7), t.tensor([0.2, 0.9])))
                                       .log_prob(t.tensor([0.1, 0.7])), m.rsample((3,)).shape, m.logits,
                                       m.support, m.batch_shape],
    "relaxed_bernoulli_logits": lambda t, d: d.RelaxedBernoulli(t.tensor([0.3, 2.]), logits=t.tensor([-1., 1.5]))
    .log_prob(t.tensor([0.4, 0.6])),
    "kl_gamma": lambda t, d: d.kl_divergence(d.Gamma(t.tensor([0.5, 2.]), 3.), d.Gamma(1.5, t.tensor([1., 2.]))),
    "kl_beta": lambda t, d: d.kl_divergence(d.Beta(t.tensor([0.5, 2.]), 3.), d.Beta(1.5, t.tensor([1., 2.]))),
    "kl_dirichlet": lambda t, d: d.kl_divergence(d.Dirichlet(t.tensor([[0.5, 2., 3.], [1., 1., 1.]])),
                                                 d.Dirichlet(t.tensor([2., 1., 0.7]))),
    "kl_poisson": lambda t, d: d.kl_divergence(d.Poisson(t.tensor([0.5, 3.])), d.Poisson(t.tensor([1., 7.]))),
    "kl_bernoulli_poisson": lambda t, d: d.kl_divergence(d.Bernoulli(t.tensor([0.2, 0.6])), d.Poisson(1.5)),
    "kl_geometric": lambda t, d: d.kl_divergence(d.Geometric(t.tensor([0.2, 0.6])), d.Geometric(0.4)),
    "kl_one_hot": lambda t, d: d.kl_divergence(d.OneHotCategorical(t.tensor([0.2, 0.8])),
                                               d.OneHotCategorical(t.tensor([0.5, 0.5]))),
    "kl_binomial": lambda t, d: d.kl_divergence(d.Binomial(5, t.tensor([0.2, 0.6])), d.Binomial(5, 0.4)),
    "kl_binomial_inf": lambda t, d: d.kl_divergence(d.Binomial(t.tensor([5., 6.]), t.tensor([0.2, 0.6])),
                                                    d.Binomial(5, 0.4)),
    "kl_binomial_bad": lambda t, d: d.kl_divergence(d.Binomial(4, t.tensor([0.2])), d.Binomial(5, 0.4)),
    "kl_exponential_gamma": lambda t, d: d.kl_divergence(d.Exponential(t.tensor([0.5, 2.])), d.Gamma(1.5, 2.)),
    "kl_gamma_exponential": lambda t, d: d.kl_divergence(d.Gamma(t.tensor([0.5, 2.]), 3.), d.Exponential(1.5)),
    "kl_gamma_normal": lambda t, d: d.kl_divergence(d.Gamma(t.tensor([0.5, 2.]), 3.), d.Normal(0.5, 1.5)),
    "kl_gamma_gumbel": lambda t, d: d.kl_divergence(d.Gamma(t.tensor([0.5, 2.]), 3.), d.Gumbel(0.5, 1.5)),
    "kl_beta_normal": lambda t, d: d.kl_divergence(d.Beta(t.tensor([0.5, 2.]), 3.), d.Normal(0.5, 1.5)),
    "kl_beta_uniform": lambda t, d: d.kl_divergence(d.Beta(t.tensor([0.5, 2.]), 3.),
                                                    d.Uniform(t.tensor([-0.5, 0.2]), 1.5)),
    "kl_beta_exponential": lambda t, d: d.kl_divergence(d.Beta(t.tensor([0.5, 2.]), 3.), d.Exponential(1.5)),
    "kl_beta_gamma": lambda t, d: d.kl_divergence(d.Beta(t.tensor([0.5, 2.]), 3.), d.Gamma(1.5, 2.)),
    "kl_uniform_gamma": lambda t, d: d.kl_divergence(d.Uniform(t.tensor([0., 1., -1.]), 3.), d.Gamma(1.5, 2.)),
    "kl_uniform_beta": lambda t, d: d.kl_divergence(d.Uniform(t.tensor([0., 0.2, -1.]), t.tensor([1., 0.7, 0.5])),
                                                    d.Beta(1.5, 2.)),
    "kl_normal_gamma": lambda t, d: d.kl_divergence(d.Normal(t.tensor([0.5, 2.]), 3.), d.Gamma(1.5, 2.)),
    "kl_poisson_binomial": lambda t, d: d.kl_divergence(d.Poisson(t.tensor([0.5, 2.])), d.Binomial(3, 0.5)),
    "constraint_multinomial": lambda t, d: d.constraints.multinomial(3).check(t.tensor([[1., 2.], [2., 2.]])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    assert_matches_pytorch(CASES[case], compare_values="sample" not in case)


# -- closed forms (run without PyTorch) ---------------------------------------------------------------------
def test_continuous_closed_forms():
    x = np.array([0.3, 1.2, 4.0])
    a, r = 2.5, 1.5
    gamma = D.Gamma(*_f64(a, r))
    logpdf = a * math.log(r) + (a - 1) * np.log(x) - r * x - math.lgamma(a)
    np.testing.assert_allclose(gamma.log_prob(*_f64(x)).tolist(), logpdf, rtol=1e-12)
    cdf = [_lower_gamma_reference(a, r * v) for v in x]
    np.testing.assert_allclose(gamma.cdf(*_f64(x)).tolist(), cdf, rtol=1e-11)
    h = a - math.log(r) + math.lgamma(a) + (1 - a) * float(D.Gamma(*_f64(a, r)).concentration.digamma())
    assert gamma.entropy().item() == pytest.approx(h, rel=1e-12)
    assert gamma.mean.item() == pytest.approx(a / r) and gamma.variance.item() == pytest.approx(a / r ** 2)
    chi2 = D.Chi2(*_f64(3.0))
    np.testing.assert_allclose(chi2.log_prob(*_f64(x)).tolist(),
                               0.5 * np.log(x) - x / 2 - 1.5 * math.log(2) - math.lgamma(1.5), rtol=1e-12)

    u = np.array([0.1, 0.5, 0.95])
    beta = D.Beta(*_f64(2.0, 3.5))
    log_b = math.lgamma(2.0) + math.lgamma(3.5) - math.lgamma(5.5)
    np.testing.assert_allclose(beta.log_prob(*_f64(u)).tolist(), np.log(u) + 2.5 * np.log1p(-u) - log_b, rtol=1e-12)
    assert beta.mean.item() == pytest.approx(2 / 5.5) and beta.variance.item() == pytest.approx(7 / (5.5 ** 2 * 6.5))
    assert beta.mode.item() == pytest.approx(1 / 3.5)

    c = np.array([0.5, 2.0, 3.0])
    v = np.array([0.2, 0.3, 0.5])
    dirichlet = D.Dirichlet(*_f64(c))
    log_norm = sum(math.lgamma(ci) for ci in c) - math.lgamma(c.sum())
    assert dirichlet.log_prob(*_f64(v)).item() == pytest.approx(float(((c - 1) * np.log(v)).sum() - log_norm),
                                                                rel=1e-12)
    np.testing.assert_allclose(dirichlet.mean.tolist(), c / c.sum(), rtol=1e-12)

    nu, loc, scale = 4.0, 1.0, 2.0
    t = D.StudentT(*_f64(nu, loc, scale))
    y = (x - loc) / scale
    logpdf = (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi) - math.log(scale)
              - (nu + 1) / 2 * np.log1p(y ** 2 / nu))
    np.testing.assert_allclose(t.log_prob(*_f64(x)).tolist(), logpdf, rtol=1e-12)
    assert t.variance.item() == pytest.approx(scale ** 2 * nu / (nu - 2))
    assert np.isnan(D.StudentT(*_f64([0.5])).mean.item()) and D.StudentT(*_f64([1.5])).variance.item() == math.inf


def test_discrete_closed_forms():
    k = np.array([0.0, 1.0, 3.0, 7.0])
    pois = D.Poisson(*_f64(2.5))
    np.testing.assert_allclose(pois.log_prob(*_f64(k)).tolist(),
                               k * math.log(2.5) - 2.5 - np.array([math.lgamma(v + 1) for v in k]), rtol=1e-12)
    binom = D.Binomial(7, *_f64([0.3]))
    pmf = np.array([math.comb(7, int(v)) * 0.3 ** v * 0.7 ** (7 - v) for v in k])
    np.testing.assert_allclose(binom.log_prob(*_f64(k[:, None])).reshape(-1).tolist(), np.log(pmf), rtol=1e-12)
    all_k = np.arange(8)
    all_pmf = np.array([math.comb(7, int(v)) * 0.3 ** v * 0.7 ** (7 - v) for v in all_k])
    assert binom.entropy().item() == pytest.approx(float(-(all_pmf * np.log(all_pmf)).sum()), rel=1e-12)
    geo = D.Geometric(*_f64(0.3))
    np.testing.assert_allclose(geo.log_prob(*_f64(k)).tolist(), k * math.log(0.7) + math.log(0.3), rtol=1e-12)
    assert geo.entropy().item() == pytest.approx((-0.7 * math.log(0.7) - 0.3 * math.log(0.3)) / 0.3, rel=1e-12)
    multi = D.Multinomial(6, *_f64([0.2, 0.3, 0.5]))
    counts = [1.0, 2.0, 3.0]
    expected = math.log(math.factorial(6) / (1 * 2 * 6)) + math.log(0.2) + 2 * math.log(0.3) + 3 * math.log(0.5)
    assert multi.log_prob(*_f64(counts)).item() == pytest.approx(expected, rel=1e-12)
    onehot = D.OneHotCategorical(*_f64([0.2, 0.3, 0.5]))
    assert onehot.log_prob(*_f64([0.0, 1.0, 0.0])).item() == pytest.approx(math.log(0.3), rel=1e-12)
    gmm = D.MixtureSameFamily(D.Categorical(*_f64([0.3, 0.7])), D.Normal(*_f64([-1.0, 2.0], [0.5, 1.0])))
    dens = 0.3 * math.exp(-0.5 * ((0.4 + 1) / 0.5) ** 2) / (0.5 * math.sqrt(2 * math.pi)) + \
        0.7 * math.exp(-0.5 * (0.4 - 2) ** 2) / math.sqrt(2 * math.pi)
    assert gmm.log_prob(*_f64(0.4)).item() == pytest.approx(math.log(dens), rel=1e-12)
    assert gmm.mean.item() == pytest.approx(0.3 * -1 + 0.7 * 2)
    assert gmm.variance.item() == pytest.approx(0.3 * (0.25 + 1) + 0.7 * (1 + 4) - 1.1 ** 2)


def test_kl_closed_forms_against_monte_carlo_free_identities():
    """KL(p || p) = 0 and KL(Gamma(1, r1) || Gamma(1, r2)) = KL(Exponential(r1) || Exponential(r2))."""
    for p in (D.Gamma(*_f64([0.5, 3.0], [2.0, 1.0])), D.Beta(*_f64([0.5, 3.0], [2.0, 1.0])),
              D.Dirichlet(*_f64([[0.5, 3.0, 1.0]])), D.Poisson(*_f64([0.5, 3.0])), D.Geometric(*_f64([0.5, 0.2])),
              D.Binomial(4, *_f64([0.3]))):
        np.testing.assert_allclose(D.kl_divergence(p, p).tolist(), 0.0, atol=1e-12, err_msg=type(p).__name__)
    g = D.kl_divergence(D.Gamma(*_f64(1.0, 2.0)), D.Gamma(*_f64(1.0, 0.5))).item()
    e = D.kl_divergence(D.Exponential(*_f64(2.0)), D.Exponential(*_f64(0.5))).item()
    assert g == pytest.approx(e, rel=1e-12)
    assert D.kl_divergence(D.Exponential(*_f64(2.0)), D.Gamma(*_f64(1.0, 0.5))).item() == pytest.approx(e, rel=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="concentration"):
        D.Dirichlet(openreg.tensor(1.0))
    with pytest.raises(ValueError, match="Simplex"):
        D.Dirichlet(openreg.ones(3)).log_prob(openreg.tensor([0.2, 0.2, 0.2]))
    with pytest.raises(ValueError, match="GreaterThan"):
        D.Gamma(openreg.tensor([0.0]), 1.0)
    with pytest.raises(ValueError, match="IntegerGreaterThan"):
        D.Poisson(2.0).log_prob(openreg.tensor(1.5))
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        D.Multinomial(openreg.tensor(3), openreg.tensor([0.2, 0.8]))
    with pytest.raises(ValueError, match="does not equal"):
        D.MixtureSameFamily(D.Categorical(openreg.tensor([0.3, 0.7])), D.Normal(openreg.zeros(3), 1.0))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Binomial(3)
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        D.kl_divergence(D.Binomial(4, openreg.tensor([0.2])), D.Binomial(5, 0.4))


# -- gradients ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "fn", "inputs"), [
    ("gamma_log_prob", lambda c, r: D.Gamma(c, r).log_prob(openreg.tensor([0.5, 2.0], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 0.5])),
    ("gamma_entropy", lambda c, r: D.Gamma(c, r).entropy(), ([0.7, 2.0], [1.5, 0.5])),
    ("gamma_cdf_value", lambda v: D.Gamma(openreg.tensor([0.7, 2.0], dtype=openreg.float64), 1.5).cdf(v),
     ([0.5, 2.0],)),
    ("beta_log_prob", lambda a, b: D.Beta(a, b).log_prob(openreg.tensor([0.3, 0.8], dtype=openreg.float64)),
     ([0.7, 2.0], [1.5, 0.5])),
    ("beta_entropy", lambda a, b: D.Beta(a, b).entropy(), ([0.7, 2.0], [1.5, 0.5])),
    ("dirichlet_log_prob", lambda c: D.Dirichlet(c).log_prob(openreg.tensor([0.2, 0.3, 0.5], dtype=openreg.float64)),
     ([0.7, 2.0, 1.2],)),
    ("student_t_log_prob", lambda df, loc, s: D.StudentT(df, loc, s).log_prob(
        openreg.tensor([0.3, -2.0], dtype=openreg.float64)), ([1.5, 5.0], [0.1, -0.5], [1.0, 2.0])),
    ("student_t_entropy", lambda df, s: D.StudentT(df, 0.0, s).entropy(), ([1.5, 5.0], [1.0, 2.0])),
    ("poisson_log_prob", lambda r: D.Poisson(r).log_prob(openreg.tensor([0.0, 3.0], dtype=openreg.float64)),
     ([0.5, 2.0],)),
    ("binomial_log_prob", lambda p: D.Binomial(5, p).log_prob(openreg.tensor([0.0, 3.0], dtype=openreg.float64)),
     ([0.3, 0.6],)),
    ("geometric_log_prob", lambda p: D.Geometric(p).log_prob(openreg.tensor([0.0, 3.0], dtype=openreg.float64)),
     ([0.3, 0.6],)),
    ("multinomial_log_prob", lambda logits: D.Multinomial(4, logits=logits).log_prob(
        openreg.tensor([1.0, 0.0, 3.0], dtype=openreg.float64)), ([0.3, -0.6, 1.0],)),
    ("mixture_log_prob", lambda w, loc: D.MixtureSameFamily(D.Categorical(logits=w), D.Normal(loc, 1.0)).log_prob(
        openreg.tensor([0.3, -1.0], dtype=openreg.float64)), ([0.3, -0.6], [1.0, -2.0])),
    ("relaxed_one_hot_log_prob", lambda logits: D.RelaxedOneHotCategorical(
        openreg.tensor(0.5, dtype=openreg.float64), logits=logits).log_prob(
        openreg.tensor([0.2, 0.3, 0.5], dtype=openreg.float64)), ([0.3, -0.6, 1.0],)),
    ("kl_gamma", lambda a, b: D.kl_divergence(D.Gamma(a, 1.5), D.Gamma(0.8, b)), ([0.7, 2.0], [1.5, 0.5])),
    ("kl_beta", lambda a, b: D.kl_divergence(D.Beta(a, 1.5), D.Beta(0.8, b)), ([0.7, 2.0], [1.5, 0.5])),
    ("kl_dirichlet", lambda a, b: D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)), ([0.7, 2.0], [1.5, 0.5])),
])
def test_gradients_flow(name, fn, inputs):
    assert gradcheck(fn, _double(*inputs))


@pytest.mark.parametrize(("name", "make"), [
    ("relaxed_one_hot", lambda p: D.RelaxedOneHotCategorical(openreg.tensor(0.5, dtype=openreg.float64), logits=p)),
    ("relaxed_bernoulli", lambda p: D.RelaxedBernoulli(openreg.tensor(0.5, dtype=openreg.float64), logits=p)),
])
def test_rsample_gradcheck_with_fixed_noise(name, make):
    def sample(p):
        openreg.manual_seed(7)
        return make(p).rsample((3,))
    assert gradcheck(sample, _double([0.3, -0.6, 1.0]))


def test_straight_through_gradient_is_the_probabilities_gradient():
    logits = _double([0.3, -0.6, 1.0])[0]
    w = openreg.tensor([1.0, -2.0, 0.5], dtype=openreg.float64)
    x = D.OneHotCategoricalStraightThrough(logits=logits).rsample()
    assert sorted(x.tolist()) == [0.0, 0.0, 1.0]
    (g,) = openreg.autograd.grad((x * w).sum(), logits)
    (expected,) = openreg.autograd.grad((openreg.softmax(logits, -1) * w).sum(), logits)
    np.testing.assert_allclose(g.tolist(), expected.tolist(), rtol=1e-12)


def test_reparameterized_gamma_family_gradients():
    """Monte Carlo: d/dtheta of E[f(x)] from rsample gradients equals the closed form."""
    n = 20000
    c = openreg.tensor(2.0, dtype=openreg.float64, requires_grad=True)
    r = openreg.tensor(1.5, dtype=openreg.float64, requires_grad=True)
    openreg.manual_seed(0)
    D.Gamma(c, r).rsample((n,)).mean().backward()      # E[x] = c / r
    assert c.grad.item() == pytest.approx(1 / 1.5, rel=0.03) and r.grad.item() == pytest.approx(-2.0 / 1.5 ** 2,
                                                                                              rel=0.03)
    a = openreg.tensor(2.0, dtype=openreg.float64, requires_grad=True)
    b = openreg.tensor(3.0, dtype=openreg.float64, requires_grad=True)
    openreg.manual_seed(1)
    x = D.Beta(a, b).rsample((n,))
    assert x.requires_grad and bool(((x > 0) & (x < 1)).all())
    x.mean().backward()                                # E[x] = a / (a + b)
    assert a.grad.item() == pytest.approx(3.0 / 25.0, rel=0.05) and b.grad.item() == pytest.approx(-2.0 / 25.0,
                                                                                                  rel=0.05)
    conc = openreg.tensor([1.0, 2.0, 3.0], dtype=openreg.float64, requires_grad=True)
    openreg.manual_seed(2)
    s = D.Dirichlet(conc).rsample((n,))
    s[:, 0].mean().backward()                          # E[x_0] = c_0 / sum(c)
    np.testing.assert_allclose(conc.grad.tolist(), [5 / 36, -1 / 36, -1 / 36], atol=0.006)
    df = openreg.tensor(5.0, dtype=openreg.float64, requires_grad=True)
    openreg.manual_seed(3)
    t = D.StudentT(df).rsample((n,))
    t.abs().mean().backward()                          # E|T| = 2 sqrt(df) Gamma((df+1)/2) / (sqrt(pi) (df-1) Gamma(df/2))
    h = 1e-5

    def mean_abs(v):
        return 2 * math.sqrt(v) * math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2)) / (math.sqrt(math.pi) *
                                                                                              (v - 1))
    assert df.grad.item() == pytest.approx((mean_abs(5 + h) - mean_abs(5 - h)) / (2 * h), rel=0.15)


def test_distribution_sample_moments():
    openreg.manual_seed(0)
    n = 40000
    for d in (D.Gamma(0.5, 2.0), D.Gamma(7.0, 0.5), D.Chi2(3.0), D.Beta(0.5, 0.7), D.Beta(5.0, 2.0),
              D.StudentT(6.0, 1.0, 2.0), D.Poisson(3.3), D.Binomial(20, openreg.tensor(0.35)), D.Geometric(0.3)):
        s = np.asarray(d.sample((n,)).tolist())
        mean, sem = _mean_sem(s)
        assert abs(mean - d.mean.item()) < 5 * sem, type(d).__name__
        assert abs(s.var() / d.variance.item() - 1) < 0.08, type(d).__name__
    s = np.asarray(D.Dirichlet(openreg.tensor([0.5, 2.0, 4.0])).sample((n,)).tolist())
    np.testing.assert_allclose(s.mean(0), np.array([0.5, 2.0, 4.0]) / 6.5, atol=0.006)
    s = np.asarray(D.Multinomial(10, openreg.tensor([0.2, 0.3, 0.5])).sample((n,)).tolist())
    assert (s.sum(-1) == 10).all()
    np.testing.assert_allclose(s.mean(0), [2.0, 3.0, 5.0], atol=0.05)
    np.testing.assert_allclose(s.var(0), [1.6, 2.1, 2.5], rtol=0.05)
    s = np.asarray(D.OneHotCategorical(openreg.tensor([0.2, 0.3, 0.5])).sample((n,)).tolist())
    assert (s.sum(-1) == 1).all()
    np.testing.assert_allclose(s.mean(0), [0.2, 0.3, 0.5], atol=0.012)
    gmm = D.MixtureSameFamily(D.Categorical(openreg.tensor([0.3, 0.7])),
                              D.Normal(openreg.tensor([-1.0, 2.0]), openreg.tensor([0.5, 1.0])))
    s = np.asarray(gmm.sample((n,)).tolist())
    assert abs(s.mean() - 1.1) < 0.04 and abs(s.var() / gmm.variance.item() - 1) < 0.05
    r = np.asarray(D.RelaxedOneHotCategorical(openreg.tensor(0.1), openreg.tensor([0.2, 0.3, 0.5])).sample(
        (n,)).tolist())
    np.testing.assert_allclose(np.bincount(r.argmax(-1), minlength=3) / n, [0.2, 0.3, 0.5], atol=0.012)


def test_device_parameters_sample_on_the_device():
    dev = "privateuseone:0"
    for d in (D.Gamma(openreg.ones(2, device=dev), 2.0), D.Beta(openreg.ones(2, device=dev), 2.0),
              D.Dirichlet(openreg.ones(2, 3, device=dev)), D.StudentT(openreg.full((2,), 3.0, device=dev)),
              D.Poisson(openreg.ones(2, device=dev)), D.Binomial(5, openreg.full((2,), 0.3, device=dev)),
              D.Geometric(openreg.full((2,), 0.3, device=dev)), D.Multinomial(4, openreg.ones(2, 3, device=dev)),
              D.OneHotCategorical(openreg.ones(2, 3, device=dev))):
        x = d.sample((3,))
        assert x.device.type != "cpu" and d.log_prob(x).device.type != "cpu", type(d).__name__
    c = openreg.ones(3, device=dev, requires_grad=True)
    D.Gamma(c, 1.0).rsample().sum().backward()
    assert c.grad.device.type != "cpu"


def test_igamma_input_derivative_is_not_implemented():
    a = openreg.tensor([1.0, 2.0], requires_grad=True)
    y = openreg.igamma(a, openreg.tensor([1.0, 3.0]))
    with pytest.raises(RuntimeError, match="the derivative for 'igamma: input' is not implemented"):
        y.sum().backward()
