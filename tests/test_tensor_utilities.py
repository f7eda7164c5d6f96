"""Joins (hstack/vstack/dstack/column_stack/row_stack, atleast_nd), splits (tensor_split, h/v/dsplit),
broadcast_to/broadcast_tensors/broadcast_shapes, tile, type_as, is_floating_point/is_complex, unfold and H/mH:
values, shapes, strides (views), errors and gradients against PyTorch on the CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE

import openreg
from openreg.autograd import gradcheck

CASES = {
    "hstack_1d": lambda t: t.hstack([t.arange(2), t.arange(3)]),
    "hstack_2d": lambda t: t.hstack([t.ones(2, 1), t.zeros(2, 2)]),
    "hstack_0d": lambda t: t.hstack([t.tensor(1), t.tensor(2)]),
    "hstack_empty": lambda t: t.hstack([]),
    "vstack": lambda t: t.vstack([t.arange(2), t.arange(2).reshape(1, 2)]),
    "row_stack": lambda t: t.row_stack([t.arange(2), t.arange(2)]),
    "dstack": lambda t: t.dstack([t.arange(2), t.arange(2)]),
    "dstack_2d": lambda t: t.dstack([t.ones(2, 2), t.zeros(2, 2)]),
    "column_stack": lambda t: t.column_stack([t.arange(2), t.arange(4).reshape(2, 2), t.tensor([7, 8])]),
    "column_stack_empty": lambda t: t.column_stack([]),
    "vstack_mismatch": lambda t: t.vstack([t.ones(2), t.ones(3)]),
    "atleast_3d": lambda t: t.atleast_3d(t.ones(2, 3)),
    "atleast_2d_many": lambda t: t.stack(t.atleast_2d(t.tensor(1.0), t.tensor(2.0))),
    "tensor_split_sections": lambda t: t.stack([p.sum() for p in t.tensor_split(t.arange(7), 3)]),
    "tensor_split_indices": lambda t: t.stack([p.sum() for p in t.arange(7).tensor_split([1, 5, 3, 10])]),
    "tensor_split_tensor": lambda t: t.stack([p.sum() for p in t.tensor_split(t.arange(7), t.tensor(3))]),
    "tensor_split_negative": lambda t: t.stack([p.sum() for p in t.tensor_split(t.arange(7), [-2])]),
    "tensor_split_dim": lambda t: t.cat(t.tensor_split(t.arange(10).reshape(2, 5), 3, dim=1)),
    "tensor_split_0d": lambda t: t.tensor_split(t.tensor(1.0), 2),
    "tensor_split_zero": lambda t: t.tensor_split(t.ones(3), 0),
    "tensor_split_2d_index": lambda t: t.tensor_split(t.ones(3), t.tensor([[1]])),
    "tensor_split_float_index": lambda t: t.tensor_split(t.ones(3), t.tensor([1.0])),
    "hsplit": lambda t: t.stack(t.hsplit(t.arange(16.0).reshape(4, 4), 2)),
    "hsplit_1d": lambda t: t.stack(t.hsplit(t.arange(4.0), [2])),
    "vsplit": lambda t: t.cat(t.arange(16.0).reshape(4, 4).vsplit([1, 3]), 1),
    "dsplit": lambda t: t.stack(t.dsplit(t.arange(8.0).reshape(2, 2, 2), 2)),
    "hsplit_0d": lambda t: t.hsplit(t.tensor(1.0), 2),
    "hsplit_indivisible": lambda t: t.hsplit(t.ones(3, 3), 2),
    "hsplit_zero": lambda t: t.hsplit(t.ones(3, 3), 0),
    "vsplit_1d": lambda t: t.vsplit(t.ones(3), 2),
    "dsplit_2d": lambda t: t.dsplit(t.ones(3, 3), 2),
    "broadcast_to": lambda t: t.broadcast_to(t.tensor([1, 2]), (2, 2)),
    "broadcast_to_keep": lambda t: t.ones(3, 1).broadcast_to(-1, 4),
    "broadcast_to_bad": lambda t: t.broadcast_to(t.ones(3), (2, 2)),
    "broadcast_tensors": lambda t: t.stack(t.broadcast_tensors(t.ones(2, 1), t.arange(3.0))),
    "broadcast_tensors_bad": lambda t: t.broadcast_tensors(t.ones(3), t.ones(2)),
    "tile": lambda t: t.tile(t.tensor([[1, 2]]), (2,)),
    "tile_longer": lambda t: t.tensor([1, 2]).tile(2, 2),
    "type_as": lambda t: t.tensor([1, 2]).type_as(t.ones(1, dtype=t.float64)),
    "unfold": lambda t: t.arange(12.0).reshape(3, 4).unfold(1, 2, 1),
    "unfold_step": lambda t: t.arange(7).unfold(0, 3, 2),
    "unfold_0d": lambda t: t.tensor(3.0).unfold(0, 1, 1),
    "unfold_too_big": lambda t: t.ones(5).unfold(0, 6, 1),
    "unfold_step_zero": lambda t: t.ones(5).unfold(0, 2, 0),
    "unfold_negative_size": lambda t: t.ones(5).unfold(0, -1, 1),
    "unfold_dim": lambda t: t.ones(5).unfold(1, 2, 1),
    "H": lambda t: t.arange(6).reshape(2, 3).H,
    "H_3d": lambda t: t.ones(2, 3, 4).H,
    "H_1d": lambda t: t.ones(3).H,
    "mH": lambda t: t.arange(12).reshape(2, 3, 2).mH,
    "mH_1d": lambda t: t.ones(3).mH,
}

CPU_INDEX_CASES = {"tensor_split_tensor", "tensor_split_2d_index", "tensor_split_float_index"}


class _OnDevice:
    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        attr = getattr(openreg, name)
        if name in ("tensor", "zeros", "ones", "arange"):
            return lambda *a, **k: attr(*a, **k, device=self.device)
        return attr


def _run(fn, lib):
    try:
        return fn(lib), None
    except Exception as e:  # noqa: BLE001 - the outcome (value or error) is what is compared
        return None, e


@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case, device):
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    if case in CPU_INDEX_CASES and device != "cpu":   # as PyTorch with a cuda index tensor
        with pytest.raises(RuntimeError, match="tensor_indices_or_sections to be on cpu, but it's on privateuseone"):
            CASES[case](_OnDevice(device))
        return
    expected, error = _run(CASES[case], torch)
    got, our_error = _run(CASES[case], _OnDevice(device))
    if error is not None:
        assert type(our_error) is type(error), (our_error, error)
        assert str(our_error) == str(error)
        return
    assert our_error is None, our_error
    assert got.device == openreg.device(device) if device == "cpu" else got.device.type != "cpu"
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())


def test_views_share_storage_and_strides():
    x = openreg.arange(12.0).reshape(3, 4)
    for view in (x.unfold(0, 2, 1), openreg.broadcast_to(x[:1], (5, 4)), openreg.tensor_split(x, 2, dim=1)[1],
                 x.H, openreg.hsplit(x, [1])[0]):
        assert view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x.unfold(0, 2, 1).stride() == (4, 1, 4)


@pytest.mark.parametrize("fn", [
    lambda a, b: openreg.hstack([a, b]), lambda a, b: openreg.vstack([a, b]), lambda a, b: openreg.dstack([a, b]),
    lambda a, b: openreg.column_stack([a, b]), lambda a, b: openreg.tensor_split(a * b, [1, 2], dim=1)[1],
    lambda a, b: openreg.broadcast_tensors(a, b[:1])[1], lambda a, b: a.tile(2, 1) * 2,
    lambda a, b: a.unfold(1, 2, 1) * b.unfold(1, 2, 1)], ids=["hstack", "vstack", "dstack", "column_stack",
                                                              "tensor_split", "broadcast_tensors", "tile", "unfold"])
def test_gradients(fn, devices):
    a = openreg.randn(2, 3, dtype=openreg.float64, device=devices, requires_grad=True)
    b = openreg.randn(2, 3, dtype=openreg.float64, device=devices, requires_grad=True)
    assert gradcheck(fn, [a, b])


def test_type_queries_and_type_as_device():
    assert openreg.is_floating_point(openreg.ones(1)) and not openreg.is_floating_point(openreg.ones(1).long())
    assert openreg.is_complex(openreg.tensor([1j])) and not openreg.is_complex(openreg.ones(1))
    y = openreg.tensor([1, 2]).type_as(openreg.ones(1, dtype=openreg.float16, device=LAST_DEVICE))
    assert y.dtype == openreg.float16 and y.device.type != "cpu"
    x = openreg.ones(2)
    assert x.type_as(openreg.zeros(1)) is x


def test_H_of_complex_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="conj"):
        _ = openreg.tensor([[1j]]).H
    assert openreg.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
