"""openreg.distributions against torch.distributions: values, shapes, validation errors (PyTorch's ValueError
wording), gradients through log_prob/rsample/entropy/kl_divergence, sampling through openreg's generators, and
the REINFORCE / VAE patterns real programs use."""
from __future__ import annotations

import math

import numpy as np
import pytest

import openreg
from openreg import distributions as D
from openreg.autograd import gradcheck

CASES = {
    "normal_bad_scale": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., -1])),
    "normal_repr": lambda t, d: d.Normal(0., 1.),
    "normal_value_not_tensor": lambda t, d: d.Normal(t.zeros(2), 1.).log_prob([1.]),
    "normal_value_shape": lambda t, d: d.Normal(t.zeros(2), 1.).log_prob(t.zeros(3)),
    "normal_log_prob": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).log_prob(t.tensor([[0.5], [1.5]])),
    "normal_entropy": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).entropy(),
    "normal_cdf": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).cdf(t.tensor([0.5, 0.2])),
    "normal_stddev": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).stddev,
    "normal_variance": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).variance,
    "normal_batch_shape": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).batch_shape,
    "normal_rsample_shape": lambda t, d: d.Normal(t.tensor([0., 1]), t.tensor([1., 2])).rsample((3,)).shape,
    "normal_expand": lambda t, d: d.Normal(0., 1.).expand((3,)).batch_shape,
    "normal_no_validation": lambda t, d: d.Normal(t.zeros(2), 1., validate_args=False).log_prob(t.zeros(3)),
    "categorical_normalizes": lambda t, d: d.Categorical(t.tensor([0.5, 0.7])).probs,
    "categorical_bad_probs": lambda t, d: d.Categorical(t.tensor([0.5, -0.7])),
    "categorical_out_of_support": lambda t, d: d.Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor(2)),
    "categorical_both": lambda t, d: d.Categorical(t.tensor([0.5, 0.5]), logits=t.tensor([0.5, 0.5])),
    "categorical_log_prob_broadcast": lambda t, d: d.Categorical(
        logits=t.tensor([[0.5, 0.1, -2], [1, 2, 3]])).log_prob(t.tensor([[0], [2]])),
    "categorical_log_prob": lambda t, d: d.Categorical(logits=t.tensor([[0.5, 0.1, -2], [1, 2, 3]])).log_prob(
        t.tensor([0, 2])),
    "categorical_entropy": lambda t, d: d.Categorical(logits=t.tensor([[0.5, 0.1, -2], [1, 2, 3]])).entropy(),
    "categorical_entropy_zero_prob": lambda t, d: d.Categorical(
        probs=t.tensor([[0.5, 0.5, 0], [0.1, 0.2, 0.7]])).entropy(),
    "categorical_logits": lambda t, d: d.Categorical(probs=t.tensor([[0.5, 0.5, 0], [0.1, 0.2, 0.7]])).logits,
    "categorical_sample_shape": lambda t, d: d.Categorical(logits=t.zeros(2, 3)).sample((4,)).shape,
    "categorical_enumerate": lambda t, d: d.Categorical(logits=t.zeros(2, 3)).enumerate_support(),
    "categorical_mean": lambda t, d: d.Categorical(logits=t.zeros(2, 3)).mean,
    "categorical_mode": lambda t, d: d.Categorical(logits=t.tensor([[0., 1, 0]])).mode,
    "categorical_support": lambda t, d: d.Categorical(logits=t.zeros(3)).support,
    "categorical_constraints": lambda t, d: d.Categorical(logits=t.zeros(3)).arg_constraints,
    "categorical_repr": lambda t, d: d.Categorical(logits=t.zeros(2, 3)),
    "categorical_no_rsample": lambda t, d: d.Categorical(logits=t.zeros(3)).rsample(),
    "bernoulli_bad_probs": lambda t, d: d.Bernoulli(t.tensor([0.5, 1.5])),
    "bernoulli_out_of_support": lambda t, d: d.Bernoulli(t.tensor([0.5])).log_prob(t.tensor([0.5])),
    "bernoulli_log_prob": lambda t, d: d.Bernoulli(t.tensor([0.2, 0.9])).log_prob(t.tensor([1., 0.])),
    "bernoulli_logits_log_prob": lambda t, d: d.Bernoulli(logits=t.tensor([0.2, -3.])).log_prob(t.tensor([1., 0.])),
    "bernoulli_entropy": lambda t, d: d.Bernoulli(t.tensor([0.2, 0.9, 0., 1.])).entropy(),
    "bernoulli_mode": lambda t, d: d.Bernoulli(t.tensor([0.2, 0.5])).mode,
    "bernoulli_variance": lambda t, d: d.Bernoulli(t.tensor([0.2, 0.5])).variance,
    "bernoulli_logits": lambda t, d: d.Bernoulli(t.tensor([0.2, 0.5])).logits,
    "bernoulli_constraints": lambda t, d: d.Bernoulli(logits=t.zeros(3)).arg_constraints,
    "bernoulli_scalar_shape": lambda t, d: d.Bernoulli(0.3).sample((5,)).shape,
    "uniform_low_above_high": lambda t, d: d.Uniform(1., 0.),
    "uniform_out_of_support": lambda t, d: d.Uniform(0., 1.).log_prob(t.tensor(2.)),
    "uniform_repr": lambda t, d: d.Uniform(t.zeros(2), 1.),
    "uniform_log_prob": lambda t, d: d.Uniform(t.tensor([0., 1]), 3.).log_prob(t.tensor([0.5, 2.5])),
    "uniform_entropy": lambda t, d: d.Uniform(t.tensor([0., 1]), 3.).entropy(),
    "uniform_cdf": lambda t, d: d.Uniform(t.tensor([0., 1]), 3.).cdf(t.tensor([0.5, 2.5])),
    "uniform_support": lambda t, d: d.Uniform(0., 1.).support,
    "independent_repr": lambda t, d: d.Independent(d.Normal(t.zeros(2, 3), 1.), 1),
    "independent_too_many": lambda t, d: d.Independent(d.Normal(t.zeros(2, 3), 1.), 3),
    "independent_log_prob": lambda t, d: d.Independent(d.Normal(t.zeros(2, 3), 1.), 1).log_prob(t.ones(2, 3)),
    "independent_entropy": lambda t, d: d.Independent(d.Normal(t.zeros(2, 3), 1.), 2).entropy(),
    "independent_support": lambda t, d: d.Independent(d.Normal(t.zeros(2, 3), 1.), 1).support,
    "independent_event_shape": lambda t, d: d.Independent(d.Normal(t.zeros(2, 3), 1.), 1).event_shape,
    "kl_normal_uniform": lambda t, d: d.kl_divergence(d.Normal(0., 1.), d.Uniform(0., 1.)),
    "kl_uniform_normal": lambda t, d: d.kl_divergence(d.Uniform(0., 1.), d.Normal(0., 1.)),
    "kl_normal": lambda t, d: d.kl_divergence(d.Normal(t.tensor([0., 1]), t.tensor([1., 2])),
                                              d.Normal(t.tensor([0.5]), t.tensor([3.]))),
    "kl_categorical": lambda t, d: d.kl_divergence(d.Categorical(t.tensor([[0.5, 0.5, 0.], [0.1, 0.2, 0.7]])),
                                                   d.Categorical(t.tensor([0.3, 0.3, 0.4]))),
    "kl_categorical_inf": lambda t, d: d.kl_divergence(d.Categorical(t.tensor([0.5, 0.5, 0.])),
                                                       d.Categorical(t.tensor([0.3, 0., 0.7]))),
    "kl_bernoulli": lambda t, d: d.kl_divergence(d.Bernoulli(t.tensor([0.5, 0., 1., 0.3])),
                                                 d.Bernoulli(t.tensor([0.25, 0.5, 0.5, 0.]))),
    "kl_uniform": lambda t, d: d.kl_divergence(d.Uniform(0., 1.), d.Uniform(-1., 2.)),
    "kl_independent": lambda t, d: d.kl_divergence(d.Independent(d.Normal(t.zeros(2, 3), 1.), 1),
                                                   d.Independent(d.Normal(t.ones(2, 3), 2.), 1)),
}


