"""set_printoptions, set_default_device/get_default_device, is_nonzero, Tensor.new/apply_/map_,
masked_scatter(_), nan_to_num_/out=, index_reduce: behaviour against NumPy and, when installed, PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparisons below skip
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch to compare with")


@pytest.fixture
def restore_printoptions():
    yield
    openreg.set_printoptions(profile="default")
    if torch is not None:
        torch.set_printoptions(profile="default")


def test_set_printoptions(restore_printoptions):
    openreg.set_printoptions(precision=2)
    assert repr(openreg.tensor([1.23456, 2.5])) == "tensor([1.23, 2.50])"
    openreg.set_printoptions(sci_mode=True)
    assert repr(openreg.tensor([1.5])) == "tensor([1.50e+00])"
    openreg.set_printoptions(profile="default")
    assert repr(openreg.tensor([1.23456])) == "tensor([1.2346])"
    openreg.set_printoptions(threshold=4, edgeitems=1)
    assert "..." in repr(openreg.arange(10.0))
    with pytest.raises(ValueError, match="Invalid profile"):
        openreg.set_printoptions(profile="long")


@needs_torch
@pytest.mark.parametrize("options", [{"precision": 2}, {"precision": 6}, {"sci_mode": False}, {"sci_mode": True},
                                     {"profile": "short"}])
def test_printoptions_match_torch(options, restore_printoptions):
    values = [[1.23456789, 2.5], [3.25, 4.0]]   # one width: openreg does not pad columns as PyTorch does
    openreg.set_printoptions(**options)
    torch.set_printoptions(**options)
    assert repr(openreg.tensor(values)) == repr(torch.tensor(values))


def test_default_device(devices):
    assert openreg.get_default_device() == openreg.device("cpu")
    openreg.set_default_device(devices)
    try:
        for t in (openreg.zeros(2), openreg.ones(2, 2), openreg.arange(3), openreg.tensor([1.0]), openreg.randn(2),
                  openreg.full((2,), 3.0), openreg.empty(1), openreg.as_tensor(np.ones(2))):
            assert t.device.type == openreg.device(devices).type
        assert openreg.get_default_device().type == openreg.device(devices).type
        assert openreg.zeros(2, device="cpu").device.type == "cpu"
    finally:
        openreg.set_default_device(None)
    assert openreg.zeros(1).device.type == "cpu" and openreg.get_default_device().type == "cpu"


def test_is_nonzero():
    assert openreg.is_nonzero(openreg.tensor([1.5])) is True
    assert openreg.is_nonzero(openreg.tensor(0)) is False
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        openreg.is_nonzero(openreg.ones(2))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        openreg.is_nonzero(openreg.ones(0))


def test_legacy_new_apply_map(devices):
    t = openreg.tensor([1.0, 2.0], device=devices)
    assert t.new(2, 3).shape == (2, 3) and t.new(2, 3).device == t.device and t.new(2, 3).dtype == t.dtype
    assert t.new([5, 6]).tolist() == [5.0, 6.0] and t.new((7, 8)).tolist() == [7.0, 8.0]
    assert t.new().shape == (0,) and t.new(openreg.Size([4])).shape == (4,)
    x = openreg.tensor([1, 2, 3])
    assert x.apply_(lambda v: v * v) is x and x.tolist() == [1, 4, 9]
    y = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert y.map_(openreg.tensor([10.0, 20.0]), lambda a, b: a + b).tolist() == [[11.0, 22.0], [13.0, 24.0]]
    with pytest.raises(RuntimeError, match="requires grad"):
        openreg.ones(2, requires_grad=True).apply_(abs)
    if devices != "cpu":
        with pytest.raises(TypeError, match="only implemented on CPU"):
            t.apply_(abs)


def test_masked_scatter(devices):
    x = openreg.zeros(2, 3, device=devices)
    mask = openreg.tensor([True, False, True], device=devices)
    src = openreg.arange(6.0, device=devices)
    expected = np.zeros((2, 3))
    expected[np.broadcast_to(np.array([True, False, True]), (2, 3))] = np.arange(4.0)
    assert x.masked_scatter(mask, src).tolist() == expected.tolist()
    y = x.clone()
    assert y.masked_scatter_(mask, src) is y and y.tolist() == expected.tolist()
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        x.masked_scatter(openreg.tensor([1, 0, 1], device=devices), src)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        x.masked_scatter(mask, openreg.arange(3.0, device=devices))
    a = openreg.zeros(2, 3, dtype=openreg.float64, device=devices, requires_grad=True)
    s = openreg.arange(6.0, dtype=openreg.float64, device=devices, requires_grad=True)
    assert openreg.autograd.gradcheck(lambda a, s: a.masked_scatter(mask, s), (a, s))


def test_nan_to_num_inplace_and_out(devices):
    x = openreg.tensor([1.0, openreg.nan, openreg.inf, -openreg.inf], device=devices)
    hi = float(np.finfo(np.float32).max)
    assert x.clone().nan_to_num_().tolist() == [1.0, 0.0, hi, -hi]
    out = openreg.empty(0, device=devices)
    assert openreg.nan_to_num(x, nan=2.0, posinf=3.0, out=out) is out and out.tolist() == [1.0, 2.0, 3.0, -hi]


def test_index_reduce(devices):
    src = openreg.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]], device=devices)
    idx = openreg.tensor([0, 2, 0], device=devices)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert openreg.ones(3, 2, device=devices).index_reduce(0, idx, src, "prod").tolist() == \
            [[12.0, 21.0], [1.0, 1.0], [4.0, 5.0]]
        assert openreg.ones(3, 2, device=devices).index_reduce(0, idx, src, "mean", include_self=False).tolist() == \
            [[4.0, 5.0], [1.0, 1.0], [4.0, 5.0]]
        t = openreg.zeros(3, 2, device=devices)
        assert t.index_reduce_(0, idx, src, "amax") is t and t.tolist() == [[6.0, 7.0], [0.0, 0.0], [4.0, 5.0]]
        with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin"):
            t.index_reduce(0, idx, src, "sum")


@needs_torch
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_torch(reduce, include_self):
    rng = np.random.default_rng(3)
    base, src = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (5, 3))
    idx = [0, 2, 0, 3, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = openreg.tensor(base.tolist()).index_reduce(0, openreg.tensor(idx), openreg.tensor(src.tolist()), reduce,
                                                          include_self=include_self)
        theirs = torch.tensor(base.tolist()).index_reduce(0, torch.tensor(idx), torch.tensor(src.tolist()), reduce,
                                                          include_self=include_self)
    np.testing.assert_allclose(np.array(ours.tolist()), theirs.numpy(), rtol=1e-6)
