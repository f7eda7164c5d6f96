"""Matrix decompositions and functions, batched over leading dims: ``linalg_inv`` (``inverse``), ``linalg_det``
(``det``), ``linalg_slogdet`` (``slogdet``, ``logdet``), ``linalg_cholesky`` (``cholesky``), ``linalg_qr`` (``qr``),
``linalg_svd`` (``svd``, ``linalg_svdvals``), ``linalg_eigh`` (``linalg_eigvalsh``), ``linalg_solve``, and the
compositions ``linalg_pinv`` (``pinverse``), ``linalg_matrix_power`` (``matrix_power``), ``linalg_matrix_exp``
(``matrix_exp``).

The factorizations call the array module's LAPACK wrappers (``numpy.linalg`` on the CPU and the emulated device,
``cupy.linalg`` on the cuda driver) in float32/float64; their derivatives are the standard matrix-calculus formulas
written with tensor ops (so they are differentiable again): ``inv``: ``-A^-T g A^-T``; ``det``: ``g det A^-T``;
``cholesky``: ``L^-T Phi(L^T gL) L^-1`` symmetrized; ``qr`` (m >= n): Walter & Lehmann's; ``svd`` (reduced):
Townsend's; ``eigh``: ``V (diag(gL) + F * V^T gV) V^T``.

>>> import openreg
>>> a = openreg.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=openreg.float64)
>>> f"{openreg.linalg.det(a).item():.6f}", f"{openreg.linalg.cholesky(a)[1, 1].item() ** 2:.6f}"
('8.000000', '2.000000')
"""
from __future__ import annotations

import math
from collections import namedtuple

from .. import dtypes as _dt
from .._dispatch.ops import A
from .._linalg_error import LinAlgError
from ._nn_arrays import store, values, xp_of
from ._record import Deriv, Op, register

CIA = "CompositeImplicitAutograd"


def _check_matrix(op: str, a, square: bool = True) -> None:
    if a.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    d = a._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {d.scalar_name}")
    if d in (_dt.float16, _dt.bfloat16) or d.is_narrow_float:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {d.scalar_name}")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def _lapack(op: str, fn, *arrays):
    try:
        return fn(*arrays)
    except Exception as e:   # numpy/cupy LinAlgError: the factorization failed
        if type(e).__name__ != "LinAlgError":
            raise
        raise LinAlgError(f"{op}: {_FAILURES.get(op, 'the computation did not converge')} ({e})") from None


_FAILURES = {
    "linalg.inv": "The inversion could not be completed because the input matrix is singular.",
    "linalg.cholesky": "The factorization could not be completed because the input is not positive-definite.",
    "linalg.solve": "The solver failed because the input matrix is singular.",
}


def _out(arr, like):
    return store(arr, like._dtype, like.device)


def _t(x):
    return x.transpose(-2, -1)


# -- inverse, det, slogdet, logdet ----------------------------------------------------------------------------

def _linalg_inv(A_):
    _check_matrix("linalg.inv", A_)
    xp = xp_of(A_)
    return _out(_lapack("linalg.inv", xp.linalg.inv, values(A_)), A_)


linalg_inv = Op("linalg_inv", """
    linalg_inv(Tensor A) -> Tensor
    """, kernels={"linalg_inv": {"Backend": _linalg_inv}}, device=True,
    derivatives={"linalg_inv": Deriv(save="result", name="LinalgInvExBackward0",
                                     A=lambda g, a: -(_t(a.result) @ g @ _t(a.result)),
                                     jvp={"A": lambda t, a: -(a.result @ t @ a.result)})},
    function=False, method=False,
    doc="""The inverse of square matrices (``openreg.linalg.inv``).

    >>> import openreg
    >>> openreg.linalg.inv(openreg.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """)

inverse = Op("inverse", """
    inverse(Tensor self) -> Tensor
    """, kernels={"inverse": {CIA: lambda self: A.linalg_inv(self)}},
    doc="""The inverse of square matrices (``linalg.inv``).

    >>> import openreg
    >>> openreg.inverse(openreg.tensor([[2.0]])).item()
    0.5
    """)


def _linalg_det(A_):
    _check_matrix("linalg.det", A_)
    xp = xp_of(A_)
    return _out(xp.asarray(xp.linalg.det(values(A_))), A_)


