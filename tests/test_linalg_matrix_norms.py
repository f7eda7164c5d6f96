"""``linalg.matrix_norm``/``linalg.norm``/``linalg.cond`` in every matrix order PyTorch has ("fro", "nuc", +-2,
+-1, +-inf): values, ``dim``/``keepdim``, gradients and errors, on the CPU and the device."""
import math

import numpy as np
import pytest
from device_params import DEVICES

import openreg

ORDS = ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf]


def _np_norm(a, o):
    return np.linalg.norm(a.astype(np.float64), {"fro": "fro", "nuc": "nuc"}.get(o, o), axis=(-2, -1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("o", ORDS)
def test_matrix_norm_against_numpy(device, o):
    a = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    x = openreg.tensor(a, device=device)
    np.testing.assert_allclose(np.array(openreg.linalg.matrix_norm(x, o).tolist()), _np_norm(a, o), rtol=2e-6)
    np.testing.assert_allclose(np.array(openreg.linalg.norm(x, o, dim=(1, 2)).tolist()), _np_norm(a, o), rtol=2e-6)
    kept = openreg.linalg.matrix_norm(x, o, dim=(0, 2), keepdim=True)
    assert tuple(kept.shape) == (1, 4, 1)
    np.testing.assert_allclose(np.array(kept.flatten().tolist()), _np_norm(a.transpose(1, 0, 2), o), rtol=2e-6)


def test_matrix_norm_errors():
    A = openreg.ones(2, 2)
    for call, message in [(lambda: openreg.linalg.matrix_norm(A, 3), "Order 3 not supported"),
                          (lambda: openreg.linalg.matrix_norm(openreg.ones(2), 2), "at least 2 dimensions"),
                          (lambda: openreg.linalg.matrix_norm(A, 2, dim=(0, 0)), "dims must be different"),
                          (lambda: openreg.linalg.matrix_norm(A.int(), 2), "Got Int"),
                          (lambda: openreg.linalg.norm(openreg.ones(2, 2, 2), 2), "must be 1D or 2D. Got 3D")]:
        with pytest.raises(RuntimeError, match=message):
            call()


@pytest.mark.parametrize("o", ORDS)
def test_matrix_norm_and_cond_follow_torch(o):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    sq = np.array([[1.0, 2.0], [3.0, -4.0]], dtype=np.float32)
    results = []
    for lib in (openreg, torch):
        x = lib.tensor(a).requires_grad_()
        lib.linalg.matrix_norm(x, o).sum().backward()
        results.append((np.array(x.grad.tolist()), lib.linalg.cond(lib.tensor(sq), o).item()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    assert results[0][1] == pytest.approx(results[1][1], rel=1e-5)
