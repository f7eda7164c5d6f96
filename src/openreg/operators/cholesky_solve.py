"""``cholesky_solve`` and ``cholesky_inverse``: systems and inverses of ``A = L L^H`` (or ``U^H U``) given the
Cholesky factor, as two triangular solves. Both are compositions of differentiable operators (``linalg_solve`` of
the triangle of the factor), so they have gradients with respect to the right-hand side and the factor.
"""
from __future__ import annotations

from .._dispatch.ops import A
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _kind(t) -> str:
    return t._dtype.scalar_name


def _check_factor(op: str, L) -> None:
    if L.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")
    if not (L._dtype.is_floating_point or L._dtype.is_complex):
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'{_kind(L)}\'')


def _solve_with_factor(B, L, upper: bool):
    """``A^-1 B`` for ``A = L L^H`` (``upper``: ``A = U^H U``): solve with the first triangle, then its adjoint."""
    # The values read only the factor's triangle (as LAPACK's potrs); the gradient is PyTorch's, the full matrix
    # -(G + G^H) L (not masked to the triangle), which is the gradient with respect to the whole factor.
    T = L + ((L.triu() if upper else L.tril()) - L).detach()
    TH = T.mT.conj() if T._dtype.is_complex else T.mT
    first, second = (TH, T) if upper else (T, TH)
    return A.linalg_solve(second, A.linalg_solve(first, B))


def _cholesky_solve(self, input2, upper=False):
    if self.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {self.dim()} dimensions instead")
    if input2.dim() < 2:
        raise RuntimeError(f"A should have at least 2 dimensions, but has {input2.dim()} dimensions instead")
    if self._dtype is not input2._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_kind(self)} and A of "
                           f"type {_kind(input2)} instead.")
    if input2.shape[-1] != input2.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {input2.shape[-2]} by "
                           f"{input2.shape[-1]} matrices")
    if input2.shape[-1] != self.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2.shape[-2]} by "
                           f"{input2.shape[-1]} but each b matrix is {self.shape[-2]} by {self.shape[-1]}")
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise NotImplementedError(f'"cholesky_solve_cpu" not implemented for \'{_kind(self)}\'')
    import openreg
    batch = list(openreg.broadcast_shapes(tuple(self.shape[:-2]), tuple(input2.shape[:-2])))
    B = self.expand(batch + list(self.shape[-2:]))
    L = input2.expand(batch + list(input2.shape[-2:]))
    return _solve_with_factor(B, L, upper)


def _cholesky_inverse(self, upper=False):
    _check_factor("cholesky_inverse", self)
    n = self.shape[-1]
    eye = A.eye(n, dtype=self._dtype, device=self.device).expand(list(self.shape))
    return _solve_with_factor(eye, self, upper)


cholesky_solve = Op("cholesky_solve", """
    cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor
    """, kernels={"cholesky_solve": {CIA: _cholesky_solve}},
    doc="""The solution ``X`` of ``A X = B`` given the Cholesky factor of ``A`` (``input2``: ``L`` with ``A = L L^H``,
    or ``U`` with ``A = U^H U`` when ``upper``); batch dimensions broadcast.

    >>> import openreg
    >>> L = openreg.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> openreg.cholesky_solve(openreg.tensor([[4.0], [3.0]]), L).tolist()
    [[0.5], [1.0]]
    """)

cholesky_inverse = Op("cholesky_inverse", """
    cholesky_inverse(Tensor self, bool upper=False) -> Tensor
    """, kernels={"cholesky_inverse": {CIA: _cholesky_inverse}},
    doc="""The inverse of ``A`` given its Cholesky factor (``L`` with ``A = L L^H``, or ``U`` with ``A = U^H U``
    when ``upper``).

    >>> import openreg
    >>> openreg.cholesky_inverse(openreg.tensor([[2.0, 0.0], [0.0, 0.5]])).tolist()
    [[0.25, 0.0], [0.0, 4.0]]
    """)

register(cholesky_solve, cholesky_inverse)