def _det_grad(g, a):
    inv_t = _t(A.linalg_inv(a.A))
    return (g * a.result).unsqueeze(-1).unsqueeze(-1) * inv_t


def _det_jvp(t, a):
    inv = A.linalg_inv(a.A)
    return a.result * A.diagonal(inv @ t, 0, -2, -1).sum(-1)


linalg_det = Op("linalg_det", """
    linalg_det(Tensor A) -> Tensor
    """, kernels={"linalg_det": {"Backend": _linalg_det}}, device=True,
    derivatives={"linalg_det": Deriv(save="A result", A=_det_grad, jvp={"A": _det_jvp})},
    function=False, method=False,
    doc="""The determinant of square matrices (``openreg.linalg.det``).

    >>> import openreg
    >>> f"{openreg.linalg.det(openreg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=openreg.float64)).item():.6f}"
    '-2.000000'
    """)

det = Op("det", """
    det(Tensor self) -> Tensor
    """, kernels={"det": {CIA: lambda self: A.linalg_det(self)}},
    doc="""The determinant (``linalg.det``).

    >>> import openreg
    >>> openreg.det(openreg.eye(3)).item()
    1.0
    """)

_SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])


def _linalg_slogdet(A_):
    _check_matrix("linalg.slogdet", A_)
    xp = xp_of(A_)
    sign, logabs = xp.linalg.slogdet(values(A_))
    return _out(xp.asarray(sign), A_), _out(xp.asarray(logabs), A_)


def _slogdet_grad(g, a):
    if g[1] is None:
        return None
    return g[1].unsqueeze(-1).unsqueeze(-1) * _t(A.linalg_inv(a.A))


def _slogdet_jvp(t, a):
    return [None, A.diagonal(A.linalg_inv(a.A) @ t, 0, -2, -1).sum(-1)]


def _slogdet_fn(A_, *, out=None):
    if out is not None:
        raise NotImplementedError("openreg: linalg.slogdet(..., out=) is not implemented")
    sign, logabsdet = A.linalg_slogdet(A_)
    return _SlogdetResult(sign.detach(), logabsdet)      # the sign is not differentiable (PyTorch)


linalg_slogdet = Op("linalg_slogdet", """
    linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)
    """, kernels={"linalg_slogdet": {"Backend": _linalg_slogdet}}, device=True,
    derivatives={"linalg_slogdet": Deriv(save="A", A=_slogdet_grad, jvp={"A": _slogdet_jvp})},
    function=False, method=False,
    doc="""The sign and the log of the absolute value of the determinant (``openreg.linalg.slogdet``).

    >>> import openreg
    >>> openreg.linalg.slogdet(openreg.tensor([[-2.0]])).sign.item()
    -1.0
    """)

slogdet = Op("slogdet", """
    slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)
    """, kernels={"slogdet": {CIA: lambda self: A.linalg_slogdet(self)}}, function=_slogdet_fn,
    method=_slogdet_fn,
    doc="""``(sign, log|det|)`` (``linalg.slogdet``).

    >>> import openreg
    >>> openreg.slogdet(openreg.eye(2) * 2).logabsdet.item()
    1.3862943649291992
    """)


def _logdet(self):
    sign, logabs = A.linalg_slogdet(self)
    return A.where__ScalarSelf(sign < 0, math.nan, logabs)


logdet = Op("logdet", """
    logdet(Tensor self) -> Tensor
    """, kernels={"logdet": {CIA: _logdet}},
    doc="""``log(det(A))`` (NaN for a negative determinant, -inf for a singular matrix).

    >>> import openreg
    >>> openreg.logdet(openreg.eye(2) * 2).item()
    1.3862943649291992
    """)


# -- cholesky --------------------------------------------------------------------------------------------------

def _linalg_cholesky(self, *, upper=False):
    _check_matrix("linalg.cholesky", self)
    xp = xp_of(self)
    L = _lapack("linalg.cholesky", xp.linalg.cholesky, values(self))
    if upper:
        L = xp.swapaxes(L, -1, -2).conj()
    return _out(xp.ascontiguousarray(L), self)


def _phi(x):
    """The lower triangle with a halved diagonal."""
    return x.tril() - A.diag_embed(A.diagonal(x, 0, -2, -1) * 0.5)


def _cholesky_grad(g, a):
    L = _t(a.result) if a.upper else a.result
    gL = _t(g) if a.upper else g
    Linv = A.linalg_inv(L)
    S = _t(Linv) @ _phi(_t(L) @ gL) @ Linv
    return (S + _t(S)) * 0.5