def _outcome(lib, dists, fn):
    try:
        r = fn(lib, dists)
    except Exception as e:  # noqa: BLE001 - the outcome (value or error) is what is compared
        return type(e).__name__, str(e).replace("torch.", "openreg.")
    if isinstance(r, lib.Tensor):
        return "tensor", np.asarray(r.detach().tolist(), dtype=float), str(r.dtype).split(".")[-1], tuple(r.shape)
    return "value", str(r).replace("torch.", "openreg.")


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    theirs = _outcome(torch, torch.distributions, CASES[case])
    ours = _outcome(openreg, D, CASES[case])
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "tensor":
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-6)
        assert ours[2:] == theirs[2:]
    elif ours[0] == "value":
        assert ours == theirs
    else:   # the same error; the printed values may space their signs differently
        assert ours[1].split("found invalid values")[0] == theirs[1].split("found invalid values")[0]


def _double(*values):
    return [openreg.tensor(v, dtype=openreg.float64, requires_grad=True) for v in values]


@pytest.mark.parametrize(("name", "fn", "inputs"), [
    ("normal_log_prob", lambda loc, sc: D.Normal(loc, sc).log_prob(openreg.tensor([0.5, 0.1], dtype=openreg.float64)),
     ([0.1, -0.3], [1.0, 2.0])),
    ("normal_entropy", lambda loc, sc: D.Normal(loc, sc).entropy() + loc, ([0.1, -0.3], [1.0, 2.0])),
    ("normal_kl", lambda l1, s1, l2, s2: D.kl_divergence(D.Normal(l1, s1), D.Normal(l2, s2)),
     ([0.1, -0.3], [1.0, 2.0], [0.5, 0.0], [0.7, 1.5])),
    ("categorical_log_prob", lambda p: D.Categorical(p).log_prob(openreg.tensor([1, 2])), ([0.2, 0.5, 0.3],)),
    ("categorical_entropy", lambda logits: D.Categorical(logits=logits).entropy(), ([0.2, -0.5, 0.3],)),
    ("categorical_kl", lambda a, b: D.kl_divergence(D.Categorical(logits=a), D.Categorical(logits=b)),
     ([0.2, -0.5, 0.3], [0.0, 1.0, -1.0])),
    ("bernoulli_log_prob", lambda p: D.Bernoulli(p).log_prob(openreg.tensor([1., 0.], dtype=openreg.float64)),
     ([0.2, 0.7],)),
    ("bernoulli_entropy", lambda p: D.Bernoulli(p).entropy(), ([0.2, 0.7],)),
    ("bernoulli_kl", lambda p, q: D.kl_divergence(D.Bernoulli(p), D.Bernoulli(q)), ([0.2, 0.7], [0.5, 0.4])),
    ("uniform_log_prob", lambda lo, hi: D.Uniform(lo, hi).log_prob(openreg.tensor([1.5, 2.5], dtype=openreg.float64)),
     ([0.0, 1.0], [2.0, 3.0])),
    ("independent_log_prob", lambda loc, sc: D.Independent(D.Normal(loc, sc), 1).log_prob(
        openreg.zeros(2, 2, dtype=openreg.float64)), ([[0.1, -0.3], [0.2, 0.0]], [[1.0, 2.0], [0.5, 0.7]])),
])
def test_gradients_flow(name, fn, inputs):
    assert gradcheck(fn, _double(*inputs))


