"""operators/linalg_decompositions.py and openreg.linalg against PyTorch: values (up to the sign freedom of
factorizations), shapes, dtypes, errors and gradients on the CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

RNG = np.random.default_rng(11)


def _pair(arr, device="cpu", grad=False, dtype="float64"):
    arr = np.asarray(arr)
    return (openreg.tensor(arr.tolist(), dtype=getattr(openreg, dtype), device=device, requires_grad=grad),
            torch.tensor(arr.tolist(), dtype=getattr(torch, dtype), requires_grad=grad))


def _same(ours, theirs, tol=1e-8):
    if isinstance(theirs, (tuple, list)):
        for o, t in zip(ours, theirs):
            _same(o, t, tol)
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.detach().cpu().tolist(), dtype=float),
                               np.asarray(theirs.detach().tolist(), dtype=float), rtol=tol, atol=tol, equal_nan=True)


def _check(fn, *arrays, device="cpu", grad=True, tol=1e-8):
    pairs = [_pair(a, device, grad) for a in arrays]
    ours, theirs = fn(openreg, *[p[0] for p in pairs]), fn(torch, *[p[1] for p in pairs])
    _same(ours, theirs, tol)
    if grad:
        outs = ours if isinstance(ours, (tuple, list)) else (ours,)
        touts = theirs if isinstance(theirs, (tuple, list)) else (theirs,)
        total_o = sum((o * openreg.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)).tolist(),
                                          dtype=o.dtype, device=device)).sum() for o in outs)
        total_t = sum((t * torch.tensor(np.cos(np.arange(t.numel())).reshape(tuple(t.shape)).tolist(),
                                        dtype=t.dtype)).sum() for t in touts)
        total_o.backward()
        total_t.backward()
        for po, pt in pairs:
            _same(po.grad if po.grad is not None else openreg.zeros_like(po), pt.grad, tol * 100)


def _spd(n, batch=()):
    a = RNG.uniform(-1, 1, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


SQ = RNG.uniform(-1, 1, (3, 3)) + 2 * np.eye(3)
BATCH = RNG.uniform(-1, 1, (2, 3, 3)) + 2 * np.eye(3)
TALL = RNG.uniform(-1, 1, (5, 3))


def test_inverse_det_slogdet(devices):
    for a in (SQ, BATCH):
        _check(lambda m, x: m.linalg.inv(x), a, device=devices)
        _check(lambda m, x: (m.inverse(x), x.inverse()), a, device=devices)
        _check(lambda m, x: (m.linalg.det(x), m.det(x), x.det()), a, device=devices)
        _check(lambda m, x: m.linalg.slogdet(x).logabsdet, a, device=devices)
        _check(lambda m, x: m.slogdet(x), a, device=devices, grad=False)
        _check(lambda m, x: m.logdet(x @ x.mT), a, device=devices)
        _check(lambda m, x: m.linalg.inv_ex(x).inverse, a, device=devices)
    neg = np.diag([-1.0, 2.0])
    _check(lambda m, x: (m.logdet(x), m.slogdet(x).sign), neg, device=devices, grad=False)


def test_cholesky(devices):
    for a in (_spd(3), _spd(2, (2,))):
        _check(lambda m, x: m.linalg.cholesky((x + x.mT) / 2), a, device=devices)
        _check(lambda m, x: m.linalg.cholesky((x + x.mT) / 2, upper=True), a, device=devices)
        _check(lambda m, x: (m.cholesky((x + x.mT) / 2), x.cholesky()), a, device=devices, grad=False)
        _check(lambda m, x: m.linalg.cholesky_ex(x).L, a, device=devices, grad=False)


def _sign_fixed_qr(m, x, mode="reduced"):
    q, r = m.linalg.qr(x, mode)
    s = m.sign(m.diagonal(r, 0, -2, -1))
    k = s.shape[-1]
    return q[..., :, :k] * s.unsqueeze(-2), r[..., :k, :] * s.unsqueeze(-1)


def test_qr(devices):
    for a in (SQ, TALL, RNG.uniform(-1, 1, (2, 4, 3))):
        _check(_sign_fixed_qr, a, device=devices)
        _check(lambda m, x: tuple(t.abs() for t in m.qr(x)), a, device=devices, grad=False)
    _check(lambda m, x: _sign_fixed_qr(m, x, "complete")[1], TALL, device=devices, grad=False)
    assert openreg.linalg.qr(openreg.ones(4, 2), mode="complete").Q.shape == (4, 4)
    assert openreg.linalg.qr(openreg.ones(4, 2), mode="r").Q.numel() == 0


def _sign_fixed_svd(m, x):
    u, s, vh = m.linalg.svd(x, full_matrices=False)
    sign = m.sign(u[..., :1, :])
    return u * sign, s, vh * sign.mT


def test_svd_and_friends(devices):
    for a in (SQ, TALL, TALL.T.copy(), RNG.uniform(-1, 1, (2, 3, 4))):
        _check(_sign_fixed_svd, a, device=devices, tol=1e-7)
        _check(lambda m, x: m.linalg.svdvals(x), a, device=devices)
        _check(lambda m, x: m.linalg.pinv(x), a, device=devices, tol=1e-7)
        _check(lambda m, x: m.pinverse(x), a, device=devices, grad=False)
    _check(lambda m, x: m.svd(x).S, TALL, device=devices)
    u, _, v = openreg.svd(openreg.tensor(TALL.tolist(), dtype=openreg.float64))
    assert u.shape == (5, 3) and v.shape == (3, 3)
    assert openreg.linalg.svd(openreg.ones(5, 3)).U.shape == (5, 5)


def test_eigh_solve_powers_exp(devices):
    sym = _spd(3)
    _check(lambda m, x: m.linalg.eigvalsh((x + x.mT) / 2), sym, device=devices)
    _check(lambda m, x: m.linalg.eigh((x + x.mT) / 2).eigenvectors.abs(), sym, device=devices, grad=False)
    b = RNG.uniform(-1, 1, (3, 2))
    _check(lambda m, x, y: m.linalg.solve(x, y), SQ, b, device=devices)
    _check(lambda m, x, y: m.linalg.solve(x, y[:, 0]), SQ, b, device=devices)
    _check(lambda m, x, y: m.linalg.solve(x, y.mT, left=False), SQ, b, device=devices)
    for n in (-2, 0, 1, 3, 6):
        _check(lambda m, x, n=n: (m.linalg.matrix_power(x, n), m.matrix_power(x, n)), BATCH, device=devices)
    for scale in (0.1, 1.0, 30.0):
        _check(lambda m, x, scale=scale: m.linalg.matrix_exp(x * scale), SQ, device=devices, tol=1e-7)
    _check(lambda m, x: m.matrix_exp(x), BATCH, device=devices, tol=1e-8)


def test_errors_match_torch():
    for case in (lambda m: m.linalg.inv(m.ones(2, 3)), lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.long)),
                 lambda m: m.linalg.det(m.ones(3)), lambda m: m.linalg.qr(m.ones(2, 2), mode="x"),
                 lambda m: m.linalg.eigh(m.eye(2), UPLO="X")):
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(type(theirs.value)) as ours:
            case(openreg)
        assert str(theirs.value)[:40] in str(ours.value), (str(ours.value), str(theirs.value))
    with pytest.raises(RuntimeError, match="singular"):
        openreg.linalg.inv(openreg.zeros(2, 2))
    with pytest.raises(RuntimeError, match="positive-definite"):
        openreg.linalg.cholesky(-openreg.eye(2))
    with pytest.raises(RuntimeError, match="Low precision"):
        openreg.linalg.inv(openreg.eye(2, dtype=openreg.float16))


def test_float32_and_orthogonal_init(devices):
    _check(lambda m, x: m.linalg.inv(x), SQ.astype(np.float32), device=devices, grad=False, tol=1e-5)
    q = openreg.nn.init.orthogonal_(openreg.empty(4, 6, device=devices))
    assert float((q @ q.T - openreg.eye(4, device=devices)).abs().amax()) < 1e-5
