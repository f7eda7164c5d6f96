"""``triangular_solve`` (deprecated in PyTorch for ``linalg.solve_triangular``): the solution of ``A X = b`` for a
triangular ``A`` (``A^T X = b`` when ``transpose``), with a copy of ``A``; differentiable through
``linalg.solve_triangular``.
"""
from __future__ import annotations

import warnings
from collections import namedtuple

from .._dispatch.ops import A
from ._record import Op, register

CIA = "CompositeImplicitAutograd"
_Result = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
_warned = [False]


def _triangular_solve(self, A_, upper=True, transpose=False, unitriangular=False):
    import openreg
    if self.dim() < 2 or A_.dim() < 2:
        which = "b" if self.dim() < 2 else "A"
        raise RuntimeError(f"torch.triangular_solve: The input tensor {which} must have at least 2 dimensions.")
    T = A_.mT if transpose else A_
    solution = openreg.linalg.solve_triangular(T, self, upper=upper != transpose, unitriangular=unitriangular)
    batch = list(openreg.broadcast_shapes(tuple(self.shape[:-2]), tuple(A_.shape[:-2])))
    return solution, A.clone(A_.expand(batch + list(A_.shape[-2:])))    # A at the broadcast batch shape


def triangular_solve(input, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False, *,
                     out=None):
    """``(solution, cloned_coefficient)``: ``X`` with ``A X = input`` (``A^T X = input`` when ``transpose``) for
    the upper (or lower) triangle of ``A``, and a copy of ``A``. Deprecated: use ``linalg.solve_triangular``."""
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
                      "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
                      "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
                      "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).",
                      UserWarning, stacklevel=2)
    if out is not None:
        raise NotImplementedError("openreg: triangular_solve(..., out=) is not implemented")
    return _Result(*_OPS.triangular_solve(input, A, upper, transpose, unitriangular))


_OPS = A        # ``A`` is also PyTorch's name of the coefficient argument in the function above


triangular_solve_op = Op("triangular_solve", """
    triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)
    """, kernels={"triangular_solve": {CIA: _triangular_solve}}, function=triangular_solve, method=triangular_solve,
    doc="""``(solution, cloned_coefficient)`` of a triangular system (deprecated; ``linalg.solve_triangular``).

    >>> import openreg, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = openreg.triangular_solve(openreg.ones(2, 1), openreg.tensor([[2.0, 1.0], [0.0, 1.0]]))
    >>> r.solution.tolist()
    [[0.0], [1.0]]
    """)

register(triangular_solve_op)
