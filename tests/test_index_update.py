"""index_add/index_copy/index_fill, scatter, scatter_reduce, take and fill_diagonal_: values and errors against
PyTorch on the CPU and the device, and gradients of every scatter_reduce reduction (gradcheck, and against
PyTorch where ties and zeros make the formula matter)."""
from __future__ import annotations

import numpy as np
import pytest
from derivative_samples_indexing import REDUCTION_SAMPLES
from device_params import LAST_DEVICE

import openreg
from openreg.autograd import gradcheck

CASES = {
    "index_add": lambda t: t.zeros(3, 2).index_add(0, t.tensor([0, 0, 2]), t.ones(3, 2), alpha=2),
    "index_add_dim1": lambda t: t.zeros(3, 2).index_add(1, t.tensor([1]), t.arange(3.).reshape(3, 1)),
    "index_add_oob": lambda t: t.zeros(3, 2).index_add(0, t.tensor([5]), t.ones(1, 2)),
    "index_add_count": lambda t: t.zeros(3, 2).index_add(0, t.tensor([0]), t.ones(2, 2)),
    "index_add_shape": lambda t: t.zeros(3, 2).index_add(0, t.tensor([0]), t.ones(1, 3)),
    "index_add_2d_index": lambda t: t.zeros(3, 2).index_add(0, t.tensor([[0]]), t.ones(1, 2)),
    "index_add_dtype": lambda t: t.zeros(3, 2).index_add(0, t.tensor([0]), t.ones(1, 2, dtype=t.float64)),
    "index_add_int": lambda t: t.zeros(3, dtype=t.int64).index_add_(0, t.tensor([1, 1]), t.tensor([4, 5])),
    "index_copy": lambda t: t.zeros(3, 2).index_copy(0, t.tensor([2, 0]), t.arange(4.).reshape(2, 2)),
    "index_copy_negative": lambda t: t.zeros(3, 2).index_copy(0, t.tensor([-1]), t.ones(1, 2)),
    "index_copy_int32": lambda t: t.zeros(3).index_copy(0, t.tensor([0], dtype=t.int32), t.ones(1)),
    "index_fill": lambda t: t.zeros(3, 2).index_fill(0, t.tensor([-1]), 3),
    "index_fill_tensor": lambda t: t.zeros(3, 2).index_fill(1, t.tensor([0]), t.tensor(4.)),
    "index_fill_float_index": lambda t: t.zeros(3, 2).index_fill(0, t.tensor([0.]), 3),
    "index_fill_1d_value": lambda t: t.zeros(3, 2).index_fill(0, t.tensor([0]), t.tensor([1., 2])),
    "scatter_value": lambda t: t.zeros(2, 3).scatter(1, t.tensor([[2], [0]]), 1.5),
    "scatter_src": lambda t: t.zeros(2, 3).scatter(1, t.tensor([[2, 1], [0, 0]]), t.arange(1., 7).reshape(2, 3)),
    "scatter_function": lambda t: t.scatter(t.zeros(2, 3), 0, t.tensor([[1, 0, 1]]), t.ones(1, 3)),
    "scatter_add_reduce": lambda t: t.ones(2, 3).scatter(1, t.tensor([[2, 2], [0, 0]]), 2.0, reduce="add"),
    "scatter_in_place": lambda t: t.ones(2, 3).scatter_(1, t.tensor([[2, 2], [0, 0]]), 2.0, reduce="multiply"),
    "scatter_bad_reduce": lambda t: t.ones(2, 3).scatter(1, t.tensor([[2]]), 2.0, reduce="sum"),
    "scatter_oob": lambda t: t.zeros(2, 3).scatter(1, t.tensor([[5]]), 1.0),
    "scatter_dtype": lambda t: t.zeros(2, 3).scatter(1, t.tensor([[1]]), t.ones(1, 1, dtype=t.float64)),
    "scatter_reduce_bad": lambda t: t.ones(2).scatter_reduce(0, t.tensor([0]), t.ones(1), "add"),
    "take": lambda t: t.take(t.tensor([[1, 2], [3, 4]]), t.tensor([[0, -1], [2, 2]])),
    "take_oob": lambda t: t.take(t.tensor([[1, 2], [3, 4]]), t.tensor([4])),
    "take_float_index": lambda t: t.tensor([1, 2]).take(t.tensor([0.])),
    "argwhere": lambda t: t.argwhere(t.tensor([[0, 5], [7, 0]])),
    "argwhere_0d": lambda t: t.argwhere(t.tensor(2.)),
}
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _include in (True, False):
        for _dtype in ("float32", "int64"):
            CASES[f"scatter_reduce_{_reduce}_{_include}_{_dtype}"] = (
                lambda t, r=_reduce, i=_include, d=_dtype: t.tensor([[5, 7, 1], [2, -3, 4]], dtype=getattr(t, d))
                .scatter_reduce(1, t.tensor([[0, 0, 2], [1, 1, 1]]),
                                t.tensor([[2, 9, 4], [6, -8, 3]], dtype=getattr(t, d)), r, include_self=i))
