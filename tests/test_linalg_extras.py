"""linalg.matmul, multi_dot, vecdot, diagonal, solve_triangular, matrix_rank, vander and cond: against NumPy on
both devices (values and errors), against PyTorch (values and gradients) when it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg import linalg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(0)
M = rng.standard_normal((4, 4)) + 4 * np.eye(4)
B = rng.standard_normal((4, 2))


def test_numpy_values(devices):
    def t(a):
        return openreg.tensor(a, device=devices)
    np.testing.assert_allclose(linalg.matmul(t(M), t(B)).cpu().numpy(), M @ B, rtol=1e-12)
    chain = [rng.standard_normal(3), rng.standard_normal((3, 4)), M, rng.standard_normal(4)]
    np.testing.assert_allclose(linalg.multi_dot([t(c) for c in chain]).item(), np.linalg.multi_dot(chain), rtol=1e-12)
    np.testing.assert_allclose(linalg.vecdot(t(M), t(B[:, 0])).cpu().numpy(), M @ B[:, 0], rtol=1e-12)
    assert linalg.diagonal(t(M), offset=1).cpu().tolist() == np.diagonal(M, 1).tolist()
    U, L = np.triu(M), np.tril(M)
    np.testing.assert_allclose(linalg.solve_triangular(t(M), t(B), upper=True).cpu().numpy(),
                               np.linalg.solve(U, B), rtol=1e-10)
    unit = np.tril(M, -1) + np.eye(4)
    np.testing.assert_allclose(linalg.solve_triangular(t(M), t(B.T), upper=False, left=False,
                                                       unitriangular=True).cpu().numpy(),
                               B.T @ np.linalg.inv(unit), rtol=1e-10)
    np.testing.assert_allclose(linalg.solve_triangular(t(M), t(B), upper=False).cpu().numpy(),
                               np.linalg.solve(L, B), rtol=1e-10)
    low = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
    assert linalg.matrix_rank(t(low)).item() == 2 == np.linalg.matrix_rank(low)
    assert linalg.matrix_rank(t(low @ low.T), hermitian=True).item() == 2
    assert linalg.matrix_rank(t(np.diag([1.0, 1e-3, 0.0])), atol=1e-2).item() == 1
    assert linalg.vander(t(np.array([1, 2, 3]))).cpu().tolist() == np.vander([1, 2, 3], increasing=True).tolist()
    np.testing.assert_allclose(linalg.cond(t(M)).item(), np.linalg.cond(M), rtol=1e-10)
    np.testing.assert_allclose(linalg.cond(t(M), "fro").item(), np.linalg.cond(M, "fro"), rtol=1e-10)
    np.testing.assert_allclose(linalg.cond(t(M), -2).item(), np.linalg.cond(M, -2), rtol=1e-10)
    for p in (1, -1, np.inf, -np.inf, "nuc"):       # the other matrix norms: ||A|| ||A^-1||
        np.testing.assert_allclose(linalg.cond(t(M), p).item(), np.linalg.cond(M, p), rtol=1e-10)


def test_errors():
    with pytest.raises(RuntimeError, match="expected at least 2 tensors but got 1"):
        linalg.multi_dot([openreg.eye(2)])
    with pytest.raises(RuntimeError, match="tensor 1 must be 2D but got 1D"):
        linalg.multi_dot([openreg.eye(2), openreg.ones(2), openreg.eye(2)])
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        linalg.multi_dot([openreg.eye(2), openreg.eye(3)])
    with pytest.raises(TypeError):
        linalg.solve_triangular(openreg.eye(2), openreg.eye(2))   # upper is required
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        linalg.matrix_rank(openreg.ones(3))
    with pytest.raises(RuntimeError, match="linalg.cond got an invalid norm type: 3"):
        linalg.cond(openreg.eye(2), 3)


@needs_torch
def test_matches_pytorch_with_gradients():
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    for upper, left, unit in [(True, True, False), (False, False, True), (False, True, False)]:
        ta, tb = openreg.tensor(a, requires_grad=True), openreg.tensor(b if left else b.swapaxes(-1, -2).copy(),
                                                                      requires_grad=True)
        ra, rb = torch.tensor(a, requires_grad=True), torch.tensor(tb.detach().numpy(), requires_grad=True)
        got = linalg.solve_triangular(ta, tb, upper=upper, left=left, unitriangular=unit)
        ref = torch.linalg.solve_triangular(ra, rb, upper=upper, left=left, unitriangular=unit)
        np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-10)
        got.sum().backward()
        ref.sum().backward()
        np.testing.assert_allclose(ta.grad.numpy(), ra.grad.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(tb.grad.numpy(), rb.grad.numpy(), rtol=1e-9, atol=1e-12)
    x = rng.standard_normal((2, 4))
    assert linalg.vander(openreg.tensor(x), N=3).numpy() == pytest.approx(torch.linalg.vander(torch.tensor(x), N=3).numpy())
    for name, args in [("cond", (a,)), ("matrix_rank", (a,)), ("vecdot", (a, b[..., 0:1].swapaxes(-1, -2).copy()))]:
        got = getattr(linalg, name)(*[openreg.tensor(v) for v in args])
        ref = getattr(torch.linalg, name)(*[torch.tensor(v) for v in args])
        assert str(got.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10)