def _cholesky_jvp(t, a):
    L = _t(a.result) if a.upper else a.result
    Linv = A.linalg_inv(L)
    dL = L @ _phi(Linv @ t @ _t(Linv))
    return _t(dL) if a.upper else dL


linalg_cholesky = Op("linalg_cholesky", """
    linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor
    """, kernels={"linalg_cholesky": {"Backend": _linalg_cholesky}}, device=True,
    derivatives={"linalg_cholesky": Deriv(save="upper result", self=_cholesky_grad, jvp={"self": _cholesky_jvp})},
    function=False, method=False,
    doc="""The Cholesky factor of symmetric positive-definite matrices (lower, or upper with ``upper=True``).

    >>> import openreg
    >>> openreg.linalg.cholesky(openreg.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """)

cholesky = Op("cholesky", """
    cholesky(Tensor self, bool upper=False) -> Tensor
    """, kernels={"cholesky": {CIA: lambda self, upper=False: A.linalg_cholesky(self, upper=upper)}},
    doc="""The Cholesky factor (``linalg.cholesky``).

    >>> import openreg
    >>> openreg.cholesky(openreg.tensor([[9.0]])).item()
    3.0
    """)


# -- qr ------------------------------------------------------------------------------------------------------------

_QRResult = namedtuple("qr", ["Q", "R"])