def test_rsample_is_reparameterized_and_sample_is_not():
    loc, scale = _double([0.5], [2.0])
    openreg.manual_seed(0)
    x = D.Normal(loc, scale).rsample((4000,))
    x.mean().backward()
    assert loc.grad.item() == pytest.approx(1.0)
    assert abs(scale.grad.item()) < 0.1          # d mean(loc + eps * scale) / d scale = mean(eps) ~ 0
    assert not D.Normal(loc, scale).sample((3,)).requires_grad
    low, high = _double([0.0], [2.0])
    u = D.Uniform(low, high).rsample((10,))
    u.sum().backward()
    assert low.grad.item() + high.grad.item() == pytest.approx(10.0)


def test_sampling_is_seeded_and_matches_the_distribution():
    openreg.manual_seed(3)
    a = D.Categorical(probs=openreg.tensor([0.1, 0.2, 0.7])).sample((20000,))
    openreg.manual_seed(3)
    b = D.Categorical(probs=openreg.tensor([0.1, 0.2, 0.7])).sample((20000,))
    assert a.tolist() == b.tolist() and a.dtype == openreg.int64
    freq = np.bincount(np.asarray(a.tolist()), minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.02)
    n = D.Normal(openreg.tensor([1.0]), openreg.tensor([3.0])).sample((20000,))
    assert n.mean().item() == pytest.approx(1.0, abs=0.1) and n.std().item() == pytest.approx(3.0, abs=0.1)
    bern = D.Bernoulli(openreg.tensor([0.3])).sample((20000,))
    assert bool(((bern == 0) | (bern == 1)).all()) and bern.mean().item() == pytest.approx(0.3, abs=0.02)


