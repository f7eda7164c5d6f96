"""gather, scatter_add(_), index_select, masked_fill(_) against NumPy, with PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import openreg


def test_gather_and_scatter_add(devices):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = openreg.tensor(a, device=devices)
    idx = np.array([[3, 0], [1, 1], [2, 3]])
    g = x.gather(1, openreg.tensor(idx, device=devices))
    np.testing.assert_array_equal(g.cpu().numpy(), np.take_along_axis(a, idx, 1))
    idx0 = np.array([[2, 0, 1]])  # smaller than self apart from dim 0
    np.testing.assert_array_equal(x.gather(0, openreg.tensor(idx0)).cpu().numpy(),
                                  np.take_along_axis(a[:, :3], idx0, 0))
    z = openreg.zeros(3, 4, device=devices)
    src = openreg.ones(3, 2, device=devices)
    out = z.scatter_add(1, openreg.tensor([[0, 0], [3, 1], [2, 2]], device=devices), src)
    assert out.cpu().tolist() == [[2.0, 0, 0, 0], [0, 1.0, 0, 1.0], [0, 0, 2.0, 0]] and z.sum().item() == 0
    v = z._version
    z.scatter_add_(0, openreg.tensor([[1, 1, 1, 1]], device=devices), openreg.ones(1, 4, device=devices))
    assert z.cpu().tolist()[1] == [1.0] * 4 and z._version == v + 1


def test_gather_scatter_errors():
    x = openreg.zeros(3, 4)
    with pytest.raises(RuntimeError, match="gather\\(\\): Expected dtype int64 for index"):
        x.gather(1, openreg.tensor([[0]], dtype=openreg.int32))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as input tensor"):
        x.gather(1, openreg.tensor([0]))
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        x.gather(1, openreg.tensor([[4]]))
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        x.scatter_add_(0, openreg.tensor([[0]]), openreg.ones(1, 1, dtype=openreg.float64))
    assert x.sum().item() == 0


def test_index_select(devices):
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    x = openreg.tensor(a, device=devices)
    for dim, idx in [(0, [1, 0, 1]), (2, [3]), (-2, [2, 0]), (1, [])]:
        r = x.index_select(dim, openreg.tensor(idx, dtype=openreg.int64))
        np.testing.assert_array_equal(r.cpu().numpy(), np.take(a, np.array(idx, dtype=np.int64), axis=dim))
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds, id=2 axis_dim=2"):
        x.index_select(0, openreg.tensor([2]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_select(0, openreg.tensor([[0]]))
    assert openreg.empty(2, 3, 4, device="meta").index_select(1, openreg.tensor([0, 0])).shape == (2, 2, 4)


def test_masked_fill(devices):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = openreg.tensor(a, device=devices)
    m = np.array([True, False, True])
    r = x.masked_fill(openreg.tensor(m, device=devices), -1.0)
    np.testing.assert_array_equal(r.cpu().numpy(), np.where(m, -1.0, a))
    assert x.cpu().numpy().tolist() == a.tolist()
    x.masked_fill_(openreg.tensor([[True], [False]], device=devices), openreg.tensor(9.0))
    assert x.cpu().tolist() == [[9.0] * 3, [3.0, 4.0, 5.0]]
    wide = openreg.zeros(3).masked_fill(openreg.tensor([[True, False, False], [False, False, True]]), 1.0)
    assert wide.shape == (2, 3) and wide.tolist() == [[1.0, 0, 0], [0, 0, 1.0]]
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        x.masked_fill_(openreg.tensor([1, 0, 1], device=devices), 0.0)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        x.masked_fill_(openreg.tensor([True, False, True], device=devices), openreg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        openreg.zeros(3).masked_fill_(openreg.tensor([[True], [False]]), 1.0)


def test_unsafe_view_shares_storage_without_base():
    x = openreg.arange(6.0)
    u = openreg.ops.aten._unsafe_view.default(x, [2, 3])
    assert u.untyped_storage() is x.untyped_storage() and u._base is None and u.shape == (2, 3)
