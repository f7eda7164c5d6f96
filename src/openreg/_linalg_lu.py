"""``torch.linalg`` LU factorizations and least squares: ``lu_factor``/``lu_factor_ex`` (LAPACK ``getrf``'s
partial pivoting: the combined ``LU`` and 1-based int32 ``pivots``), ``lu`` (``P, L, U``), ``lu_unpack``,
``lu_solve``, ``solve_ex`` and ``lstsq`` with PyTorch's drivers and outputs. The factorization runs on the host
in NumPy; its gradient (PyTorch's, square and rectangular) and those of ``lu_solve`` and ``lstsq`` are
written with differentiable tensor ops.

>>> import openreg
>>> LU, pivots = openreg.linalg.lu_factor(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]))
>>> LU.tolist(), pivots.tolist()
([[3.0, 4.0], [0.3333333432674408, 0.6666666269302368]], [2, 2])
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ._linalg_error import LinAlgError
from .tensor import Tensor

_LUFactor = namedtuple("linalg_lu_factor", ["LU", "pivots"])
_LUFactorEx = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LU = namedtuple("linalg_lu", ["P", "L", "U"])
_LUUnpack = namedtuple("lu_unpack", ["P", "L", "U"])
_SolveEx = namedtuple("linalg_solve_ex", ["result", "info"])
_Lstsq = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _o():
    import openreg
    return openreg


def _adj(x: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (``Tensor.mH``, which openreg refuses for complex tensors)."""
    from ._dispatch.ops import A
    return A.conj_physical(x.mT) if x.is_complex() else x.mT


def _check_float(name: str, A: Tensor) -> None:
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_dtype_name(A)}")


def _dtype_name(t: Tensor) -> str:
    return str(t.dtype).replace("openreg.", "").capitalize().replace("Float64", "Double").replace("Float32", "Float")