def test_device_parameters_sample_on_the_device():
    dev = "privateuseone:0"
    d = D.Categorical(logits=openreg.zeros(2, 3, device=dev))
    s = d.sample()
    assert s.device.type != "cpu" and d.log_prob(s).device.type != "cpu"
    assert D.Normal(openreg.zeros(2, device=dev), 1.0).rsample().device.type != "cpu"


def test_reinforce_pattern_matches_pytorch_gradients():
    """``Categorical(probs).log_prob(action) * -R`` summed: the policy-gradient loss of reinforce.py."""
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 2))
    states = rng.normal(size=(5, 4)).astype(np.float32)
    actions, returns = [0, 1, 1, 0, 1], [1.0, -0.5, 0.3, 2.0, -1.0]
    grads = []
    for lib, dists in ((torch, torch.distributions), (openreg, D)):
        weight = lib.tensor(w, dtype=lib.float32, requires_grad=True)
        losses = []
        for s, a, r in zip(states, actions, returns):
            probs = lib.softmax(lib.tensor(s).unsqueeze(0) @ weight, dim=1)
            m = dists.Categorical(probs)
            losses.append(-m.log_prob(lib.tensor([a])) * r)
        lib.cat(losses).sum().backward()
        grads.append(np.asarray(weight.grad.tolist()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_vae_pattern_rsample_and_kl():
    mu, log_var = _double([[0.3, -0.2]], [[0.1, -0.4]])
    std = (0.5 * log_var).exp()
    q = D.Normal(mu, std)
    z = q.rsample()
    kl = D.kl_divergence(q, D.Normal(openreg.zeros_like(mu), openreg.ones_like(std))).sum()
    closed = -0.5 * (1 + log_var - mu.pow(2) - log_var.exp()).sum()
    assert kl.item() == pytest.approx(closed.item())
    (kl + z.sum()).backward()
    assert mu.grad is not None and log_var.grad is not None


def test_kl_without_a_formula_names_the_types():
    with pytest.raises(NotImplementedError, match="Categorical and q type Normal"):
        D.kl_divergence(D.Categorical(openreg.tensor([0.5, 0.5])), D.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="different exponential families"):   # both ExponentialFamily
        D.kl_divergence(D.Bernoulli(0.5), D.Normal(0.0, 1.0))


def test_validation_switches():
    D.Distribution.set_default_validate_args(False)
    try:
        assert math.isnan(D.Normal(0.0, -1.0).scale.log().item())
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="GreaterThan"):
        D.Normal(0.0, -1.0)
