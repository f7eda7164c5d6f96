"""The multivariate normal distribution ``MultivariateNormal(loc, covariance_matrix | precision_matrix |
scale_tril)`` (reparameterizable), kept internally as the Cholesky factor of the covariance.

>>> import openreg
>>> from openreg.distributions import MultivariateNormal
>>> d = MultivariateNormal(openreg.zeros(2), covariance_matrix=openreg.tensor([[2.0, 0.5], [0.5, 1.0]]))
>>> d.batch_shape, d.event_shape, d.rsample((3,)).shape
(openreg.Size([]), openreg.Size([2]), openreg.Size([3, 2]))
>>> round(d.log_prob(openreg.zeros(2)).item(), 4)
-2.1177
"""
from __future__ import annotations

import math
from typing import ClassVar

import openreg

from . import constraints
from .centered_at_loc import CenteredAtLoc
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products broadcast over the leading dimensions."""
    return openreg.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^{-1} x`` for lower-triangular ``L``, broadcast over the leading dimensions."""
    n = bx.shape[-1]
    batch = openreg.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = bL.expand(tuple(batch) + (n, n))
    x = bx.expand(tuple(batch) + (n,))
    solved = openreg.linalg.solve(L, x.unsqueeze(-1)).squeeze(-1)
    return solved.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^{-1}`` without inverting ``P`` first: factor ``P`` with its rows and
    columns reversed, so that reversing back gives an upper factor ``U`` with ``P = U U^T``; then
    ``P^{-1} = U^{-T} U^{-1}`` and ``U^{-T}`` is lower triangular."""
    flipped = openreg.linalg.cholesky(P.flip((-2, -1)))
    upper = flipped.flip((-2, -1))
    eye = openreg.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return openreg.linalg.solve(upper, eye.expand_as(upper)).mT


class MultivariateNormal(CenteredAtLoc, Distribution):
    """Gaussian over vectors with mean ``loc`` and exactly one of ``covariance_matrix``, ``precision_matrix``
    or ``scale_tril`` (a lower-triangular factor with positive diagonal); batch dimensions broadcast."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real_vector,
                                       "covariance_matrix": constraints.positive_definite,
                                       "precision_matrix": constraints.positive_definite,
                                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is None:
                continue
            if matrix.dim() < 2:
                raise ValueError(f"{'scale_tril matrix' if name == 'scale_tril' else name} must be at least two-dimensional, with optional leading batch "
                                 f"dimensions")
            batch_shape = openreg.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
            setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = openreg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(MultivariateNormal, batch_shape, _instance, ("loc",),
                             shared=("_unbroadcasted_scale_tril",))
        matrix_shape = tuple(batch_shape) + tuple(self.event_shape) * 2
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return openreg.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = openreg.eye(L.shape[-1], dtype=L.dtype, device=L.device)
        inv = openreg.linalg.solve(L, eye.expand_as(L))
        return openreg.matmul(inv.mT, inv).expand(self._matrix_shape())

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                    tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