def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK ``getrf`` on a batch ``(B, m, n)``: the row with the largest ``|re| + |im|`` in each column (the
    first of equals) becomes the pivot; a zero pivot is left in place and reported (1-based) in ``info``."""
    lu = np.array(a, copy=True)
    b, m, n = lu.shape
    k = min(m, n)
    pivots = np.zeros((b, k), dtype=np.int32)
    info = np.zeros(b, dtype=np.int32)
    rows = np.arange(b)
    for i in range(k):
        col = lu[:, i:, i]
        size = np.abs(col.real) + np.abs(col.imag) if np.iscomplexobj(col) else np.abs(col)
        p = i + np.argmax(size, axis=1)
        pivots[:, i] = p + 1
        swap = lu[rows, p].copy()
        lu[rows, p] = lu[:, i]
        lu[:, i] = swap
        pivot = lu[:, i, i]
        zero = pivot == 0
        info[(info == 0) & zero] = i + 1
        scale = np.where(zero, 1, pivot)
        lu[:, i + 1:, i] = np.where(zero[:, None], lu[:, i + 1:, i], lu[:, i + 1:, i] / scale[:, None])
        lu[:, i + 1:, i + 1:] -= lu[:, i + 1:, i, None] * lu[:, i, None, i + 1:]
    return lu, pivots, info


def _permutation(pivots: Tensor, m: int) -> Tensor:
    """``perm`` (int64, batched) with ``A[..., perm[j], :] = (L U)[..., j, :]``: the row swaps of ``pivots``."""
    piv = pivots.detach().cpu().numpy().astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
    flat, fp = perm.reshape(-1, m), piv.reshape(-1, piv.shape[-1])
    rows = np.arange(flat.shape[0])
    for i in range(fp.shape[1]):
        a, b = flat[:, i].copy(), flat[rows, fp[:, i]].copy()
        flat[:, i], flat[rows, fp[:, i]] = b, a
    return _o().tensor(perm, device=pivots.device)


def _factor(A: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    o = _o()
    arr = A.detach().cpu().numpy()
    m, n = arr.shape[-2:]
    lu, piv, info = _getrf(arr.reshape((-1, m, n)))
    batch = tuple(A.shape[:-2])
    return (o.tensor(lu.reshape(batch + (m, n)), device=A.device),
            o.tensor(piv.reshape(batch + (min(m, n),)), device=A.device),
            o.tensor(info.reshape(batch), device=A.device))


def _unpack_lu(LU: Tensor) -> tuple[Tensor, Tensor]:
    """``L`` (unit lower, ``m x k``) and ``U`` (upper, ``k x n``) of a combined factor, differentiably."""
    o = _o()
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + o.eye(m, k, dtype=LU.dtype, device=LU.device)
    return L, LU[..., :k, :].triu()


def _rows(X: Tensor, perm: Tensor) -> Tensor:
    """``X[..., perm[..., j], :]`` for every ``j`` (batch dims broadcast)."""
    batch = tuple(_o().broadcast_shapes(tuple(X.shape[:-2]), tuple(perm.shape[:-1])))
    X = X.expand(batch + tuple(X.shape[-2:]))
    idx = perm.expand(batch + tuple(perm.shape[-1:])).unsqueeze(-1).expand(batch + tuple(X.shape[-2:]))
    return X.gather(-2, idx)


def _inverse_perm(perm: Tensor) -> Tensor:
    return perm.argsort(dim=-1)


def _lu_factor_fn():
    o = _o()

    def square_grad(L, U, gL, gU):
        """``L^-H (tril_-1(L^H gL) + triu(gU U^H)) U^-H`` for ``A = L U`` (``gL``/``gU``: the gradients of ``L``'s
        strict lower triangle and of ``U``)."""
        phi = (_adj(L) @ gL).tril(-1) + (gU @ _adj(U)).triu()
        X = o.linalg.solve_triangular(_adj(L), phi, upper=True, unitriangular=True)
        return o.linalg.solve_triangular(_adj(U), X, upper=False, left=False)

    class LUFactor(o.autograd.Function):
        """The combined LU factor with PyTorch's gradient. Square ``A = P L U``:
        ``A_bar = P L^-H (tril_-1(L^H L_bar) + triu(U_bar U^H)) U^-H``. Tall (``m > n``): the rows below ``n``
        are ``L2 = A2 U^-1``, so they add ``-L2^H L2_bar U^-H`` to ``U_bar`` and give ``A2_bar = L2_bar U^-H``;
        wide (``m < n``): the columns past ``m`` are ``U2 = L^-1 A2``, adding ``-L^-H U2_bar U2^H`` to ``L_bar``
        and giving ``A2_bar = L^-H U2_bar``."""

        @staticmethod
        def forward(ctx, A):
            LU, pivots, info = _factor(A)
            ctx.save_for_backward(LU, pivots)
            ctx.mark_non_differentiable(pivots, info)
            return LU, pivots, info

        @staticmethod
        def backward(ctx, gLU, gpivots, ginfo):
            LU, pivots = ctx.saved_tensors
            m, n = LU.shape[-2:]
            L, U = _unpack_lu(LU)
            if m == n:
                grad = square_grad(L, U, gLU.tril(-1), gLU.triu())
            elif m > n:
                L1, L2 = L[..., :n, :], L[..., n:, :]
                bottom = o.linalg.solve_triangular(_adj(U), gLU[..., n:, :], upper=False, left=False)
                gU = gLU[..., :n, :].triu() - _adj(L2) @ bottom
                grad = o.cat([square_grad(L1, U, gLU[..., :n, :].tril(-1), gU), bottom], dim=-2)
            else:
                U1, U2, gU2 = U[..., :, :m], U[..., :, m:], gLU[..., :, m:]
                right = o.linalg.solve_triangular(_adj(L), gU2, upper=True, unitriangular=True)
                gL = gLU[..., :, :m].tril(-1) - right @ _adj(U2)
                grad = o.cat([square_grad(L, U1, gL, gLU[..., :, :m].triu()), right], dim=-1)
            return _rows(grad, _inverse_perm(_permutation(pivots, m)))

    return LUFactor


_LU_FN = []


def _lu_factor_ex_impl(name: str, A: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    _check_float(name, A)
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")
    if not _LU_FN:
        _LU_FN.append(_lu_factor_fn())
    return _LU_FN[0].apply(A)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    """``(LU, pivots, info)``: ``info`` is the (1-based) index of the first zero on ``U``'s diagonal, else 0;
    ``check_errors=True`` raises for it.

    >>> import openreg
    >>> openreg.linalg.lu_factor_ex(openreg.tensor([[1.0, 2.0], [2.0, 4.0]])).info.item()
    2
    """
    _no_out("lu_factor_ex", out)
    LU, pivots, info = _lu_factor_ex_impl("torch.linalg.lu_factor_ex", A, pivot)
    if check_errors:
        _raise_zero_pivot("torch.linalg.lu_factor_ex", info)
    return _LUFactorEx(LU, pivots, info)


def raise_for_info(name: str, info: Tensor, message, error: type = LinAlgError) -> None:
    """PyTorch's error for the first failed matrix: ``name: (Batch element b): message(info)`` (no batch part
    for a single matrix); a ``LinAlgError`` unless ``error`` says otherwise (lu_factor's zero pivot is a plain
    ``RuntimeError`` in PyTorch)."""
    for b, i in enumerate(info.reshape(-1).tolist()):
        if i > 0:
            where = f"(Batch element {b}): " if info.dim() else ""
            raise error(f"{name}: {where}{message(i)}")


def _raise_zero_pivot(name: str, info: Tensor) -> None:
    raise_for_info(name, info, lambda i: f"U[{i},{i}] is zero and using it on lu_solve would result in a division "
                                         f"by zero. If you still want to perform the factorization, consider calling "
                                         f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)", RuntimeError)


def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    """``(LU, pivots)`` of ``A = P L U`` with partial pivoting: ``L`` (unit diagonal, not stored) below the
    diagonal of ``LU``, ``U`` on and above it; ``pivots`` are LAPACK's 1-based row swaps. A zero pivot raises.

    >>> import openreg
    >>> openreg.linalg.lu_factor(openreg.eye(2)).pivots.tolist()
    [1, 2]
    """
    _no_out("lu_factor", out)
    LU, pivots, info = _lu_factor_ex_impl("torch.linalg.lu_factor", A, pivot)
    _raise_zero_pivot("torch.linalg.lu_factor", info)
    return _LUFactor(LU, pivots)


def _permutation_matrix(pivots: Tensor, m: int, dtype, device) -> Tensor:
    o = _o()
    perm = _permutation(pivots, m)
    eye = o.eye(m, dtype=dtype, device=device)
    # P[perm[j], j] = 1: column j of P is the unit vector e_perm[j]
    return eye[perm].mT


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *,
              out=None):
    """``(P, L, U)`` of a combined factor and its pivots (``torch.lu_unpack``); an unrequested part is empty.

    >>> import openreg
    >>> P, L, U = openreg.lu_unpack(*openreg.linalg.lu_factor(openreg.tensor([[0.0, 1.0], [1.0, 0.0]])))
    >>> P.tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    _no_out("lu_unpack", out)
    o = _o()
    m = LU_data.shape[-2]
    empty = o.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    P = _permutation_matrix(LU_pivots, m, LU_data.dtype, LU_data.device) if unpack_pivots else empty
    if unpack_data:
        L, U = _unpack_lu(LU_data)
    else:
        L, U = empty, empty.clone()
    return _LUUnpack(P, L, U)


