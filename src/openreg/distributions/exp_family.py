"""``ExponentialFamily``: distributions with density ``h(x) exp(<theta, t(x)> - F(theta))`` (PyTorch's base
class of Normal, Bernoulli, Exponential, Gamma, Beta, Dirichlet, Poisson). From the natural parameters
``theta`` and the log-normalizer ``F`` it gives the entropy and, between two members of one family, the KL
divergence as a Bregman divergence of ``F`` (gradients by autograd).

>>> import openreg
>>> from openreg.distributions import ExponentialFamily, Normal
>>> d = Normal(openreg.tensor([0.0]), openreg.tensor([2.0]))
>>> isinstance(d, ExponentialFamily), round(ExponentialFamily.entropy(d).item(), 4), round(d.entropy().item(), 4)
(True, 2.1121, 2.1121)
"""
from __future__ import annotations

import openreg

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give ``_natural_params`` (a tuple of tensors), ``_log_normalizer(*natural_params)`` and
    ``_mean_carrier_measure`` (``E[log h(x)]``)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """``F(theta) - <theta, grad F(theta)> - E[log h(x)]``."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        with openreg.enable_grad():
            log_norm = self._log_normalizer(*params)
            grads = openreg.autograd.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for p, g in zip(params, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
