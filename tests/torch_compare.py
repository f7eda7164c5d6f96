"""Helpers of the differential tests against PyTorch: the same call run in openreg and in torch (CPU), outputs
and input gradients compared. Tests using them skip when PyTorch is not installed."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="differential tests need PyTorch")


def to_torch(x, requires_grad: bool = False):
    t = torch.from_numpy(np.array(np.asarray(x.detach().cpu()), copy=True))
    return t.requires_grad_(requires_grad) if requires_grad else t


def leaf(arr, device, requires_grad=False):
    """An openreg leaf on ``device`` holding ``arr``, and its torch twin."""
    arr = np.asarray(arr)
    o = openreg.tensor(arr, device=device)
    if requires_grad:
        o.requires_grad_(True)
    return o, to_torch(o, requires_grad)


def npy(x) -> np.ndarray:
    return np.asarray(x.detach().cpu()) if hasattr(x, "detach") else np.asarray(x)


def assert_close(ours, theirs, rtol=1e-5, atol=1e-6) -> None:
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_close(a, b, rtol, atol)
        return
    b = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    a = npy(ours)
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def compare(fn_ours, fn_theirs, arrays, device, grad=(), rtol=1e-5, atol=1e-6, seed=0):
    """Run ``fn_ours(*openreg tensors)`` and ``fn_theirs(*torch tensors)`` on ``arrays``; compare outputs and,
    for the argument positions in ``grad``, the gradients of ``(out * w).sum()`` for a fixed random ``w``."""
    pairs = [leaf(a, device, i in grad) for i, a in enumerate(arrays)]
    out_o = fn_ours(*[p[0] for p in pairs])
    out_t = fn_theirs(*[p[1] for p in pairs])
    assert_close(out_o, out_t, rtol, atol)
    if grad:
        w = np.random.default_rng(seed).standard_normal(tuple(out_t.shape)).astype(out_t.detach().numpy().dtype)
        (out_o * openreg.tensor(w, device=device)).sum().backward()
        (out_t * torch.from_numpy(w)).sum().backward()
        for i in grad:
            assert_close(pairs[i][0].grad, pairs[i][1].grad, rtol, atol)
    return out_o
