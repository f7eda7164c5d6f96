"""``openreg.linalg``: vector and matrix norms (``vector_norm``, ``norm``, ``matrix_norm`` for the Frobenius norm).

>>> import openreg
>>> openreg.linalg.vector_norm(openreg.tensor([3.0, 4.0])).item()
5.0
"""
from __future__ import annotations

from collections import namedtuple

from . import dtypes as _dtypes
from ._dispatch.ops import A
from ._linalg_error import LinAlgError
from ._linalg_lu import lstsq, lu, lu_factor, lu_factor_ex, lu_solve, raise_for_info, solve_ex
from .aten.meta_rules import scalar_type_name
from .tensor import Tensor

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

_A = A          # the overloads (``A`` is also PyTorch's name of the matrix argument below)
_int32 = _dtypes.int32
_InvEx = namedtuple("inv_ex", ["inverse", "info"])
_CholeskyEx = namedtuple("cholesky_ex", ["L", "info"])
_Slogdet = namedtuple("slogdet", ["sign", "logabsdet"])
_QR = namedtuple("qr", ["Q", "R"])
_SVD = namedtuple("svd", ["U", "S", "Vh"])
_Eigh = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
_Eig = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])


def vector_norm(x: Tensor, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None,
                out: Tensor | None = None) -> Tensor:
    """The ``ord``-norm of the elements of ``x`` over ``dim`` (all elements by default).

    >>> import openreg
    >>> openreg.linalg.vector_norm(openreg.tensor([[1.0, -2.0]]), float("inf"), dim=1).tolist()
    [2.0]
    """
    if isinstance(dim, int):
        dim = [dim]
    result = A.linalg_vector_norm(x, ord, None if dim is None else list(dim), keepdim, dtype=dtype)
    return result if out is None else out.copy_(result)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None,
                out: Tensor | None = None) -> Tensor:
    """The ``ord`` norm of the matrices in ``dim``: ``"fro"``, ``"nuc"`` (sum of singular values), 2/-2 (the
    largest/smallest singular value), 1/-1 (max/min column sum of ``|A|``), inf/-inf (max/min row sum).

    >>> import openreg
    >>> A = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> [openreg.linalg.matrix_norm(A, o).item() for o in (1, float("inf"), -1)]
    [6.0, 7.0, 4.0]
    >>> round(openreg.linalg.matrix_norm(A, "nuc").item(), 4), openreg.linalg.matrix_norm(openreg.ones(2, 2)).item()
    (5.831, 2.0)
    """
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    dims = [d % A.dim() for d in dim]
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(A.dtype)}")
    if ord not in ("fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        result = vector_norm(A, 2, dims, keepdim)
    elif ord in ("nuc", 2, -2):
        s = svdvals(A.movedim(dims, (-2, -1)))
        result = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            for d in sorted(dims):
                result = result.unsqueeze(d)
    else:
        summed, over = (dims[0], dims[1]) if abs(ord) == 1 else (dims[1], dims[0])
        sums = A.abs().sum(summed, keepdim=True)
        result = sums.amax(over, keepdim=True) if ord > 0 else sums.amin(over, keepdim=True)
        if not keepdim:
            result = result.squeeze(tuple(dims))
    return result if out is None else out.copy_(result)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out: Tensor | None = None) -> Tensor:
    """A vector norm (``ord`` a number and ``dim`` an int, or a 1-D input) or a matrix norm (``ord`` a string, or
    a 2-tuple ``dim``, or a 2-D input); without ``ord``, the 2-norm of all elements.

    >>> import openreg
    >>> openreg.linalg.norm(openreg.tensor([[3.0, 4.0]])).item(), openreg.linalg.norm(openreg.eye(2), 2).item()
    (5.0, 1.0)
    """
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
    if ord is None:
        result = vector_norm(A, 2, dim, keepdim, dtype=dtype)
    else:
        if dim is None and A.dim() not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                               f"{A.dim()}D.")
        matrix = isinstance(ord, str) or (len(dim) == 2 if isinstance(dim, tuple) else dim is None and A.dim() == 2)
        if matrix:
            result = matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
        else:
            result = vector_norm(A, ord, dim, keepdim, dtype=dtype)
    return result if out is None else out.copy_(result)


