"""``linalg.lu_factor``/``lu_factor_ex``/``lu``/``lu_solve``/``solve_ex``/``lstsq`` and ``torch.lu_unpack``
against NumPy (``linalg.solve``, ``linalg.lstsq``, the reconstruction ``P L U = A``) on the CPU and the device,
gradchecked, and against PyTorch (values, pivots, info, the outputs each lstsq driver returns, gradients)."""
import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

SHAPES = [(3, 3), (5, 5), (2, 4, 4), (4, 3), (3, 5)]


@pytest.mark.parametrize("shape", SHAPES)
def test_lu_reconstructs_with_partial_pivoting(devices, shape):
    a = np.random.default_rng(len(shape) + shape[-1]).standard_normal(shape)
    P, L, U = openreg.linalg.lu(openreg.tensor(a, device=devices))
    k = min(shape[-2:])
    assert tuple(L.shape[-2:]) == (shape[-2], k) and tuple(U.shape[-2:]) == (k, shape[-1])
    P, L, U = P.cpu().numpy(), L.cpu().numpy(), U.cpu().numpy()
    np.testing.assert_allclose(P @ L @ U, a, atol=1e-12)
    assert np.all(np.abs(L) <= 1 + 1e-15) and np.allclose(np.triu(U), U)    # pivots: the largest of each column
    pivots = openreg.linalg.lu_factor(openreg.tensor(a, device=devices)).pivots
    assert pivots.dtype == openreg.int32 and pivots.min().item() >= 1 and pivots.max().item() <= shape[-2]


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_equals_numpy_solve(devices, left, adjoint):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4))
    LU, pivots = openreg.linalg.lu_factor(openreg.tensor(a, device=devices))
    x = openreg.linalg.lu_solve(LU, pivots, openreg.tensor(b, device=devices), left=left, adjoint=adjoint)
    m = np.swapaxes(a, -1, -2) if adjoint else a
    expect = np.linalg.solve(m, b) if left else np.swapaxes(np.linalg.solve(np.swapaxes(m, -1, -2),
                                                                            np.swapaxes(b, -1, -2)), -1, -2)
    np.testing.assert_allclose(x.cpu().numpy(), expect, rtol=1e-10, atol=1e-12)


