"""Factories: values, dtype inference, devices (BackendSelect), Meta, and PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import openreg


def test_zeros_ones_full(devices):
    z = openreg.zeros(2, 3, device=devices)
    assert z.device.type == devices and z.dtype is openreg.float32 and z.tolist() == [[0.0] * 3] * 2
    assert openreg.ones((2,), dtype=openreg.int32, device=devices).tolist() == [1, 1]
    assert openreg.full((2, 2), 7, device=devices).dtype is openreg.int64
    assert openreg.full((1,), True).dtype is openreg.bool
    assert openreg.full((1,), 2.5).dtype is openreg.float32
    assert openreg.full((1,), 1 + 2j).dtype is openreg.complex64
    assert openreg.full([3], -1.5, dtype=openreg.float64).tolist() == [-1.5] * 3
    assert openreg.zeros(0, 4).shape == (0, 4) and openreg.zeros(()).shape == ()


def test_negative_sizes():
    for fn in (lambda: openreg.zeros(-1, 2), lambda: openreg.empty(-1, 2), lambda: openreg.ones(2, -3),
               lambda: openreg.full((-1, 2), 1.0)):
        with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -\d: \[-?\d, -?\d\]"):
            fn()


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((2, 7), {}), ((1, 10, 3), {}), ((10, 1, -2), {}), ((0.0, 1.0, 0.1), {}), ((3.5,), {}),
    ((-2, 2.5, 0.5), {}), ((0, 5), {"dtype": openreg.float64}), ((0.5, 4.9, 1.5), {"dtype": openreg.int64}),
])
def test_arange(devices, args, kwargs):
    t = openreg.arange(*args, device=devices, **kwargs)
    dt = kwargs.get("dtype") or (openreg.float32 if any(isinstance(a, float) for a in args) else openreg.int64)
    assert t.dtype is dt
    np_dt = {openreg.float32: np.float32, openreg.float64: np.float64, openreg.int64: np.int64}[dt]
    if dt is openreg.int64:  # PyTorch truncates bounds and step to int64 first
        args = tuple(int(a) for a in args)
    expect = np.arange(*args, dtype=np.float64)
    np.testing.assert_allclose(np.asarray(t.tolist()), expect.astype(np_dt), rtol=1e-6)


def test_arange_errors_and_out():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        openreg.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        openreg.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        openreg.arange(1, 4, 0.7, dtype=openreg.int64)  # the step truncates to 0
    with pytest.raises(RuntimeError, match="unsupported range"):
        openreg.arange(0, float("inf"))
    assert openreg.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    assert openreg.arange(0, 1, 0.1).shape == (10,)
    out = openreg.empty(0, dtype=openreg.int32)
    assert openreg.arange(4, out=out) is out and out.tolist() == [0, 1, 2, 3]
    assert openreg.arange(openreg.tensor(3)).tolist() == [0, 1, 2]
    assert openreg.arange(start=1, end=3).tolist() == [1, 2]


def test_linspace_eye(devices):
    np.testing.assert_allclose(openreg.linspace(0, 1, 7, device=devices).tolist(), np.linspace(0, 1, 7), rtol=1e-6)
    assert openreg.linspace(2, 3, 1).tolist() == [2.0] and openreg.linspace(0, 1, 0).shape == (0,)
    assert openreg.linspace(0, 10, 5, dtype=openreg.int64).tolist() == [0, 2, 5, 7, 10]
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        openreg.linspace(0, 1, -1)
    np.testing.assert_array_equal(np.asarray(openreg.eye(3, 4, device=devices).tolist()), np.eye(3, 4))
    assert openreg.eye(2, dtype=openreg.bool).tolist() == [[True, False], [False, True]]
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        openreg.eye(-1)


def test_like_and_new(devices):
    base = openreg.zeros(3, 2, dtype=openreg.float64, device=devices).t()
    e = openreg.empty_like(base)
    assert e.stride() == base.stride() and e.dtype is openreg.float64 and e.device == base.device
    assert openreg.zeros_like(base).tolist() == [[0.0] * 3] * 2
    assert openreg.ones_like(base, dtype=openreg.int32).dtype is openreg.int32
    assert openreg.full_like(base, 4).tolist() == [[4.0] * 3] * 2
    assert openreg.empty_like(base, memory_format=openreg.contiguous_format).stride() == (3, 1)
    nonDense = openreg.zeros(4, 4)[:, ::2]
    assert openreg.empty_like(nonDense).stride() == (2, 1)
    n = base.new_zeros(2, 5)
    assert n.dtype is openreg.float64 and n.device == base.device and n.shape == (2, 5)
    assert base.new_ones((1,)).tolist() == [1.0] and base.new_full((2,), 3).tolist() == [3.0, 3.0]
    assert base.new_empty(4, dtype=openreg.int8).dtype is openreg.int8
    assert base.new_empty_strided((2, 2), (1, 2)).stride() == (1, 2)
    t = base.new_tensor([1, 2])
    assert t.dtype is openreg.float64 and t.device == base.device and t.tolist() == [1.0, 2.0]


def test_tri_indices_and_scalar_tensor(devices):
    for r, c, off in [(3, 3, 0), (4, 3, 1), (3, 5, -1), (0, 3, 0), (3, 3, 5)]:
        t = openreg.triu_indices(r, c, off, device=devices)
        assert t.dtype is openreg.int64 and t.device.type == devices
        np.testing.assert_array_equal(np.asarray(t.tolist()).reshape(2, -1), np.stack(np.triu_indices(r, off, c)))
        np.testing.assert_array_equal(np.asarray(openreg.tril_indices(r, c, off).tolist()).reshape(2, -1),
                                      np.stack(np.tril_indices(r, off, c)))
    s = openreg.scalar_tensor(2, device=devices)
    assert s.shape == () and s.dtype is openreg.float32 and s.item() == 2.0


def test_tri_indices_with_extreme_sizes_and_offsets():
    for r, c in [(0, 4), (1, 1), (5, 3), (3, 5), (4, 4)]:
        for off in range(-7, 8):
            for fn, ref in ((openreg.triu_indices, np.triu_indices), (openreg.tril_indices, np.tril_indices)):
                expected = np.stack(ref(r, off, c)).reshape(2, -1) if r and c else np.zeros((2, 0))
                np.testing.assert_array_equal(fn(r, c, off).numpy(), expected)
    assert openreg.triu_indices(1, 1, -2 ** 63).tolist() == [[0], [0]]
    assert openreg.tril_indices(1, 1, 2 ** 63 - 1).tolist() == [[0], [0]]
    assert openreg.tril_indices(3, 3, -2 ** 62).shape == (2, 0)
    assert openreg.tril_indices(2 ** 62, 2 ** 62, 3 - 2 ** 62).shape == (2, 6)   # only the last rows hold any
    assert openreg.triu_indices(2 ** 20, 2 ** 20, device="meta").shape == (2, 2 ** 39 + 2 ** 19)
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[2, 4611686018427387904\]"):
        openreg.tril_indices(2 ** 62, 1)
    assert openreg.scalar_tensor(True, dtype=openreg.bool).item() is True


def test_factories_on_meta():
    for t in (openreg.zeros(2, 3, device="meta"), openreg.arange(5, device="meta"),
              openreg.eye(3, device="meta"), openreg.linspace(0, 1, 4, device="meta"),
              openreg.full((2,), 1, device="meta"), openreg.triu_indices(3, 3, device="meta"),
              openreg.zeros_like(openreg.empty(2, device="meta"))):
        assert t.is_meta
    assert openreg.arange(5, device="meta").shape == (5,) and openreg.arange(5, device="meta").dtype is openreg.int64
    assert openreg.triu_indices(3, 3, device="meta").shape == (2, 6)


def test_factory_ops_have_pytorch_schemas():
    assert str(openreg.ops.aten.zeros.default._schema).startswith("aten::zeros(SymInt[] size, *, ScalarType? dtype")
    assert "arange.start_step(Scalar start, Scalar end, Scalar step=1" in str(
        openreg.ops.aten.arange.start_step._schema)
    assert str(openreg.ops.aten.cat.default._schema) == "aten::cat(Tensor[] tensors, int dim=0) -> Tensor"


def test_filled_factories_and_copies_still_dispatch_their_fill_and_copy(devices):
    """The factories fill and copy through the backend's fill_/zero_/copy_ kernels (user overrides apply),
    skipping only the autograd/ADInplaceOrView layers: results are version 0 and have no history."""
    x = openreg.tensor([1.5, -2.0], device=devices, requires_grad=True)
    made = [openreg.zeros(2, device=devices), openreg.ones(2, device=devices), openreg.full((2,), 3.0, device=devices),
            openreg.zeros_like(x), openreg.ones_like(x), openreg.full_like(x, 4.0), x.new_zeros(2), x.new_full((2,), 5),
            x.detach().clone(), x.detach().to(openreg.float64)]
    assert [t._version for t in made] == [0] * len(made)
    assert all(t.grad_fn is None and not t.requires_grad for t in made)
    assert [t.tolist() for t in made[:3]] == [[0.0, 0.0], [1.0, 1.0], [3.0, 3.0]]
    y = x.to(openreg.float64)
    assert y.grad_fn.name() == "ToCopyBackward0" and y._version == 0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    calls = []
    key = "CPU" if devices == "cpu" else "PrivateUse1"
    with openreg.library._scoped_library("aten", "IMPL") as lib:
        def zero_(self):
            calls.append("zero_")
            return self.fill_(0)
        with pytest.warns(UserWarning, match="Overriding a previously registered kernel"):
            lib.impl("zero_", zero_, key)
        assert openreg.zeros(2, device=devices).tolist() == [0.0, 0.0]
    assert calls == ["zero_"]


def test_eye_and_linspace_sizes_are_checked_by_the_allocator():
    for args in [(2 ** 62,), (3, 2 ** 62), (2 ** 31, 2 ** 31)]:
        with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
            openreg.eye(*args)
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        openreg.eye(2 ** 20, 2 ** 20)                   # 4 TiB: no host temporary is tried first
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        openreg.linspace(0, 1, 2 ** 62)
    assert openreg.linspace(0, 1, 2 ** 40, device="meta").shape == (2 ** 40,)
    e = openreg.eye(3, 4, dtype=openreg.bool)
    assert e.tolist() == np.eye(3, 4, dtype=bool).tolist() and e._version == 0
