"""Parametrizations built on ``nn.utils.parametrize`` (``torch.nn.utils.parametrizations``): ``weight_norm``
(``original0 = g``, ``original1 = v``), ``spectral_norm`` (the power-iteration vectors are the buffers ``_u``
and ``_v`` of the parametrization) and ``orthogonal``, with PyTorch's state-dict keys.

>>> import openreg
>>> m = weight_norm(openreg.nn.Linear(3, 2))
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
>>> m = spectral_norm(openreg.nn.Linear(3, 2))
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v', 'parametrizations.weight.original']
"""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Parametrize ``module.<name>`` as ``g * v / ||v||`` (norm over every dimension but ``dim``; ``None``: the
    whole tensor). Checkpoints of the old ``weight_norm`` (``<name>_g``/``<name>_v``) load into it.

    >>> import openreg
    >>> m = weight_norm(openreg.nn.Linear(2, 3))
    >>> tuple(m.parametrizations.weight.original0.shape), tuple(m.parametrizations.weight.original1.shape)
    ((3, 1), (3, 2))
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(mod, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            with no_grad():
                weight_mat = self._reshape_weight_to_matrix(weight)
                h, w = weight_mat.size()
                u = weight_mat.new_empty(h).normal_(0, 1)
                v = weight_mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(weight_mat.matmul(self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(weight_mat.t().matmul(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * weight_mat.matmul(v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Parametrize ``module.<name>`` as itself divided by its largest singular value, estimated by power iteration
    (15 steps at registration, ``n_power_iterations`` per access while training).

    >>> import numpy as np
    >>> import openreg
    >>> m = spectral_norm(openreg.nn.Linear(4, 4, bias=False))
    >>> round(float(np.linalg.svd(m.weight.detach().numpy(), compute_uv=False).max()), 2)
    1.0
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _orthonormal_columns(A: Tensor) -> Tensor:
    """The Q of A's QR factorization with the signs that make R's diagonal positive."""
    import openreg
    X, tau = openreg.geqrf(A)
    return openreg.linalg.householder_product(X, tau) * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """The map from an unconstrained tensor to (a batch of) matrices with orthonormal columns (or rows, for wide
    matrices): the exponential or Cayley transform of a skew-symmetric matrix built from the lower triangle, or
    a product of Householder reflections. With ``use_trivialization`` the result multiplies a fixed orthogonal
    ``base`` (set by ``right_inverse``), so the optimized tensor starts at the identity's preimage."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        import openreg
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):       # a skew-symmetric n x n matrix from tril(X)
            X = X.tril()
            if n != k:
                X = openreg.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = openreg.matrix_exp(A)
            else:
                eye = openreg.eye(n, dtype=A.dtype, device=A.device)
                Q = openreg.linalg.solve(openreg.add(eye, A, alpha=-0.5), openreg.add(eye, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:       # Householder reflections from the strictly lower triangle, signs from the diagonal
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = openreg.linalg.householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    @no_grad()
    def right_inverse(self, Q: Tensor) -> Tensor:
        import openreg
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transposed = n < k
        if transposed:
            Q = Q.mT
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A, tau = openreg.geqrf(Q)        # Householder vectors whose diagonal carries the signs
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transposed else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _orthonormal_columns(Q)
        else:       # complete the columns to an orthogonal basis with random ones
            extra = openreg.randn(*(Q.shape[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _orthonormal_columns(openreg.cat([Q, extra], dim=-1))
        self.base = Q
        neg_eye = openreg.zeros_like(Q_init)      # the preimage of the identity: tril(-I) - tril(-I)^H = 0
        neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_eye


def _is_orthogonal(Q: Tensor) -> bool:
    import openreg
    n, k = Q.size(-2), Q.size(-1)
    eye = openreg.eye(k, dtype=Q.dtype, device=Q.device)
    return openreg.allclose(Q.mH @ Q, eye, atol=10.0 * n * openreg.finfo(Q.dtype).eps)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Parametrize ``module.<name>`` (a matrix or batch of matrices) to have orthonormal columns, or rows when it is
    wide. ``orthogonal_map``: ``"matrix_exp"`` (the default for square or complex matrices), ``"cayley"`` or
    ``"householder"`` (the default otherwise). The current weight is kept: with ``use_trivialization`` it
    becomes the fixed ``base`` that the map multiplies.

    >>> import openreg
    >>> m = orthogonal(openreg.nn.Linear(4, 3))
    >>> w = m.weight
    >>> bool(openreg.allclose(w @ w.T, openreg.eye(3), atol=1e-5)), sorted(m.state_dict())
    (True, ['bias', 'parametrizations.weight.0.base', 'parametrizations.weight.original'])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: '
                         f"{orthogonal_map}")
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization), unsafe=True)
    return module
