"""cholesky_solve/cholesky_inverse, linalg.eig/eigvals, tensorinv/tensorsolve, householder_product and
LinAlgError against PyTorch: values, dtypes, gradients and errors on the CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")
from test_linalg_decompositions_vs_torch import _check, _spd

RNG = np.random.default_rng(5)


def test_cholesky_solve_and_inverse(devices):
    L = np.linalg.cholesky(_spd(3))
    B = RNG.uniform(-1, 1, (2, 3, 2))
    for upper in (False, True):
        F = L.T if upper else L
        _check(lambda m, b, f, upper=upper: m.cholesky_solve(b, f, upper=upper), B, F, device=devices)
        _check(lambda m, b, f, upper=upper: b.cholesky_solve(f, upper), B[0], F, device=devices)
        _check(lambda m, f, upper=upper: m.cholesky_inverse(f, upper=upper), F, device=devices)
        _check(lambda m, f, upper=upper: f.cholesky_inverse(upper), np.stack([F, F]), device=devices)


def test_eig_and_eigvals(devices):
    a = RNG.uniform(-1, 1, (3, 3)) + np.diag([0.0, 2.0, 4.0])
    rot = np.array([[0.0, -1.0], [1.0, 0.0]]) + np.diag([0.5, 0.5])   # complex conjugate pair
    for x in (a, rot, np.stack([a, a.T])):
        _check(lambda m, t: m.view_as_real(m.linalg.eigvals(t)), x, device=devices, grad=False)
        _check(lambda m, t: m.view_as_real(m.linalg.eig(t).eigenvectors), x, device=devices, grad=False)
    # gradients of phase-independent functions of the results
    _check(lambda m, t: (m.view_as_real(m.linalg.eig(t).eigenvalues), m.linalg.eig(t).eigenvectors.abs()), a,
           device=devices)
    _check(lambda m, t: m.view_as_real(m.linalg.eigvals(t)), rot, device=devices)
    ours = openreg.linalg.eig(openreg.tensor(a.tolist(), dtype=openreg.float32, device=devices))
    assert ours.eigenvalues.dtype is openreg.complex64 and ours.eigenvectors.dtype is openreg.complex64


def test_eig_phase_dependent_loss_refused():
    x = openreg.tensor((RNG.uniform(-1, 1, (3, 3)) + np.diag([0.0, 2.0, 4.0])).tolist(), requires_grad=True)
    V = openreg.linalg.eig(x).eigenvectors
    with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^\\{i phi\\}"):
        openreg.view_as_real(V).sum().backward()


def test_tensorinv_tensorsolve(devices):
    a = RNG.uniform(-1, 1, (4, 6)) + np.eye(4, 6) * 3
    a = np.concatenate([a, RNG.uniform(-1, 1, (2, 6)) + np.eye(2, 6, 4) * 3]).reshape(6, 2, 3)
    _check(lambda m, t: m.linalg.tensorinv(t, ind=1), a, device=devices)
    A6 = (RNG.uniform(-1, 1, (6, 6)) + 3 * np.eye(6)).reshape(2, 3, 6)
    _check(lambda m, t, b: m.linalg.tensorsolve(t, b), A6, RNG.uniform(-1, 1, (2, 3)), device=devices)
    A7 = (RNG.uniform(-1, 1, (6, 6)) + 3 * np.eye(6)).reshape(6, 2, 3)
    _check(lambda m, t, b: m.linalg.tensorsolve(t, b, dims=(0,)), A7, RNG.uniform(-1, 1, (2, 3)), device=devices)


def test_householder_product(devices):
    x = RNG.uniform(-1, 1, (2, 5, 3))
    tau = RNG.uniform(0.5, 1.5, (2, 2))
    _check(lambda m, a, t: m.linalg.householder_product(a, t), x, tau, device=devices)
    _check(lambda m, a, t: (m.orgqr(a, t), a.orgqr(t)), x[0], tau[0], device=devices)
    # Q of a QR decomposition from geqrf's output (LAPACK through NumPy)
    q, r = np.linalg.qr(RNG.uniform(-1, 1, (4, 3)), mode="raw")
    _check(lambda m, a, t: m.linalg.householder_product(a, t), q.T, r, device=devices, grad=False)


def test_geqrf_and_ormqr(devices):
    for x in (RNG.uniform(-1, 1, (5, 3)), RNG.uniform(-1, 1, (2, 4, 4))):
        _check(lambda m, a: tuple(m.geqrf(a)), x, device=devices, grad=False)
        _check(lambda m, a: a.geqrf().a, x, device=devices, grad=False)
    a, tau = torch.geqrf(torch.tensor(RNG.uniform(-1, 1, (4, 3))))
    for left in (True, False):
        for transpose in (False, True):
            other = RNG.uniform(-1, 1, (4, 2) if left else (2, 4))
            _check(lambda m, h, t, c, left=left, transpose=transpose: m.ormqr(h, t, c, left, transpose),
                   a.numpy(), tau.numpy(), other, device=devices)
    r = openreg.geqrf(openreg.tensor([[3.0], [4.0]], device=devices))
    assert r.a.shape == (2, 1) and r.tau.shape == (1,)


def test_triangular_solve_and_removed_functions(devices):
    import warnings
    U = np.triu(RNG.uniform(-1, 1, (3, 3))) + 3 * np.eye(3)
    B = RNG.uniform(-1, 1, (2, 3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for upper in (True, False):
            for transpose in (False, True):
                F = U if upper else U.T
                _check(lambda m, b, a, upper=upper, transpose=transpose: tuple(m.triangular_solve(
                    b, a, upper, transpose)), B, F, device=devices)
        _check(lambda m, b, a: m.triangular_solve(b, a, unitriangular=True).solution, B[0], U, device=devices)
    for name in ("solve", "lstsq", "eig", "symeig", "matrix_rank"):
        with pytest.raises(RuntimeError, match="This function was deprecated since version 1.9 and is now removed"):
            getattr(openreg, name)(openreg.eye(2), openreg.eye(2))


def test_errors_match_torch():
    cases = [
        lambda m: m.cholesky_solve(m.ones(3), m.eye(3)),
        lambda m: m.cholesky_solve(m.ones(2, 1), m.eye(3)),
        lambda m: m.cholesky_solve(m.ones(3, 1, dtype=m.float64), m.eye(3)),
        lambda m: m.cholesky_solve(m.ones(3, 1), m.ones(3, 2)),
        lambda m: m.cholesky_inverse(m.ones(3)),
        lambda m: m.cholesky_inverse(m.ones(2, 3)),
        lambda m: m.linalg.eig(m.ones(2)),
        lambda m: m.linalg.eig(m.ones(2, 3)),
        lambda m: m.linalg.eigvals(m.ones(2, 3)),
        lambda m: m.linalg.tensorinv(m.ones(2, 3), ind=0),
        lambda m: m.linalg.tensorinv(m.ones(2, 3, 2)),
        lambda m: m.linalg.tensorsolve(m.ones(2, 3, 5), m.ones(2, 3)),
        lambda m: m.linalg.householder_product(m.ones(3), m.ones(1)),
        lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(1)),
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(3)),
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(1, 1)),
        lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(3, 1)),
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(1, dtype=m.float64)),
        lambda m: m.geqrf(m.ones(3)),
        lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(2, 2)),
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(openreg)
        assert str(ours.value) == str(theirs.value)


def test_linalg_error_is_raised_where_torch_raises_it():
    assert issubclass(openreg.linalg.LinAlgError, RuntimeError)
    cases = [
        lambda m: m.linalg.inv(m.zeros(2, 2)),
        lambda m: m.linalg.solve(m.zeros(2, 2), m.ones(2, 1)),
        lambda m: m.linalg.cholesky(-m.eye(2)),
        lambda m: m.linalg.cholesky_ex(-m.eye(2), check_errors=True),
        lambda m: m.linalg.inv_ex(m.zeros(2, 2), check_errors=True),
        lambda m: m.linalg.lu_factor(m.zeros(2, 2)),        # a plain RuntimeError in both
        lambda m: m.linalg.inv(m.ones(2, 3)),               # shape errors: plain RuntimeError
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(openreg)
        assert isinstance(ours.value, openreg.linalg.LinAlgError) == isinstance(theirs.value, torch.linalg.LinAlgError)
