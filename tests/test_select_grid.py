"""equal, masked_select and meshgrid: values, shapes, 'ij'/'xy' indexing, PyTorch's warnings and errors,
gradients, on the CPU and the device (each was missing; test scripts and grid-building code call them)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from device_params import DEVICES

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None


@pytest.mark.parametrize("device", DEVICES)
def test_equal(device):
    a = openreg.ones(2, device=device)
    assert openreg.equal(a, a.clone()) and a.equal(a.double())
    assert not openreg.equal(a, openreg.ones(3, device=device))
    assert not openreg.equal(a, openreg.ones(1, 2, device=device))
    nan = openreg.tensor([float("nan")], device=device)
    assert not openreg.equal(nan, nan)


@pytest.mark.parametrize("device", DEVICES)
def test_masked_select_against_numpy(device):
    x = np.arange(6.0).reshape(2, 3)
    mask = np.array([True, False, True])
    got = openreg.masked_select(openreg.tensor(x, device=device), openreg.tensor(mask, device=device))
    assert got.cpu().numpy().tolist() == x[np.broadcast_to(mask, x.shape)].tolist()
    with pytest.raises(RuntimeError, match="expected BoolTensor for mask"):
        openreg.masked_select(openreg.tensor(x, device=device), openreg.tensor([1, 0, 1], device=device))
    t = openreg.tensor(x, device=device, requires_grad=True)
    t.masked_select(openreg.tensor(mask, device=device)).pow(2).sum().backward()
    assert t.grad.cpu().numpy().tolist() == (2 * x * mask).tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_against_numpy(device, indexing):
    xs = [np.arange(2), np.arange(3) * 10, np.arange(4) * 100]
    got = openreg.meshgrid(*[openreg.tensor(x, device=device) for x in xs], indexing=indexing)
    want = np.meshgrid(*xs, indexing=indexing)
    assert [g.cpu().numpy().tolist() for g in got] == [w.tolist() for w in want]
    listed = openreg.meshgrid([openreg.tensor(x, device=device) for x in xs[:2]], indexing=indexing)
    assert [g.cpu().numpy().tolist() for g in listed] == [w.tolist() for w in np.meshgrid(*xs[:2], indexing=indexing)]


def test_meshgrid_warning_and_errors():
    with pytest.warns(UserWarning, match="indexing argument"):
        openreg.meshgrid(openreg.arange(2), openreg.arange(3))
    with pytest.raises(RuntimeError, match="same dtype"):
        openreg.meshgrid(openreg.arange(2), openreg.ones(2), indexing="ij")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D"):
        openreg.meshgrid(openreg.ones(2), openreg.ones(2, 2), indexing="ij")
    with pytest.raises(RuntimeError, match="indexing must be one of"):
        openreg.meshgrid(openreg.ones(2), indexing="ab")


def _behaviour(lib):
    out = []
    calls = [lambda: lib.equal(lib.tensor([1, 2]), lib.tensor([1.0, 2.0])), lambda: lib.equal(lib.ones(2), 1),
             lambda: lib.masked_select(lib.tensor(3.0), lib.tensor([True, True])).tolist(),
             lambda: [g.tolist() for g in lib.meshgrid((lib.arange(2), lib.tensor(5)), indexing="xy")],
             lambda: [tuple(g.shape) for g in lib.meshgrid(lib.arange(3), indexing="xy")]]
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the error type is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.skipif(torch is None, reason="needs PyTorch to compare with")
def test_same_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _behaviour(openreg) == _behaviour(torch)
