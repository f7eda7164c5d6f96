"""Probability distributions with PyTorch's ``torch.distributions`` API: ``Normal``, ``MultivariateNormal``,
``Categorical``, ``Bernoulli``, ``Uniform``, ``Exponential``, ``Laplace``, ``Cauchy``, ``Gumbel``,
``LogNormal``, ``HalfNormal``, ``StudentT``, ``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet``, ``Poisson``,
``Binomial``, ``Geometric``, ``Multinomial``, ``OneHotCategorical``, ``MixtureSameFamily``, the relaxed
(Gumbel-softmax) categorical and Bernoulli, ``Independent``, ``TransformedDistribution`` with the ``transforms`` module,
``kl_divergence``/``register_kl`` and ``constraints``.

Sampling draws through openreg's generators (``openreg.manual_seed``); ``rsample``, ``log_prob``, ``entropy``
and ``kl_divergence`` are written with differentiable tensor ops, so gradients flow to the parameters.

>>> import openreg
>>> from openreg.distributions import Categorical
>>> _ = openreg.manual_seed(0)
>>> m = Categorical(probs=openreg.tensor([[0.2, 0.8]]))
>>> action = m.sample()
>>> action.shape, m.log_prob(action).shape
(openreg.Size([1]), openreg.Size([1]))
"""
from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from .student_t import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ComposeTransform", "Dirichlet", "Distribution", "ExpRelaxedCategorical", "ExpTransform",
           "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal", "Independent", "IndependentTransform",
           "Laplace", "LogNormal", "LogitRelaxedBernoulli", "LowerCholeskyTransform", "MixtureSameFamily",
           "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Poisson", "PowerTransform", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
           "StickBreakingTransform", "StudentT", "TanhTransform", "Transform", "TransformedDistribution",
           "Uniform", "constraints", "identity_transform", "kl_divergence", "register_kl", "transforms"]
