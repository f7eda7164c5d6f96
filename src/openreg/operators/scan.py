"""Scans: ``cumsum`` and ``cumprod`` along a dimension (integer and bool inputs accumulate in int64 unless
``dtype`` says otherwise, as PyTorch).

>>> import openreg
>>> openreg.tensor([1, 2, 3]).cumsum(0).tolist(), openreg.tensor([1.0, 2.0, 3.0]).cumprod(0).tolist()
([1, 3, 6], [1.0, 2.0, 6.0])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, wrap_dim
from ._compute import operand, quiet, xp_of
from ._record import Deriv, Op, register


def _scan_meta(op: str):
    def meta(self, dim, *, dtype=None) -> Spec:
        wrap_dim(dim, max(self.dim(), 1))
        d = dtype if dtype is not None else (_dt.int64 if not (self._dtype.is_floating_point or self._dtype.is_complex)
                                             else self._dtype)
        return Spec(self._size, d, self._storage.device, d)
    return meta


def _scan_compute(name: str):
    def compute(spec, self, dim, *, dtype=None):
        xp = xp_of(self)
        x = operand(self, spec, xp)
        if x.ndim == 0:
            return x.copy()
        work = x.astype(xp.float32) if spec.compute is _dt.float16 else x
        with quiet():
            return getattr(xp, name)(work, axis=wrap_dim(dim, x.ndim))
    return compute


def _reverse_cumsum(g, dim: int):
    """``flip(cumsum(flip(g)))`` as ``total - cumsum + g`` (no flip needed)."""
    return g.sum(dim, keepdim=True) - g.cumsum(dim) + g


def _cumsum_grad(g, a):
    if a.self.dim() == 0:
        return g
    return _reverse_cumsum(g, wrap_dim(a.dim, a.self.dim()))


cumsum = Op(
    "cumsum",
    """
    cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor  [core]
    cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
    cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)
    """,
    meta=_scan_meta("cumsum"), compute=_scan_compute("cumsum"),
    derivatives={"cumsum": Deriv(save="self dim", self=_cumsum_grad,
                                 jvp={"self": lambda t, a: A.cumsum(t, a.dim)})},
    doc="""Cumulative sum along ``dim``.

    >>> import openreg
    >>> openreg.cumsum(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]), 0).tolist()
    [[1.0, 2.0], [4.0, 6.0]]
    """,
)


def _cumprod_grad(g, a):
    x = a.self
    if x.dim() == 0:
        return g
    d = wrap_dim(a.dim, x.dim())
    if (x == 0).sum().item() == 0:
        return _reverse_cumsum(g * a.result, d) / x
    # zeros: grad_i = sum_{j >= i} g_j * prod_{k <= j, k != i} x_k, from the cumulative products of x with x_i
    # replaced by one (an n x n matrix per line; only taken when an input is exactly zero)
    xl, gl = x.movedim(d, -1), g.movedim(d, -1)
    n = xl.shape[-1]
    pos = A.arange(n, device=x.device)
    diag = pos.unsqueeze(-1) == pos.unsqueeze(0)
    rows = A.where__ScalarSelf(diag, 1.0, xl.unsqueeze(-2).expand(*xl.shape[:-1], n, n))
    upper = (pos.unsqueeze(0) >= pos.unsqueeze(-1)).to(g.dtype)
    grad = (rows.cumprod(-1) * gl.unsqueeze(-2) * upper).sum(-1)
    return grad.movedim(-1, d)


cumprod = Op(
    "cumprod",
    """
    cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor  [core]
    cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
    cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)
    """,
    meta=_scan_meta("cumprod"), compute=_scan_compute("cumprod"),
    derivatives={"cumprod": Deriv(save="self dim result", self=_cumprod_grad,
                                  jvp={"self": lambda t, a: _cumprod_jvp(t, a)})},
    doc="""Cumulative product along ``dim``.

    >>> import openreg
    >>> openreg.cumprod(openreg.tensor([2, 3, 4]), 0).tolist()
    [2, 6, 24]
    """,
)


def _cumprod_jvp(t, a):
    """d cumprod(x)_j = sum_{i <= j} t_i * prod_{k <= j, k != i} x_k (the transpose of the backward sum)."""
    x = a.self
    if x.dim() == 0:
        return t
    d = wrap_dim(a.dim, x.dim())
    xl, tl = x.movedim(d, -1), t.movedim(d, -1)
    n = xl.shape[-1]
    pos = A.arange(n, device=x.device)
    diag = pos.unsqueeze(-1) == pos.unsqueeze(0)
    rows = A.where__ScalarSelf(diag, 1.0, xl.unsqueeze(-2).expand(*xl.shape[:-1], n, n))
    upper = (pos.unsqueeze(0) >= pos.unsqueeze(-1)).to(t.dtype)
    out = (rows.cumprod(-1) * upper * tl.unsqueeze(-1)).sum(-2)
    return out.movedim(-1, d)


register(cumsum, cumprod)