# -- decompositions and matrix functions (records in operators/linalg_decompositions.py) ----------------------

def _no_out(name: str, out) -> None:
    if out is not None:
        raise NotImplementedError(f"openreg: linalg.{name}(..., out=) is not implemented")


def inv(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of square matrices.

    >>> import openreg
    >>> openreg.linalg.inv(openreg.tensor([[2.0]])).item()
    0.5
    """
    _no_out("inv", out)
    return _A.linalg_inv(A)


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """``(inverse, info)``: ``info`` is the (1-based) index of the first zero pivot of ``A``'s LU factorization (a
    singular matrix, whose inverse then holds infinities or NaNs, as PyTorch's), else 0; ``check_errors=True``
    raises for it.

    >>> import openreg
    >>> openreg.linalg.inv_ex(openreg.eye(2)).info.item(), openreg.linalg.inv_ex(openreg.zeros(2, 2)).info.item()
    (0, 1)
    """
    _no_out("inv_ex", out)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        _A.linalg_inv(A)                        # raises linalg.inv's own error
    import openreg
    eye = openreg.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape))
    result, info = solve_ex(A, eye)
    if check_errors:
        raise_for_info("linalg.inv_ex", info, lambda i: f"The diagonal element {i} is zero, the inversion could not "
                                                        f"be completed because the input matrix is singular.")
    return _InvEx(result, info)


def det(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The determinant of square matrices.

    >>> import openreg
    >>> openreg.linalg.det(openreg.eye(2) * 3).item()
    9.0
    """
    _no_out("det", out)
    return _A.linalg_det(A)


def slogdet(A: Tensor, *, out=None):
    """``(sign, logabsdet)`` of the determinant.

    >>> import openreg
    >>> openreg.linalg.slogdet(openreg.eye(2)).logabsdet.item()
    0.0
    """
    _no_out("slogdet", out)
    sign, logabsdet = _A.linalg_slogdet(A)
    return _Slogdet(sign.detach(), logabsdet)    # the sign is not differentiable (PyTorch)


def cholesky(A: Tensor, *, upper: bool = False, out: Tensor | None = None) -> Tensor:
    """The Cholesky factor of symmetric positive-definite matrices.

    >>> import openreg
    >>> openreg.linalg.cholesky(openreg.eye(2) * 4).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    _no_out("cholesky", out)
    return _A.linalg_cholesky(A, upper=upper)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """``(L, info)``: ``info`` is 0 where the factorization succeeded, else the order of the first leading minor
    that is not positive-definite (``L`` is then NaN); ``check_errors=True`` raises for it instead.

    >>> import openreg
    >>> openreg.linalg.cholesky_ex(openreg.eye(2)).L.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    _no_out("cholesky_ex", out)
    batch = list(A.shape[:-2])
    try:
        return _CholeskyEx(_A.linalg_cholesky(A, upper=upper), _A.zeros(batch, dtype=_int32, device=A.device))
    except RuntimeError:
        if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
            raise                    # not a batch of square matrices: linalg.cholesky's own error
    n = A.shape[-1]
    flat = A.reshape(-1, n, n)
    factors, infos = [], []
    for i in range(flat.shape[0]):
        try:
            factors.append(_A.linalg_cholesky(flat[i], upper=upper))
            infos.append(0)
            continue
        except RuntimeError:
            pass
        order = next(k for k in range(1, n + 1) if not _factors(flat[i, :k, :k]))
        if check_errors:
            where = f"(Batch element {i}): " if batch else ""
            raise LinAlgError(f"linalg.cholesky_ex: {where}The factorization could not be completed because the "
                               f"input is not positive-definite (the leading minor of order {order} is not "
                               f"positive-definite).")
        factors.append(_A.full_like(flat[i], float("nan")))     # L is undefined where info != 0
        infos.append(order)
    L = _A.stack(factors).reshape(list(A.shape))
    info = _A.zeros([len(infos)], dtype=_int32, device=A.device)
    for i, order in enumerate(infos):
        if order:
            info[i] = order
    return _CholeskyEx(L, info.reshape(batch))


def _factors(m) -> bool:
    try:
        _A.linalg_cholesky(m)
    except RuntimeError:
        return False
    return True


def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``.

    >>> import openreg
    >>> openreg.linalg.qr(openreg.eye(2)).Q.shape
    openreg.Size([2, 2])
    """
    _no_out("qr", out)
    return _QR(*_A.linalg_qr(A, mode))


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``.

    >>> import openreg
    >>> openreg.linalg.svd(openreg.eye(2) * 2).S.tolist()
    [2.0, 2.0]
    """
    _no_out("svd", out)
    return _SVD(*_A.linalg_svd(A, full_matrices, driver=driver))


def svdvals(A: Tensor, *, driver=None, out: Tensor | None = None) -> Tensor:
    """The singular values, descending.

    >>> import openreg
    >>> openreg.linalg.svdvals(openreg.eye(2)).tolist()
    [1.0, 1.0]
    """
    _no_out("svdvals", out)
    return _A.linalg_svdvals(A, driver=driver)


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """``(eigenvalues, eigenvectors)`` of symmetric matrices, eigenvalues ascending.

    >>> import openreg
    >>> openreg.linalg.eigh(openreg.eye(2)).eigenvalues.tolist()
    [1.0, 1.0]
    """
    _no_out("eigh", out)
    return _Eigh(*_A.linalg_eigh(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Tensor | None = None) -> Tensor:
    """The eigenvalues of symmetric matrices, ascending.

    >>> import openreg
    >>> openreg.linalg.eigvalsh(openreg.eye(2) * 2).tolist()
    [2.0, 2.0]
    """
    _no_out("eigvalsh", out)
    return _A.linalg_eigvalsh(A, UPLO)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor:
    """The solution of ``A X = B`` (``left=False``: ``X A = B``).

    >>> import openreg
    >>> openreg.linalg.solve(openreg.eye(2) * 2, openreg.tensor([2.0, 4.0])).tolist()
    [1.0, 2.0]
    """
    _no_out("solve", out)
    return _A.linalg_solve(A, B, left=left)


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out: Tensor | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse.

    >>> import openreg
    >>> openreg.linalg.pinv(openreg.tensor([[0.0, 4.0]])).tolist()
    [[0.0], [0.25]]
    """
    _no_out("pinv", out)
    return _A.linalg_pinv__atol_rtol_float(A, atol=atol, rtol=rtol, hermitian=hermitian)


def matrix_power(A: Tensor, n: int, *, out: Tensor | None = None) -> Tensor:
    """``A ** n`` for square matrices (negative ``n``: powers of the inverse).

    >>> import openreg
    >>> openreg.linalg.matrix_power(openreg.eye(2) * 2, 2).tolist()
    [[4.0, 0.0], [0.0, 4.0]]
    """
    _no_out("matrix_power", out)
    return _A.linalg_matrix_power(A, n)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential.

    >>> import openreg
    >>> openreg.linalg.matrix_exp(openreg.zeros(1, 1)).item()
    1.0
    """
    return _A.linalg_matrix_exp(A)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim``.

    >>> import openreg
    >>> openreg.linalg.cross(openreg.tensor([0.0, 1.0, 0.0]), openreg.tensor([0.0, 0.0, 1.0])).tolist()
    [1.0, 0.0, 0.0]
    """
    if out is not None:
        return _A.linalg_cross__out(input, other, dim=dim, out=out)
    return _A.linalg_cross(input, other, dim=dim)


def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``torch.linalg.matmul``: ``torch.matmul``.

    >>> import openreg
    >>> openreg.linalg.matmul(openreg.eye(2), openreg.tensor([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    import openreg
    return openreg.matmul(input, other) if out is None else openreg.matmul(input, other, out=out)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.linalg.diagonal``: ``torch.diagonal`` over the last two dimensions by default (a view).

    >>> import openreg
    >>> openreg.linalg.diagonal(openreg.tensor([[1, 2], [3, 4]])).tolist()
    [1, 4]
    """
    return A.diagonal(offset=offset, dim1=dim1, dim2=dim2)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """The dot products of the vectors along ``dim`` (broadcast; the first conjugated).

    >>> import openreg
    >>> openreg.linalg.vecdot(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]), openreg.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    """
    if x.dtype.is_complex:
        x = x.conj()
    result = (x * y).sum(dim)
    return result if out is None else out.copy_(result)


def multi_dot(tensors, *, out: Tensor | None = None) -> Tensor:
    """The product of a chain of matrices (the first may be 1-D: a row, the last 1-D: a column).

    >>> import openreg
    >>> openreg.linalg.multi_dot([openreg.tensor([1.0, 2.0]), openreg.eye(2), openreg.tensor([3.0, 4.0])]).item()
    11.0
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        limit = 2 if 0 < i < len(tensors) - 1 else None
        if (limit is not None and t.dim() != 2) or t.dim() not in (1, 2):
            where = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
            if where is None:
                raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
            raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.dim()}D")
    first_1d, last_1d = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = [tensors[0].unsqueeze(0) if first_1d else tensors[0], *tensors[1:-1],
            tensors[-1].unsqueeze(1) if last_1d else tensors[-1]]
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {tuple(tensors[i].shape)} and "
                               f"{tuple(tensors[i + 1].shape)} cannot be multiplied")
    result = mats[0]
    for m in mats[1:]:
        result = result.mm(m)
    if first_1d:
        result = result.squeeze(0)
    if last_1d:
        result = result.squeeze(-1)
    return result if out is None else out.copy_(result)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out: Tensor | None = None) -> Tensor:
    """The solution of ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A``: only the triangle named by
    ``upper`` is read (and its diagonal taken as ones if ``unitriangular``), so gradients stay in that triangle.

    >>> import openreg
    >>> A = openreg.tensor([[2.0, 1.0], [9.0, 4.0]])
    >>> openreg.linalg.solve_triangular(A, openreg.tensor([[4.0], [8.0]]), upper=True).tolist()
    [[1.0], [2.0]]
    """
    if A.dim() < 2 or B.dim() < 2:
        raise RuntimeError(f"linalg.solve_triangular: The input tensor {'A' if A.dim() < 2 else 'B'} must have at "
                           f"least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    T = A.triu(1 if unitriangular else 0) if upper else A.tril(-1 if unitriangular else 0)
    if unitriangular:
        import openreg
        T = T + openreg.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    result = _A.linalg_solve(T, B, left=left)
    return result if out is None else out.copy_(result)


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out: Tensor | None = None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * largest)`` (``rtol`` defaults to
    ``eps * max(rows, cols)`` when neither is given), as int64.

    >>> import openreg
    >>> openreg.linalg.matrix_rank(openreg.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    import openreg
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"torch.linalg.matrix_rank: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.scalar_name}")
    with openreg.no_grad():
        s = eigvalsh(A).abs() if hermitian else svdvals(A)
        if s.shape[-1] == 0:
            result = openreg.zeros(s.shape[:-1], dtype=openreg.int64, device=A.device)
            return result if out is None else out.copy_(result)
        smax = s.amax(-1, keepdim=True)
        if atol is None and rtol is None:
            rtol = openreg.finfo(s.dtype).eps * max(A.shape[-2], A.shape[-1])
        tol = smax * 0
        if rtol is not None:
            tol = smax * (rtol.unsqueeze(-1) if isinstance(rtol, Tensor) else rtol)
        if atol is not None:
            tol = openreg.maximum(tol, atol.unsqueeze(-1) if isinstance(atol, Tensor) else openreg.full_like(tol, atol))
        result = (s > tol).sum(-1)
    return result if out is None else out.copy_(result)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of the last dimension, in increasing powers ``x**0 .. x**(N-1)`` (batches
    broadcast; integer inputs stay integral).

    >>> import openreg
    >>> openreg.linalg.vander(openreg.tensor([1, 2, 3])).tolist()
    [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    """
    import openreg
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dtype == openreg.bool:
        x = x.to(openreg.int64)
    cols = [openreg.ones_like(x)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    return openreg.stack(cols, dim=-1)


def cond(A: Tensor, p=None, *, out: Tensor | None = None) -> Tensor:
    """The condition number of ``A`` in the norm ``p``: ``None``/2 the ratio of the extreme singular values,
    -2 its inverse, the other matrix norms ``||A|| ||A^-1||``.

    >>> import openreg
    >>> openreg.linalg.cond(openreg.tensor([[2.0, 0.0], [0.0, 0.5]])).item()
    4.0
    """
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p not in (None, "fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p is None or p == 2 or p == -2:
        s = svdvals(A)
        result = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    else:
        result = matrix_norm(A, p) * matrix_norm(inv(A), p)
    return result if out is None else out.copy_(result)


def eig(A: Tensor, *, out=None):
    """``(eigenvalues, eigenvectors)`` of square matrices, both complex; eigenvectors have unit norm.

    >>> import openreg
    >>> openreg.linalg.eig(openreg.tensor([[0.0, 1.0], [-2.0, -3.0]])).eigenvalues.tolist()
    [(-1+0j), (-2+0j)]
    """
    _no_out("eig", out)
    return _Eig(*_A.linalg_eig(A))


def eigvals(A: Tensor, *, out=None) -> Tensor:
    """The eigenvalues of square matrices, complex.

    >>> import openreg
    >>> openreg.linalg.eigvals(openreg.eye(2) * 2).tolist()
    [(2+0j), (2+0j)]
    """
    _no_out("eigvals", out)
    return _A.linalg_eigvals(A)


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first ``n`` columns of the product of the Householder reflectors stored in ``A`` and ``tau`` (what
    ``geqrf`` returns): ``Q`` of a QR decomposition.

    >>> import openreg
    >>> openreg.linalg.householder_product(openreg.zeros(3, 2), openreg.zeros(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    """
    _no_out("householder_product", out)
    return _A.linalg_householder_product(A, tau)


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The inverse of ``A`` for ``tensordot(..., ind)``: ``A`` read as a matrix of ``prod(A.shape[:ind])`` rows
    and ``prod(A.shape[ind:])`` columns (equal), inverted, shaped ``A.shape[ind:] + A.shape[:ind]``.

    >>> import openreg
    >>> openreg.linalg.tensorinv(openreg.eye(4).reshape(4, 2, 2), ind=1).shape
    openreg.Size([2, 2, 4])
    """
    _no_out("tensorinv", out)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = list(A.shape[:ind]), list(A.shape[ind:])
    if _prod(cols) != _prod(rows):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {_prod(cols)} != {_prod(rows)}")
    return inv(A.reshape(_prod(rows), _prod(cols))).reshape(cols + rows)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``; ``dims`` are dimensions of ``A`` moved to the end first.

    >>> import openreg
    >>> A = openreg.eye(6).reshape(2, 3, 6)
    >>> openreg.linalg.tensorsolve(A, openreg.ones(2, 3)).shape
    openreg.Size([6])
    """
    _no_out("tensorsolve", out)
    if dims is not None:
        nd = A.dim()
        moved = [d % nd for d in dims]
        A = A.permute([d for d in range(nd) if d not in moved] + moved)
    rest = list(A.shape[B.dim():])
    n = _prod(rest)
    if _prod(A.shape[:B.dim()]) != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {_prod(A.shape[:B.dim()])}")
    return solve(A.reshape(-1, n), B.reshape(-1)).reshape(rest)
