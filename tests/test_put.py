"""Tensor.put_ / Tensor.put / openreg.put: flat writes (np.put) and accumulation (np.add.at), negative indices,
non-contiguous self, gradients, PyTorch's errors; against torch when it is installed."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

X = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("device", DEVICES)
def test_values_against_numpy(device):
    idx, src = np.array([0, 5, -1]), np.array([10.0, 20.0, 30.0], dtype=np.float32)
    x = openreg.tensor(X, device=device)
    assert x.put_(openreg.tensor(idx, device=device), openreg.tensor(src, device=device)) is x
    ref = X.copy()
    np.put(ref, idx % 12, src)
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    acc = openreg.put(openreg.tensor(X, device=device), openreg.tensor([1, 1, 2], device=device),
                      openreg.tensor(src, device=device), accumulate=True)
    ref = X.copy().reshape(-1)
    np.add.at(ref, [1, 1, 2], src)
    np.testing.assert_array_equal(acc.cpu().numpy(), ref.reshape(3, 4))
    t = openreg.tensor(X, device=device).t()              # not contiguous: positions in its own row-major order
    t.put_(openreg.tensor([1], device=device), openreg.tensor([-5.0], device=device))
    ref = X.T.copy()
    ref.reshape(-1)[1] = -5.0
    np.testing.assert_array_equal(t.cpu().numpy(), ref)


def test_gradients():
    x = openreg.tensor(X, requires_grad=True)
    s = openreg.tensor([2.0, 3.0], requires_grad=True)
    out = x.put(openreg.tensor([0, 6]), s)
    (out * openreg.arange(12.0).reshape(3, 4)).sum().backward()
    g = np.arange(12.0).reshape(-1)
    expected_x = g.copy()
    expected_x[[0, 6]] = 0
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), expected_x)
    np.testing.assert_array_equal(s.grad.numpy(), g[[0, 6]])


def test_errors():
    x = openreg.zeros(2, 3)
    with pytest.raises(IndexError, match="out of range: tried to access index 10 on a tensor of 6 elements"):
        x.put_(openreg.tensor([10]), openreg.tensor([1.0]))
    with pytest.raises(IndexError, match="Expected source and index to have the same number of elements"):
        x.put_(openreg.tensor([1, 2]), openreg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Int"):
        x.put_(openreg.tensor([1], dtype=openreg.int32), openreg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="self and source expected to have the same dtype"):
        x.put_(openreg.tensor([1]), openreg.tensor([1.0], dtype=openreg.float64))
    assert x.tolist() == [[0.0] * 3] * 2


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_against_torch():
    idx, src = np.array([3, -2, 3]), np.array([1.5, 2.5, 4.0], dtype=np.float32)
    for acc in (False, True):
        if not acc:
            idx = np.array([3, -2, 0])
        ours = openreg.tensor(X).put(openreg.tensor(idx), openreg.tensor(src), accumulate=acc).numpy()
        theirs = torch.tensor(X).put(torch.tensor(idx), torch.tensor(src), accumulate=acc).numpy()
        np.testing.assert_array_equal(ours, theirs)