def lu(A: Tensor, *, pivot: bool = True, out=None):
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation, ``L`` unit lower triangular (``m x k``), ``U`` upper
    triangular (``k x n``), ``k = min(m, n)``; differentiable.

    >>> import openreg
    >>> P, L, U = openreg.linalg.lu(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> (P @ L @ U).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    _no_out("lu", out)
    LU, pivots, _ = _lu_factor_ex_impl("torch.linalg.lu", A, pivot)
    P, L, U = lu_unpack(LU, pivots)
    return _LU(P, L, U)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,
             out: Tensor | None = None) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``; ``adjoint=True``: ``A^H`` for ``A``) from
    ``lu_factor``'s ``(LU, pivots)`` of ``A``; differentiable in ``LU`` and ``B``.

    >>> import openreg
    >>> A = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> LU, pivots = openreg.linalg.lu_factor(A)
    >>> openreg.linalg.lu_solve(LU, pivots, openreg.tensor([[5.0], [11.0]])).tolist()
    [[1.0], [2.0]]
    """
    o = _o()
    name = "linalg.lu_solve"
    if LU.dim() < 2 or B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {'LU' if LU.dim() < 2 else 'B'} must have at least 2 "
                           f"dimensions.")
    n = LU.shape[-1]
    if LU.shape[-2] != n:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {LU.shape[-2]} by {n} "
                           f"matrices")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        side = "rows" if left else "columns"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]}): "
                           f"B must have {n} {side}")
    if pivots.shape[-1] != n:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the dimension of the matrix")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_dtype_name(LU)} and B of type {_dtype_name(B)} instead")
    if not left:
        # X A = B  <=>  A^H X^H = B^H
        result = lu_solve(LU, pivots, _adj(B), left=True, adjoint=not adjoint).mH
        return result if out is None else out.copy_(result)
    perm = _permutation(pivots, n)
    L, U = _unpack_lu(LU)
    if not adjoint:     # A = P L U:  X = U^-1 L^-1 P^T B
        Y = o.linalg.solve_triangular(L, _rows(B, perm), upper=False, unitriangular=True)
        result = o.linalg.solve_triangular(U, Y, upper=True)
    else:               # A^H = U^H L^H P^T:  X = P L^-H U^-H B
        Y = o.linalg.solve_triangular(_adj(U), B, upper=False)
        Y = o.linalg.solve_triangular(_adj(L), Y, upper=True, unitriangular=True)
        result = _rows(Y, _inverse_perm(perm))
    return result if out is None else out.copy_(result)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """``(result, info)``: ``linalg.solve``'s solution and ``info``, the (1-based) index of the first zero pivot
    of ``A``'s LU factorization (a singular matrix) or 0; ``check_errors=True`` raises for it, else the result of a
    singular system holds infinities or NaNs, as PyTorch's.

    >>> import openreg
    >>> r = openreg.linalg.solve_ex(openreg.tensor([[2.0, 0.0], [0.0, 4.0]]), openreg.tensor([2.0, 2.0]))
    >>> r.result.tolist(), r.info.item()
    ([1.0, 0.5], 0)
    """
    _no_out("solve_ex", out)
    o = _o()
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        o.linalg.solve(A, B, left=left)         # raises linalg.solve's own error
    info = _factor(A.detach())[2]
    if not bool((info != 0).any()):
        return _SolveEx(o.linalg.solve(A, B, left=left), info)
    if check_errors:
        raise_for_info("torch.linalg.solve_ex", info, lambda i: "The solver failed because the input matrix is "
                                                                "singular.")
    # a singular system: LAPACK's substitutions run through the zero pivot (infinities and NaNs), on the host
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rhs = B.unsqueeze(-1 if left else -2) if vector else B
    a, b = A.detach().cpu().numpy(), rhs.detach().cpu().numpy()
    if not left:        # X A = B  <=>  A^T X^T = B^T
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    lu, piv, _ = _getrf(a)
    x = np.array(b, dtype=np.result_type(lu, b), copy=True)
    n = lu.shape[-1]
    rows = np.arange(x.shape[0])
    with np.errstate(all="ignore"):
        for i in range(n):                       # the row swaps, then L y = P^T b, then U x = y
            p = piv[:, i] - 1
            x[rows, i], x[rows, p] = x[rows, p].copy(), x[rows, i].copy()
        for i in range(n):
            x[:, i + 1:] -= lu[:, i + 1:, i, None] * x[:, i, None]
        for i in reversed(range(n)):
            x[:, i] /= lu[:, i, i, None]
            x[:, :i] -= lu[:, :i, i, None] * x[:, i, None]
    x = x.reshape(batch + x.shape[-2:])
    if not left:
        x = np.swapaxes(x, -1, -2)
    result = o.tensor(np.ascontiguousarray(x), dtype=A.dtype, device=A.device)
    return _SolveEx(result.squeeze(-1 if left else -2) if vector else result, info)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None):
    """``(solution, residuals, rank, singular_values)`` of the least-squares problem ``min ||A X - B||`` (the
    minimum-norm solution when ``A`` is rank deficient or wide), with PyTorch's CPU drivers: ``rank`` for all but
    ``"gels"``, ``singular_values`` for ``"gelsd"``/``"gelss"``, ``residuals`` (the squared residual of each column)
    when ``m > n`` and every matrix has full rank (always for ``"gels"``); the default is ``"gelsy"``. ``rcond``
    (default: the dtype's eps times ``max(m, n)``) sets the rank: singular values below ``rcond`` times the
    largest count as zero. Differentiable (through QR for full rank, the pseudo-inverse otherwise).

    >>> import openreg
    >>> A = openreg.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=openreg.float64)
    >>> r = openreg.linalg.lstsq(A, openreg.tensor([[1.0], [1.0], [3.0]], dtype=openreg.float64), driver="gelsd")
    >>> [round(v, 6) for v in r.solution.flatten().tolist()], round(r.residuals.item(), 6), r.rank.item()
    ([1.333333, 1.333333], 0.333333, 2)
    """
    o = _o()
    name = "torch.linalg.lstsq"
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{_dtype_name(A)} and other's dtype {_dtype_name(B)}")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError("This function doesn't handle types other than float and double")
    m, n = A.shape[-2:]
    vector = B.dim() == A.dim() - 1
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.shape[-2] != m:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    batch = tuple(o.broadcast_shapes(tuple(A.shape[:-2]), tuple(rhs.shape[:-2])))
    A = A.expand(batch + (m, n))
    rhs = rhs.expand(batch + tuple(rhs.shape[-2:]))
    real = o.float64 if A.dtype == o.complex128 else o.float32 if A.is_complex() else A.dtype
    if rcond is None:
        rcond = o.finfo(real).eps * max(m, n)
    S = o.linalg.svdvals(A.detach()) if min(m, n) else A.new_zeros(batch + (0,), dtype=real)
    if min(m, n):
        rank = (S > rcond * S.amax(-1, keepdim=True)).sum(-1)
    else:
        rank = o.zeros(batch, dtype=o.int64, device=A.device)
    full = bool((rank == min(m, n)).all()) or driver == "gels"
    if min(m, n) == 0:
        X = A.new_zeros(batch + (n, rhs.shape[-1]))
    elif full and m >= n:
        Q, R = o.linalg.qr(A)
        X = o.linalg.solve_triangular(R, _adj(Q) @ rhs, upper=True)
    elif full:
        Q, R = o.linalg.qr(_adj(A))
        X = Q @ o.linalg.solve_triangular(_adj(R), rhs, upper=False)
    else:
        X = o.linalg.pinv(A, rtol=rcond) @ rhs
    want_residuals = m > n and (driver == "gels" or (driver in ("gelsd", "gelss") and full))
    if want_residuals:
        residuals = ((A @ X - rhs).abs() ** 2).sum(-2)
    else:
        residuals = A.new_zeros(0, dtype=real)
    rank_out = o.zeros(0, dtype=o.int64, device=A.device) if driver == "gels" else rank
    sv = S if driver in ("gelsd", "gelss") else A.new_zeros(0, dtype=real)
    return _Lstsq(X.squeeze(-1) if vector else X, residuals, rank_out, sv)


def _no_out(name: str, out) -> None:
    if out is not None:
        raise NotImplementedError(f"openreg: linalg.{name}(..., out=) is not implemented")


def lu_deprecated(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """``torch.lu(A, pivot=True, get_infos=False)``: ``(LU, pivots)`` (and ``infos``), with PyTorch's deprecation
    warning naming ``linalg.lu_factor``/``lu_factor_ex``.

    >>> import warnings, openreg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     LU, pivots, infos = openreg.lu(openreg.eye(2), get_infos=True)
    >>> pivots.tolist(), infos.item()
    ([1, 2], 0)
    """
    import warnings
    _no_out("lu", out)
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def lu_solve_deprecated(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data, LU_pivots, b)``, with PyTorch's
    deprecation warning.

    >>> import warnings, openreg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     x = openreg.lu_solve(openreg.ones(2, 1), *openreg.linalg.lu_factor(2 * openreg.eye(2)))
    >>> x.tolist()
    [[0.5], [0.5]]
    """
    import warnings
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=2)
    return lu_solve(LU_data, LU_pivots, b, out=out)


def publish(namespace) -> None:
    """``torch.lu_unpack``, ``torch.lu`` and ``torch.lu_solve`` on the ``openreg`` module (where it has none)."""
    for name, fn in (("lu_unpack", lu_unpack), ("lu", lu_deprecated), ("lu_solve", lu_solve_deprecated)):
        if not hasattr(namespace, name):
            setattr(namespace, name, fn)
