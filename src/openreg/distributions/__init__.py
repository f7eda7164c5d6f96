"""Probability distributions with PyTorch's ``torch.distributions`` API: ``Normal``, ``Categorical``,
``Bernoulli``, ``Uniform``, ``Independent``, ``kl_divergence``/``register_kl`` and ``constraints``.

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

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "Normal", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
