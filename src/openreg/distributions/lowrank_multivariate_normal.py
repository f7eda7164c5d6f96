"""The multivariate normal with a low-rank-plus-diagonal covariance ``cov_factor @ cov_factor.mT +
diag(cov_diag)`` (``LowRankMultivariateNormal``), computed through the Woodbury identity and the capacitance
matrix ``I + W^T D^-1 W`` (reparameterizable).

>>> import openreg
>>> from openreg.distributions import LowRankMultivariateNormal
>>> d = LowRankMultivariateNormal(openreg.zeros(3), openreg.ones(3, 1), openreg.ones(3))
>>> d.event_shape, round(d.log_prob(openreg.zeros(3)).item(), 4)
(openreg.Size([3]), -3.45)
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .centered_at_loc import CenteredAtLoc
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(W, D):
    """The Cholesky factor of ``I + W^T D^-1 W``."""
    m = W.size(-1)
    K = openreg.matmul(W.mT / D.unsqueeze(-2), W)
    return openreg.linalg.cholesky(K + openreg.eye(m, dtype=W.dtype, device=W.device))


def _lowrank_logdet(W, D, capacitance_tril):
    """``log det(W W^T + D)`` by the matrix determinant lemma."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _lowrank_mahalanobis(W, D, x, capacitance_tril):
    """``x^T (W W^T + D)^-1 x`` by the Woodbury identity."""
    wt_dinv_x = _batch_mv(W.mT / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, wt_dinv_x)


class LowRankMultivariateNormal(CenteredAtLoc, Distribution):
    """Gaussian over vectors with mean ``loc`` and covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real_vector,
                                       "cov_factor": constraints.independent(constraints.real, 2),
                                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {openreg.Size(event_shape)}")
        try:
            loc_, self.cov_factor, cov_diag_ = openreg.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                         cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LowRankMultivariateNormal, batch_shape, _instance, ("loc", "cov_diag"),
                             shared=("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag", "_capacitance_tril"))
        new.cov_factor = self.cov_factor.expand(tuple(batch_shape) + tuple(self.cov_factor.shape[-2:]))
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        # L = sqrt(D) chol(I + D^-1/2 W W^T D^-1/2): lower triangular with L L^T = W W^T + D
        n = self._event_shape[0]
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / sqrt_d
        K = openreg.matmul(scaled, scaled.mT) + openreg.eye(n, dtype=sqrt_d.dtype, device=sqrt_d.device)
        return (sqrt_d * openreg.linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (openreg.matmul(W, W.mT) + openreg.diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # (W W^T + D)^-1 = D^-1 - D^-1 W C^-1 W^T D^-1 with C = I + W^T D^-1 W = L_C L_C^T
        wt_dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = openreg.linalg.solve(self._capacitance_tril, wt_dinv)
        precision = openreg.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - openreg.matmul(A.mT, A)
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        w_shape = shape[:-1] + tuple(self.cov_factor.shape[-1:])
        eps_w = _standard_normal(w_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_d = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_w)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        m = _lowrank_mahalanobis(W, D, value - self.loc, self._capacitance_tril)
        log_det = _lowrank_logdet(W, D, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + m)

    def entropy(self):
        log_det = _lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                  self._capacitance_tril)
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