def _linalg_qr(A_, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    _check_matrix("linalg.qr", A_, square=False)
    xp = xp_of(A_)
    a = values(A_)
    q, r = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = xp.zeros((0,), dtype=a.dtype)
    return _out(xp.ascontiguousarray(q), A_), _out(xp.ascontiguousarray(r), A_)


def _qr_grad(g, a):
    """Walter & Lehmann's formula for m >= n (reduced): gA = Q (gR + tril(skew) R^-T) + (gQ - Q Q^T gQ) R^-T."""
    Q, R = a.result
    gQ, gR = g
    m, n = a.A.shape[-2], a.A.shape[-1]
    if a.mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    if m < n or (a.mode == "complete" and m > n):
        raise NotImplementedError("The derivative of linalg.qr is not implemented when mode='complete' and nrows > "
                                  "ncols, or when nrows < ncols (openreg)")
    if gQ is None:
        gQ = A.zeros_like(Q)
    if gR is None:
        gR = A.zeros_like(R)
    qdq = _t(Q) @ gQ
    rdr = R @ _t(gR)
    skew = (qdq - _t(qdq) + rdr - _t(rdr)).tril()
    Rinv_t = _t(A.linalg_inv(R))
    return Q @ (gR + skew @ Rinv_t) + (gQ - Q @ qdq) @ Rinv_t


def _qr_fn(A_, mode="reduced", *, out=None):
    if out is not None:
        raise NotImplementedError("openreg: linalg.qr(..., out=) is not implemented")
    return _QRResult(*A.linalg_qr(A_, mode))


linalg_qr = Op("linalg_qr", """
    linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)
    """, kernels={"linalg_qr": {"Backend": _linalg_qr}}, device=True,
    derivatives={"linalg_qr": Deriv(save="A mode result", A=_qr_grad)},
    function=False, method=False,
    doc="""The QR decomposition ``A = Q R`` (``mode``: 'reduced', 'complete' or 'r'); ``openreg.linalg.qr``.

    >>> import openreg
    >>> q, r = openreg.linalg.qr(openreg.tensor([[3.0, 0.0], [4.0, 1.0]], dtype=openreg.float64))
    >>> bool((q @ r - openreg.tensor([[3.0, 0.0], [4.0, 1.0]], dtype=openreg.float64)).abs().max() < 1e-12)
    True
    """)


def _qr(self, some=True):
    return A.linalg_qr(self, "reduced" if some else "complete")


def _qr_method(self, some=True):
    return _QRResult(*A.qr(self, some))


qr = Op("qr", """
    qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)
    """, kernels={"qr": {CIA: _qr}}, function=_qr_method, method=_qr_method,
    doc="""The QR decomposition (``some=False``: complete Q).

    >>> import openreg
    >>> openreg.qr(openreg.eye(2)).R.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """)


# -- svd -----------------------------------------------------------------------------------------------------------

_SVDResult = namedtuple("svd", ["U", "S", "Vh"])
_TorchSVDResult = namedtuple("svd", ["U", "S", "V"])


def _linalg_svd(A_, full_matrices=True, *, driver=None):
    _check_matrix("linalg.svd", A_, square=False)
    xp = xp_of(A_)
    u, s, vh = _lapack("linalg.svd", xp.linalg.svd, values(A_), full_matrices)
    return (_out(xp.ascontiguousarray(u), A_), store(s, A_._dtype.to_real() if A_._dtype.is_complex else A_._dtype,
                                                      A_.device), _out(xp.ascontiguousarray(vh), A_))


def _svd_grad(g, a):
    """Townsend's formula for the reduced SVD of a real matrix."""
    U, S, Vh = a.result
    gU, gS, gVh = g
    m, n = a.A.shape[-2], a.A.shape[-1]
    k = min(m, n)
    if a.full_matrices and m != n and (gU is not None or gVh is not None):
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        gU = gU[..., :, :k] if gU is not None else None
        gVh = gVh[..., :k, :] if gVh is not None else None
    V = _t(Vh)
    Sm = A.diag_embed(S)
    grad = A.zeros_like(a.A)
    if gS is not None:
        grad = grad + U @ A.diag_embed(gS) @ Vh
    if gU is None and gVh is None:
        return grad
    s2 = S * S
    diff = s2.unsqueeze(-2) - s2.unsqueeze(-1)                  # [i, j] = s_j^2 - s_i^2
    eye = A.eye(k, dtype=S.dtype, device=S.device)
    F = A.where__ScalarSelf(eye.bool(), 0, 1 / A.where__ScalarSelf(eye.bool(), 1.0, diff))
    inner = A.zeros_like(Sm)
    if gU is not None:
        J = F * (_t(U) @ gU - _t(gU) @ U)
        inner = inner + J @ Sm
    if gVh is not None:
        gV = _t(gVh)
        K = F * (_t(V) @ gV - _t(gV) @ V)
        inner = inner + Sm @ K
    grad = grad + U @ inner @ Vh
    Sinv = A.diag_embed(1 / S)
    if gU is not None and m > k:
        grad = grad + (gU - U @ (_t(U) @ gU)) @ Sinv @ Vh
    if gVh is not None and n > k:
        gV = _t(gVh)
        grad = grad + U @ Sinv @ _t(gV - V @ (_t(V) @ gV))
    return grad


def _svd_fn(A_, full_matrices=True, *, driver=None, out=None):
    if out is not None:
        raise NotImplementedError("openreg: linalg.svd(..., out=) is not implemented")
    return _SVDResult(*A.linalg_svd(A_, full_matrices, driver=driver))


linalg_svd = Op("linalg_svd", """
    linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)
    """, kernels={"linalg_svd": {"Backend": _linalg_svd}}, device=True,
    derivatives={"linalg_svd": Deriv(save="A full_matrices result", A=_svd_grad)},
    function=False, method=False,
    doc="""The singular value decomposition ``A = U diag(S) Vh`` (``openreg.linalg.svd``).

    >>> import openreg
    >>> openreg.linalg.svd(openreg.tensor([[3.0, 0.0], [0.0, -4.0]])).S.tolist()
    [4.0, 3.0]
    """)


def _svd(self, some=True, compute_uv=True):
    U, S, Vh = A.linalg_svd(self, not some)
    V = _t(Vh)
    if not compute_uv:
        return A.zeros_like(U), S, A.zeros_like(V)
    return U, S, V


def _svd_method(self, some=True, compute_uv=True):
    return _TorchSVDResult(*A.svd(self, some, compute_uv))


svd = Op("svd", """
    svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)
    """, kernels={"svd": {CIA: _svd}}, function=_svd_method, method=_svd_method,
    doc="""The SVD with ``V`` (not ``Vh``) as in ``torch.svd``.

    >>> import openreg
    >>> openreg.svd(openreg.eye(2)).S.tolist()
    [1.0, 1.0]
    """)

linalg_svdvals = Op("linalg_svdvals", """
    linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor
    """, kernels={"linalg_svdvals": {CIA: lambda A_, *, driver=None: A.linalg_svd(A_, False)[1]}},
    function=False, method=False,
    doc="""The singular values, descending (``openreg.linalg.svdvals``).

    >>> import openreg
    >>> openreg.linalg.svdvals(openreg.tensor([[0.0, 2.0], [1.0, 0.0]])).tolist()
    [2.0, 1.0]
    """)


# -- eigh ------------------------------------------------------------------------------------------------------------

_EighResult = namedtuple("eigh", ["eigenvalues", "eigenvectors"])


def _linalg_eigh(self, UPLO="L"):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_matrix("linalg.eigh", self)
    xp = xp_of(self)
    w, v = _lapack("linalg.eigh", xp.linalg.eigh, values(self), UPLO)
    return store(w, self._dtype.to_real() if self._dtype.is_complex else self._dtype, self.device), \
        _out(xp.ascontiguousarray(v), self)


def _eigh_grad(g, a):
    L, V = a.result
    gL, gV = g
    inner = A.zeros_like(V) if gL is None else A.diag_embed(gL)
    if gV is not None:
        diff = L.unsqueeze(-2) - L.unsqueeze(-1)                # [i, j] = l_j - l_i
        n = L.shape[-1]
        eye = A.eye(n, dtype=L.dtype, device=L.device).bool()
        F = A.where__ScalarSelf(eye, 0, 1 / A.where__ScalarSelf(eye, 1.0, diff))
        inner = inner + F * (_t(V) @ gV)
    return V @ inner @ _t(V)


def _eigh_fn(A_, UPLO="L", *, out=None):
    if out is not None:
        raise NotImplementedError("openreg: linalg.eigh(..., out=) is not implemented")
    return _EighResult(*A.linalg_eigh(A_, UPLO))


linalg_eigh = Op("linalg_eigh", """
    linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)
    """, kernels={"linalg_eigh": {"Backend": _linalg_eigh}}, device=True,
    derivatives={"linalg_eigh": Deriv(save="result", self=_eigh_grad)},
    function=False, method=False,
    doc="""Eigenvalues (ascending) and eigenvectors of symmetric matrices (``openreg.linalg.eigh``).

    >>> import openreg
    >>> openreg.linalg.eigh(openreg.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """)

linalg_eigvalsh = Op("linalg_eigvalsh", """
    linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor
    """, kernels={"linalg_eigvalsh": {CIA: lambda self, UPLO="L": A.linalg_eigh(self, UPLO)[0]}},
    function=False, method=False,
    doc="""The eigenvalues of symmetric matrices, ascending.

    >>> import openreg
    >>> openreg.linalg.eigvalsh(openreg.eye(2)).tolist()
    [1.0, 1.0]
    """)


# -- solve, pinv, matrix_power, matrix_exp ------------------------------------------------------------------------

def _linalg_solve(A_, B, *, left=True):
    _check_matrix("linalg.solve", A_)
    inv = A.linalg_inv(A_)
    vector = B.dim() == 1 or (B.dim() == A_.dim() - 1 and tuple(B.shape) == tuple(A_.shape[:-1]))
    if vector:
        return (inv @ B.unsqueeze(-1)).squeeze(-1) if left else (B.unsqueeze(-2) @ inv).squeeze(-2)
    return inv @ B if left else B @ inv


linalg_solve = Op("linalg_solve", """
    linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor
    """, kernels={"linalg_solve": {CIA: _linalg_solve}}, function=False, method=False,
    doc="""The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``); ``B`` may be a (batch of) vector(s).

    >>> import openreg
    >>> openreg.linalg.solve(openreg.tensor([[2.0, 0.0], [0.0, 4.0]]), openreg.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """)


def _linalg_pinv(self, atol=None, rtol=None, hermitian=False):
    _check_matrix("linalg.pinv", self, square=False)
    U, S, Vh = A.linalg_svd(self, False)
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else S
    if atol is None and rtol is None:
        rtol = _dt_eps(self._dtype) * max(self.shape[-2], self.shape[-1])
    cut = A.zeros_like(smax)
    if atol is not None:
        cut = A.maximum(cut, A.full_like(smax, float(atol)) if not hasattr(atol, "shape") else atol)
    if rtol is not None:
        cut = A.maximum(cut, smax * (float(rtol) if not hasattr(rtol, "shape") else rtol))
    keep = S > cut
    Sinv = A.where__ScalarOther(keep, 1 / A.where__ScalarOther(keep, S, 1.0), 0)
    return (_t(Vh) * Sinv.unsqueeze(-2)) @ _t(U)


def _dt_eps(d) -> float:
    from ..type_info import finfo
    return finfo(d).eps


linalg_pinv = Op("linalg_pinv", """
    linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor
    """, kernels={"linalg_pinv.atol_rtol_float": {CIA: lambda self, *, atol=None, rtol=None, hermitian=False:
                                                   _linalg_pinv(self, atol, rtol, hermitian)}},
    function=False, method=False,
    doc="""The Moore-Penrose pseudo-inverse (singular values below ``max(atol, rtol * max(S))`` dropped).

    >>> import openreg
    >>> openreg.linalg.pinv(openreg.tensor([[2.0, 0.0]])).tolist()
    [[0.5], [0.0]]
    """)

pinverse = Op("pinverse", """
    pinverse(Tensor self, float rcond=1e-15) -> Tensor
    """, kernels={"pinverse": {CIA: lambda self, rcond=1e-15: _linalg_pinv(self, None, rcond)}},
    doc="""The pseudo-inverse with relative cutoff ``rcond`` (``linalg.pinv(rtol=rcond)``).

    >>> import openreg
    >>> openreg.pinverse(openreg.tensor([[4.0]])).item()
    0.25
    """)


def _matrix_power(self, n):
    if self.dim() < 2 or self.shape[-1] != self.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{self.shape[-2] if self.dim() >= 2 else 1} by {self.shape[-1] if self.dim() else 1} "
                           f"matrices")
    if n == 0:
        eye = A.eye(self.shape[-1], dtype=self._dtype, device=self.device)
        return A.copy_(A.clone(self), eye.expand(list(self.shape)))     # connected to self: a zero gradient
    base = A.linalg_inv(self) if n < 0 else self
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


