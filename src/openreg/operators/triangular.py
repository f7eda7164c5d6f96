"""Triangular parts of matrices: ``tril`` and ``triu`` over the last two dimensions (batched), with a
``diagonal`` offset.

>>> import openreg
>>> openreg.ones(3, 3).tril().tolist()
[[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import Spec
from ._compute import operand, xp_of
from ._record import Deriv, Op, register


def _meta(op: str):
    def meta(self, diagonal=0) -> Spec:
        if self.dim() < 2:
            raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
        return Spec(self._size, self._dtype, self._storage.device, self._dtype)
    return meta


def _compute(lower: bool):
    def compute(spec, self, diagonal=0):
        xp = xp_of(self)
        x = operand(self, spec, xp)
        r, c = x.shape[-2:]
        # Offsets beyond the matrix mean "keep all" or "keep none": clamp them so NumPy/CuPy never see an
        # int64 extreme (tri(..., k=-2**63) overflows a C long inside NumPy).
        diagonal = max(-r - 1, min(int(diagonal), c + 1))
        keep = xp.tri(r, c, diagonal, dtype=bool) if lower else ~xp.tri(r, c, diagonal - 1, dtype=bool)
        return xp.where(keep, x, xp.zeros((), dtype=x.dtype))
    return compute


def _schemas(name: str) -> str:
    return f"""
    {name}(Tensor self, SymInt diagonal=0) -> Tensor  [core]
    {name}.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)
    {name}_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)
    """


tril = Op("tril", _schemas("tril"), meta=_meta("tril"), compute=_compute(True),
          derivatives={"tril": Deriv(save="diagonal", linear=True,
                                     self=lambda g, a: A.tril(g, a.diagonal))},
          doc="""The lower triangle (``j <= i + diagonal``), zeros elsewhere.

    >>> import openreg
    >>> openreg.tril(openreg.ones(2, 2), -1).tolist()
    [[0.0, 0.0], [1.0, 0.0]]
    """)

triu = Op("triu", _schemas("triu"), meta=_meta("triu"), compute=_compute(False),
          derivatives={"triu": Deriv(save="diagonal", linear=True,
                                     self=lambda g, a: A.triu(g, a.diagonal))},
          doc="""The upper triangle (``j >= i + diagonal``), zeros elsewhere.

    >>> import openreg
    >>> openreg.triu(openreg.ones(2, 2), 1).tolist()
    [[0.0, 1.0], [0.0, 0.0]]
    """)

register(tril, triu)