def test_solve_ex_and_lu_factor_ex_report_singular_matrices():
    singular = openreg.tensor([[1.0, 2.0], [2.0, 4.0]])
    r = openreg.linalg.solve_ex(openreg.tensor([[2.0, 1.0], [1.0, 3.0]]), openreg.tensor([3.0, 5.0]))
    np.testing.assert_allclose(r.result.numpy(), np.linalg.solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]), rtol=1e-6)
    assert r.info.item() == 0
    assert openreg.linalg.solve_ex(singular, openreg.ones(2)).info.item() == 2
    assert openreg.linalg.lu_factor_ex(singular).info.item() == 2
    with pytest.raises(RuntimeError, match="The solver failed because the input matrix is singular"):
        openreg.linalg.solve_ex(singular, openreg.ones(2), check_errors=True)
    with pytest.raises(RuntimeError, match=r"U\[2,2\] is zero"):
        openreg.linalg.lu_factor(singular)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        openreg.linalg.lu_factor(openreg.eye(2), pivot=False)


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4), (2, 5, 3)])
def test_lstsq_equals_numpy(devices, shape):
    rng = np.random.default_rng(shape[-1] * 10 + shape[-2])
    a, b = rng.standard_normal(shape), rng.standard_normal(shape[:-1] + (2,))
    r = openreg.linalg.lstsq(openreg.tensor(a, device=devices), openreg.tensor(b, device=devices), driver="gelsd")
    for i in np.ndindex(shape[:-2]):
        x, res, rank, sv = np.linalg.lstsq(a[i], b[i], rcond=None)
        np.testing.assert_allclose(r.solution.cpu().numpy()[i], x, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(r.singular_values.cpu().numpy()[i], sv, rtol=1e-12)
        assert r.rank.cpu().numpy()[i] == rank
        if shape[-2] > shape[-1]:
            np.testing.assert_allclose(r.residuals.cpu().numpy()[i], res, rtol=1e-9)
    assert r.residuals.numel() == (0 if shape[-2] <= shape[-1] else int(np.prod(shape[:-2])) * 2)


def test_lstsq_rank_deficient_gives_the_minimum_norm_solution():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
    b = rng.standard_normal((5, 1))
    r = openreg.linalg.lstsq(openreg.tensor(a), openreg.tensor(b))
    np.testing.assert_allclose(r.solution.numpy(), np.linalg.pinv(a) @ b, rtol=1e-8, atol=1e-10)
    assert r.rank.item() == 2 and r.residuals.numel() == 0 and r.singular_values.numel() == 0    # gelsy
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        openreg.linalg.lstsq(openreg.tensor(a), openreg.tensor(b), driver="gesv")


def test_gradcheck():
    rng = np.random.default_rng(5)
    A = openreg.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    B = openreg.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    gradcheck = openreg.autograd.gradcheck
    assert gradcheck(lambda a: openreg.linalg.lu_factor(a).LU, (A,))
    assert gradcheck(lambda a: openreg.linalg.lu(a)[1:], (A,))
    for shape in [(5, 3), (3, 5)]:                                  # tall and wide
        R = openreg.tensor(rng.standard_normal(shape), requires_grad=True)
        assert gradcheck(lambda a: openreg.linalg.lu_factor(a).LU, (R,))
        assert gradcheck(lambda a: openreg.linalg.lu(a)[1:], (R,))
    LU, pivots = openreg.linalg.lu_factor(A.detach())
    LU.requires_grad_()
    for left, adjoint in [(True, False), (True, True), (False, False)]:
        rhs = B if left else B.detach().mT.clone().requires_grad_()
        assert gradcheck(lambda lu, b, left=left, adjoint=adjoint: openreg.linalg.lu_solve(lu, pivots, b, left=left,
                                                                                          adjoint=adjoint),
                         (LU, rhs))
    tall = openreg.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    wide = openreg.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert gradcheck(lambda a, b: openreg.linalg.lstsq(a, b).solution, (tall, openreg.tensor(
        rng.standard_normal((5, 2)), requires_grad=True)))
    assert gradcheck(lambda a, b: openreg.linalg.lstsq(a, b).solution, (wide, openreg.tensor(
        rng.standard_normal((2, 1)), requires_grad=True)))


def _both(fn, *arrays, grad=True):
    out = []
    for lib in (torch, openreg):
        ts = [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        r = fn(lib, *ts)
        r = r if isinstance(r, tuple) else (r,)
        weights = [lib.tensor(np.linspace(0.3, 1.7, x.numel()).reshape(tuple(x.shape))) for x in r]
        terms = [(x * w).sum() for x, w in zip(r, weights) if x.is_floating_point() and x.requires_grad]
        if grad and terms:
            sum(terms).backward()
        out.append([x.detach().numpy() for x in r] + [t.grad.numpy() for t in ts if t.grad is not None])
    return out


def _assert_same(pair):
    ours, theirs = pair[1], pair[0]
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape and o.dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=1e-8, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("shape", SHAPES)
def test_lu_family_equals_pytorchs(shape):
    rng = np.random.default_rng(11)
    a = rng.standard_normal(shape)
    square = shape[-1] == shape[-2]
    _assert_same(_both(lambda lib, x: tuple(lib.linalg.lu_factor(x)), a))
    _assert_same(_both(lambda lib, x: tuple(lib.linalg.lu(x)), a))
    if square:
        b = rng.standard_normal(shape[:-1] + (2,))
        _assert_same(_both(lambda lib, x, y: tuple(lib.linalg.solve_ex(x, y)), a, b))
        _assert_same(_both(lambda lib, x: tuple(lib.lu_unpack(*lib.linalg.lu_factor(x))), a))
        for left in (True, False):
            for adjoint in (True, False):
                rhs = b if left else np.swapaxes(b, -1, -2)
                _assert_same(_both(lambda lib, x, y, left=left, adjoint=adjoint: lib.linalg.lu_solve(
                    *lib.linalg.lu_factor(x), y, left=left, adjoint=adjoint), a, rhs))


@needs_torch
@pytest.mark.filterwarnings("ignore:torch.lu")
def test_deprecated_tensor_lu_methods_equal_pytorchs():
    # Tensor.lu(pivot, get_infos) and Tensor.lu_solve(LU_data, LU_pivots), as the Glow flows of pytorch-normalizing-flows call them
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
    _assert_same(_both(lambda lib, x: tuple(x.lu()), a, grad=False))
    _assert_same(_both(lambda lib, x: tuple(lib.lu_unpack(*x.lu(get_infos=True)[:2])), a))
    _assert_same(_both(lambda lib, x, y: y.lu_solve(*x.lu()), a, b))


@needs_torch
def test_singular_results_equal_pytorchs():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    _assert_same(_both(lambda lib, x: tuple(lib.linalg.lu_factor_ex(x)), s, grad=False))


@needs_torch
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss", None])
@pytest.mark.parametrize("shape,k", [((5, 3), 2), ((3, 5), 2), ((4, 4), 1), ((2, 6, 3), 2), ((5, 3), None)])
def test_lstsq_equals_pytorchs(driver, shape, k):
    rng = np.random.default_rng(shape[-1] + 3 * shape[-2])
    a = rng.standard_normal(shape)
    b = rng.standard_normal(shape[:-1] + ((k,) if k else ()))
    _assert_same(_both(lambda lib, x, y: tuple(lib.linalg.lstsq(x, y, driver=driver)), a, b))


@needs_torch
@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_lstsq_rank_deficient_equals_pytorchs(driver):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 3))
    _assert_same(_both(lambda lib, x, y: tuple(lib.linalg.lstsq(x, y, driver=driver)), a,
                       rng.standard_normal((5, 2)), grad=False))


def test_inv_ex_reports_singular_matrices():
    singular = openreg.tensor([[1.0, 2.0], [2.0, 4.0]])
    r = openreg.linalg.inv_ex(openreg.stack([openreg.eye(2) * 2, singular]))
    assert r.info.tolist() == [0, 2] and r.inverse[0].tolist() == [[0.5, 0.0], [0.0, 0.5]]
    assert not bool(openreg.isfinite(r.inverse[1]).all())
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): The diagonal element 2 is zero"):
        openreg.linalg.inv_ex(openreg.stack([openreg.eye(2), singular]), check_errors=True)


@needs_torch
def test_inv_ex_of_a_singular_matrix_equals_pytorchs():
    _assert_same(_both(lambda lib, x: tuple(lib.linalg.inv_ex(x)), np.array([[1.0, 2.0], [2.0, 4.0]]), grad=False))


@needs_torch
def test_complex_inputs_equal_pytorchs():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    b = rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))
    for adjoint in (False, True):
        _assert_same(_both(lambda lib, x, y, adjoint=adjoint: lib.linalg.lu_solve(*lib.linalg.lu_factor(x), y,
                                                                                  adjoint=adjoint), a, b, grad=False))
    tall = rng.standard_normal((6, 3)) + 1j * rng.standard_normal((6, 3))
    rhs = rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))
    for driver in ("gelsy", "gelsd"):
        _assert_same(_both(lambda lib, x, y, driver=driver: tuple(lib.linalg.lstsq(x, y, driver=driver)), tall, rhs,
                           grad=False))
