"""diag, diag_embed, diagflat, trace: shapes, offsets, dims, errors and gradients, on the CPU and the device.

AntixK/PyTorch-VAE's WAE-MMD/InfoVAE losses (``kernel.diag().sum()``) stopped on the missing ``Tensor.diag``.
"""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", [0, 1, -2, 5])
def test_diag_against_numpy(device, k):
    v = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert np.array_equal(openreg.diag(openreg.tensor(v, device=device), k).cpu().numpy(), np.diag(v, k))
    got = openreg.tensor(m, device=device).diag(k)
    assert np.array_equal(got.cpu().numpy(), np.diag(m, k)) and got.device.type == device.split(":")[0]


@pytest.mark.parametrize("device", DEVICES)
def test_embed_flat_trace(device):
    b = np.arange(6.0).reshape(2, 3)
    t = openreg.tensor(b, device=device)
    assert np.array_equal(openreg.diag_embed(t, 1).cpu().numpy(), np.stack([np.diag(r, 1) for r in b]))
    e = openreg.diag_embed(t, -1, 0, 2)
    assert e.shape == (4, 2, 4) and np.array_equal(e.cpu().numpy(), np.stack([np.diag(r, -1) for r in b], 1))
    assert np.array_equal(t.diagflat(2).cpu().numpy(), np.diagflat(b, 2))
    assert openreg.trace(t.t()).item() == np.trace(b.T)
    assert openreg.trace(openreg.arange(9, device=device).reshape(3, 3)).dtype == openreg.int64


def test_results_are_copies_and_errors():
    m = openreg.ones(2, 2)
    d = m.diag()
    d.add_(1)
    assert m.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(RuntimeError, match="Supports 1D or 2D"):
        openreg.diag(openreg.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        openreg.diag_embed(m, 0, 1, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        openreg.diag_embed(m, 0, 0, 3)
    with pytest.raises(RuntimeError, match="expected a matrix"):
        openreg.trace(openreg.ones(3))


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(device):
    x = openreg.tensor([1.0, 2.0], device=device, requires_grad=True)
    (openreg.diag(x, 1) * openreg.arange(9.0, device=device).reshape(3, 3)).sum().backward()
    assert x.grad.tolist() == [1.0, 5.0]
    w = openreg.ones(3, 3, device=device, requires_grad=True)
    (w.trace() * 2).backward()
    assert w.grad.cpu().numpy().tolist() == (2 * np.eye(3)).tolist()


def _behaviour(lib):
    out = []
    b = lib.arange(6.0).reshape(2, 3)
    calls = [lambda: lib.diag(lib.tensor(3.0)), lambda: b.diag_embed(dim1=-1, dim2=0), lambda: lib.diagflat(b, -1),
             lambda: lib.trace(lib.tensor([[True, True], [False, True]])), lambda: lib.diag(b, -1),
             lambda: lib.diag_embed(lib.tensor(2.0), 1)]
    for call in calls:
        try:
            r = call()
            out.append((str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist()))
        except Exception as e:  # noqa: BLE001 - the error type is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.skipif(torch is None, reason="needs PyTorch to compare with")
def test_same_as_pytorch():
    assert _behaviour(openreg) == _behaviour(torch)