linalg_matrix_power = Op("linalg_matrix_power", """
    linalg_matrix_power(Tensor self, int n) -> Tensor
    """, kernels={"linalg_matrix_power": {CIA: _matrix_power}}, function=False, method=False,
    doc="""``A ** n`` by repeated squaring (negative ``n``: of the inverse).

    >>> import openreg
    >>> openreg.linalg.matrix_power(openreg.tensor([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """)

matrix_power = Op("matrix_power", """
    matrix_power(Tensor self, int n) -> Tensor
    """, kernels={"matrix_power": {CIA: lambda self, n: _matrix_power(self, n)}},
    doc="""``A ** n`` for square matrices (``linalg.matrix_power``).

    >>> import openreg
    >>> openreg.matrix_power(openreg.eye(2) * 2, -1).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """)


def _matrix_exp(self):
    _check_matrix("linalg.matrix_exp", self)
    # scaling and squaring: exp(A) = exp(A / 2^s) ** (2^s) with ||A / 2^s||_1 <= 1/2, Taylor to 18 terms
    norm = float(self.detach().abs().sum(-2).amax().item()) if self.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 and math.isfinite(norm) else 0
    x = self / (2.0 ** s) if s else self
    n = self.shape[-1]
    eye = A.eye(n, dtype=self._dtype, device=self.device)
    term, total = eye, eye
    for k in range(1, 19):
        term = (term @ x) / k
        total = total + term
    for _ in range(s):
        total = total @ total
    return total


linalg_matrix_exp = Op("linalg_matrix_exp", """
    linalg_matrix_exp(Tensor self) -> Tensor
    """, kernels={"linalg_matrix_exp": {CIA: _matrix_exp}}, function=False, method=False,
    doc="""The matrix exponential (scaling and squaring of a Taylor series, differentiable through matmul).

    >>> import openreg
    >>> openreg.linalg.matrix_exp(openreg.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """)

matrix_exp = Op("matrix_exp", """
    matrix_exp(Tensor self) -> Tensor
    """, kernels={"matrix_exp": {CIA: _matrix_exp}},
    doc="""The matrix exponential (``linalg.matrix_exp``).

    >>> import openreg
    >>> f"{openreg.matrix_exp(openreg.tensor([[1.0]], dtype=openreg.float64)).item():.12f}"
    '2.718281828459'
    """)

register(linalg_inv, inverse, linalg_det, det, linalg_slogdet, slogdet, logdet, linalg_cholesky, cholesky, linalg_qr,
         qr, linalg_svd, svd, linalg_svdvals, linalg_eigh, linalg_eigvalsh, linalg_solve, linalg_pinv, pinverse,
         linalg_matrix_power, matrix_power, linalg_matrix_exp, matrix_exp)
