"""``kl_divergence(p, q)``: KL(p || q) from a registry of closed forms keyed by the two distribution types
(``register_kl``), as PyTorch's ``torch.distributions.kl``; the most specific registered pair is used.

>>> import openreg
>>> from openreg.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)).item()
0.5
"""
from __future__ import annotations

import functools
import math

import openreg
from openreg.nn import functional as F

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER_GAMMA, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for instances of ``type_p`` and ``type_q``."""
    if not (isinstance(type_p, type) and isinstance(type_q, type)):
        raise TypeError(f"Expected type_p and type_q to be Distribution subclasses but got {type_p} and {type_q}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


def _lookup(type_p, type_q):
    matches = [(tp, tq) for tp, tq in _KL_REGISTRY if issubclass(type_p, tp) and issubclass(type_q, tq)]
    if not matches:
        return None
    return _KL_REGISTRY[min(matches, key=lambda m: (type_p.__mro__.index(m[0]), type_q.__mro__.index(m[1])))]


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape.

    >>> import openreg
    >>> from openreg.distributions import Bernoulli, kl_divergence
    >>> round(kl_divergence(Bernoulli(0.5), Bernoulli(0.25)).item(), 4)
    0.1438
    """
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fn(p, q)


def _infinite_where(t, cond):
    return t.masked_fill(cond, float("inf"))


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _infinite_where(t, (q.probs == 0).expand_as(t))
    t = t.masked_fill((p.probs == 0).expand_as(t), 0)
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = _infinite_where(t1, q.probs == 0).masked_fill(p.probs == 0, 0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = _infinite_where(t2, q.probs == 1).masked_fill(p.probs == 1, 0)
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _infinite_where(result, (q.low > p.low) | (q.high < p.high))


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p, q):
    return openreg.full_like(p.loc, math.inf)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          len(p.event_shape) - len(p.base_dist.event_shape))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * (-gap / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log())


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return -ratio.log() + shift + ratio * _EULER_GAMMA + (openreg.lgamma(1 + ratio) - shift).exp() \
        - (1 + _EULER_GAMMA)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    gap = p.loc - q.loc
    z = gap / p.scale
    expected_abs = math.sqrt(2 / math.pi) * p.scale * (-0.5 * z.pow(2)).exp() + gap * openreg.erf(z / math.sqrt(2))
    return -(p.scale / q.scale).log() + expected_abs / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    return (-0.5 * var_ratio.log() + mean_ratio - loc_ratio + (-mean_ratio + 0.5 * var_ratio + loc_ratio).exp()
            - 0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    second_moment = (math.pi * ratio).pow(2) / 6 + ((p.loc + p.scale * _EULER_GAMMA - q.loc) / q.scale).pow(2)
    return -(ratio / math.sqrt(2 * math.pi)).log() + 0.5 * second_moment - (_EULER_GAMMA + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var = q.scale.pow(2)
    second_moment = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -1 - (2 * p.scale).log() + 0.5 * (2 * math.pi * var).log() + second_moment / (2 * var)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    return 0.5 * (rate2 * var * 2 * math.pi).log() - 1 + (rate2.reciprocal() - q.loc / p.rate
                                                         + 0.5 * q.loc.pow(2)) / var


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return prod.log() - 1 - loc_ratio + loc_ratio.exp() * prod / (prod + 1) + prod.reciprocal()


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _infinite_where(result, p.low < 0)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    width = p.high - p.low
    mean_exp = (q.scale / width) * ((q.loc - p.low) / q.scale).exp() * (-(width / q.scale)).expm1().neg()
    return (q.scale / width).log() - (q.loc - (p.high + p.low) / 2) / q.scale + mean_exp


def _kl_infinite(p, q):
    """The support of ``p`` reaches where ``q``'s density is zero."""
    return openreg.full(tuple(p.batch_shape), math.inf, dtype=p.mean.dtype, device=p.mean.device)


for _p, _q in ((Normal, Exponential), (Gumbel, Exponential), (Laplace, Exponential), (Exponential, Uniform),
               (Gumbel, Uniform), (Laplace, Uniform)):
    register_kl(_p, _q)(_kl_infinite)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * (p.rate / q.rate).log() + openreg.lgamma(q.concentration)
            - openreg.lgamma(p.concentration) + (p.concentration - q.concentration) * openreg.digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    p_total = p.concentration1 + p.concentration0
    q_total = q.concentration1 + q.concentration0
    return (openreg.lgamma(q.concentration1) + openreg.lgamma(q.concentration0) + openreg.lgamma(p_total)
            - openreg.lgamma(p.concentration1) - openreg.lgamma(p.concentration0) - openreg.lgamma(q_total)
            + (p.concentration1 - q.concentration1) * openreg.digamma(p.concentration1)
            + (p.concentration0 - q.concentration0) * openreg.digamma(p.concentration0)
            + (q_total - p_total) * openreg.digamma(p_total))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    p_total = p.concentration.sum(-1)
    q_total = q.concentration.sum(-1)
    t2 = (openreg.lgamma(p.concentration) - openreg.lgamma(q.concentration)).sum(-1)
    t4 = openreg.digamma(p.concentration) - openreg.digamma(p_total).unsqueeze(-1)
    return openreg.lgamma(p_total) - openreg.lgamma(q_total) - t2 + ((p.concentration - q.concentration) * t4).sum(-1)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - openreg.log1p(-q.probs) / p.probs - q.logits


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _infinite_where(kl, p.total_count > q.total_count)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + openreg.lgamma(q.concentration)
            + q.concentration * _EULER_GAMMA - (1 + _EULER_GAMMA))


def _kl_to_normal(p, q):
    """KL(p || Normal) from p's entropy, mean and variance: ``E_p[-log q] = log(sqrt(2 pi) scale)
    + E_p[(x - loc)^2] / (2 scale^2)``."""
    var = q.scale.pow(2)
    return -p.entropy() + 0.5 * (2 * math.pi * var).log() + (p.variance + (p.mean - q.loc).pow(2)) / (2 * var)


def _kl_to_exponential(p, q):
    """KL(p || Exponential) from p's entropy and mean (``p`` on [0, 1])."""
    return -p.entropy() - q.rate.log() + q.rate * p.mean


def _kl_unit_interval_to_uniform(p, q):
    """KL(p || Uniform) for ``p`` on [0, 1]: infinite unless q's interval covers it."""
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where(result, (q.low > 0) | (q.high < 1))


for _p in (Gamma, Beta, ContinuousBernoulli):
    register_kl(_p, Normal)(_kl_to_normal)
for _p in (Beta, ContinuousBernoulli):
    register_kl(_p, Exponential)(_kl_to_exponential)
    register_kl(_p, Uniform)(_kl_unit_interval_to_uniform)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    mean_exp = (q.loc / q.scale).exp() * (1 + 1 / (p.rate * q.scale)).pow(-p.concentration)
    return -p.entropy() + q.scale.log() - (q.loc - p.concentration / p.rate) / q.scale + mean_exp


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    total = p.concentration1 + p.concentration0
    mean_log = openreg.digamma(p.concentration1) - openreg.digamma(total)
    return (-p.entropy() - q.concentration * q.rate.log() + openreg.lgamma(q.concentration)
            - (q.concentration - 1) * mean_log + q.rate * p.mean)


def _uniform_mean_log(p):
    """``E[log x]`` for ``x ~ Uniform(low, high)``, ``low >= 0``: ``(h log h - l log l) / (h - l) - 1``."""
    return (openreg.xlogy(p.high, p.high) - openreg.xlogy(p.low, p.low)) / (p.high - p.low) - 1


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    mean_log = _uniform_mean_log(p)
    result = (-width.log() - q.concentration * q.rate.log() + openreg.lgamma(q.concentration)
              - (q.concentration - 1) * mean_log + q.rate * (p.high + p.low) / 2)
    return _infinite_where(result, p.low < 0)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    mean_log = _uniform_mean_log(p)
    one_minus_high, one_minus_low = 1 - p.high, 1 - p.low
    mean_log1m = (openreg.xlogy(one_minus_low, one_minus_low) - openreg.xlogy(one_minus_high, one_minus_high)) \
        / width - 1
    log_beta = openreg.lgamma(q.concentration1) + openreg.lgamma(q.concentration0) \
        - openreg.lgamma(q.concentration1 + q.concentration0)
    result = (-width.log() + log_beta - (q.concentration1 - 1) * mean_log
              - (q.concentration0 - 1) * mean_log1m)
    return _infinite_where(result, (p.low < 0) | (p.high > 1))


for _p, _q in ((Normal, Beta), (Normal, Gamma), (Gumbel, Beta), (Gumbel, Gamma), (Laplace, Beta),
               (Laplace, Gamma), (Exponential, Beta), (Gamma, Beta), (Gamma, Uniform), (Poisson, Bernoulli),
               (Poisson, Binomial)):
    register_kl(_p, _q)(_kl_infinite)


def _gaussian_factor(d):
    return d._unbroadcasted_scale_tril if isinstance(d, MultivariateNormal) else d.scale_tril


def _kl_gaussians(p, q, message: str):
    if p.event_shape != q.event_shape:
        raise ValueError(message)
    p_l, q_l = _gaussian_factor(p), _gaussian_factor(q)
    half_log_det_ratio = (q_l.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                          - p_l.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    batch = tuple(openreg.broadcast_shapes(tuple(q_l.shape[:-2]), tuple(p_l.shape[:-2])))
    trace = openreg.linalg.solve(q_l.expand(batch + (n, n)), p_l.expand(batch + (n, n))).pow(2).sum((-2, -1))
    return half_log_det_ratio + 0.5 * (trace + _batch_mahalanobis(q_l, q.loc - p.loc) - n)


for _p, _q, _kinds in ((MultivariateNormal, MultivariateNormal, "Multivariate Normals"),
                       (LowRankMultivariateNormal, LowRankMultivariateNormal, "Low Rank Multivariate Normals"),
                       (MultivariateNormal, LowRankMultivariateNormal, "(Low Rank) Multivariate Normals"),
                       (LowRankMultivariateNormal, MultivariateNormal, "(Low Rank) Multivariate Normals")):
    register_kl(_p, _q)(functools.partial(_kl_gaussians, message=f"KL-divergence between two {_kinds} with "
                                                                  f"different event shapes cannot be computed"))


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normalizer between the natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    with openreg.enable_grad():
        log_norm = p._log_normalizer(*p_params)
        grads = openreg.autograd.grad(log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - log_norm
    for pp, qp, g in zip(p_params, q_params, grads):
        result = result - _sum_rightmost((qp - pp) * g, len(q.event_shape))
    return result


def _cb_expected_log_density(q, mean):
    """``E[log q(x)]`` for a continuous Bernoulli ``q`` under any ``x`` distribution with mean ``mean``."""
    return q._log_norm() + mean * q.probs.log() + (1 - mean) * openreg.log1p(-q.probs)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
@register_kl(Beta, ContinuousBernoulli)
def _kl_to_cb(p, q):
    """KL(p || ContinuousBernoulli) for ``p`` on [0, 1] from its entropy and mean."""
    return -p.entropy() - _cb_expected_log_density(q, p.mean)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p, q):
    result = -(p.high - p.low).log() - _cb_expected_log_density(q, (p.high + p.low) / 2)
    return _infinite_where(result, (p.low < 0) | (p.high > 1))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _infinite_where(result, p.scale < q.scale)


for _p, _q in ((Exponential, ContinuousBernoulli), (Gamma, ContinuousBernoulli), (Gumbel, ContinuousBernoulli),
               (Laplace, ContinuousBernoulli), (Normal, ContinuousBernoulli)):
    register_kl(_p, _q)(_kl_infinite)