for _shape, _wrap in (((3, 3), False), ((2, 3), False), ((7, 3), True), ((7, 3), False), ((3, 7), True),
                      ((3, 3, 3), False), ((2, 3, 4), False), ((3,), False)):
    CASES[f"fill_diagonal_{_shape}_{_wrap}"] = lambda t, s=_shape, w=_wrap: t.zeros(*s).fill_diagonal_(1, wrap=w)


def _run(fn, lib):
    try:
        return fn(lib), None
    except Exception as e:  # noqa: BLE001 - the outcome (value or error) is what is compared
        return None, e


class _OnDevice:
    """``openreg`` with tensors made on ``device``."""

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        attr = getattr(openreg, name)
        if name in ("tensor", "zeros", "ones", "arange"):
            return lambda *a, **k: attr(*a, **k, device=self.device)
        return attr


@pytest.mark.filterwarnings("ignore:The reduce argument")
@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case, device):
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    expected, error = _run(CASES[case], torch)
    got, our_error = _run(CASES[case], _OnDevice(device))
    if error is not None:
        assert type(our_error) is type(error), (our_error, error)
        assert str(our_error) == str(error)
        return
    assert our_error is None, our_error
    assert got.device.type == openreg.device(device).type
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize(("reduce", "include_self"), sorted(REDUCTION_SAMPLES))
def test_scatter_reduce_gradcheck(reduce, include_self, devices):
    fn, inputs = REDUCTION_SAMPLES[(reduce, include_self)](devices)
    assert gradcheck(fn, inputs, check_forward_ad=reduce in ("sum", "mean"))


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_with_zeros_and_ties_match_pytorch(reduce, include_self):
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    self_vals, src_vals = [[0.0, 2.0, 2.0], [3.0, 0.0, 1.0]], [[2.0, 0.0, 2.0], [0.0, 3.0, 3.0]]
    index = [[0, 0, 1], [1, 2, 1]]
    grads = []
    for lib in (torch, openreg):
        x = lib.tensor(self_vals, dtype=lib.float64, requires_grad=True)
        s = lib.tensor(src_vals, dtype=lib.float64, requires_grad=True)
        out = x.scatter_reduce(1, lib.tensor(index), s, reduce, include_self=include_self)
        (out * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)).sum().backward()
        grads.append((out.tolist(), x.grad.tolist(), s.grad.tolist()))
    for ours, theirs in zip(grads[1], grads[0]):
        np.testing.assert_allclose(ours, theirs)


def test_meta_checks_without_computing():
    x = openreg.empty(3, 2, device="meta")
    assert x.index_add(0, openreg.tensor([0], device="meta"), openreg.empty(1, 2, device="meta")).shape == (3, 2)
    with pytest.raises(RuntimeError, match="source tensor shape must match"):
        x.index_add(0, openreg.tensor([0], device="meta"), openreg.empty(1, 3, device="meta"))
    assert openreg.take(x, openreg.empty(4, dtype=openreg.int64, device="meta")).shape == (4,)


def test_failed_call_changes_nothing():
    x = openreg.zeros(3)
    with pytest.raises(RuntimeError):
        x.index_add_(0, openreg.tensor([0, 7]), openreg.ones(2))
    assert x.tolist() == [0.0, 0.0, 0.0]
