"""``linalg.cholesky_ex``: ``info`` is the order of the first leading minor that is not positive-definite (0 on
success) per batch element, ``check_errors=True`` raises PyTorch's error for the first failing element, and the
``positive_definite`` constraint reads it."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

MATS = [[[1.0, 2.0], [2.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]], [[-1.0, 0.0], [0.0, 1.0]]]


@pytest.mark.parametrize("device", ["cpu", "privateuseone:0"])
def test_info_per_batch_element(device):
    a = openreg.tensor(MATS, device=device)
    L, info = openreg.linalg.cholesky_ex(a)
    assert info.tolist() == [2, 0, 1] and info.dtype == openreg.int32 and info.device == a.device
    np.testing.assert_allclose(L[1].cpu().tolist(), np.linalg.cholesky(np.asarray(MATS[1])), rtol=1e-6)
    assert np.isnan(np.asarray(L[0].cpu().tolist())).all()
    L, info = openreg.linalg.cholesky_ex(a[1])
    assert info.tolist() == 0 and info.shape == ()
    with pytest.raises(RuntimeError, match=r"\(Batch element 0\): .*leading minor of order 2 is not positive"):
        openreg.linalg.cholesky_ex(a, check_errors=True)
    with pytest.raises(RuntimeError, match="cholesky_ex: The factorization could not be completed"):
        openreg.linalg.cholesky_ex(a[2], check_errors=True)
    from openreg.distributions import constraints
    assert constraints.positive_definite.check(a).tolist() == [False, True, False]


def test_matches_pytorch():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    theirs = torch.linalg.cholesky_ex(torch.tensor(MATS))
    ours = openreg.linalg.cholesky_ex(openreg.tensor(MATS))
    assert ours.info.tolist() == theirs.info.tolist()
    np.testing.assert_allclose(ours.L[1].tolist(), theirs.L[1].tolist(), rtol=1e-6)
