"""copy_, clone, contiguous, to/_to_copy, fill_, zero_ (CPU kernel and the device-agnostic composites)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg


def test_copy_broadcasts_and_converts(devices):
    dst = openreg.zeros(2, 3, device=devices)
    dst.copy_(openreg.tensor([1, 2, 3], device=devices))
    assert dst.tolist() == [[1.0, 2.0, 3.0]] * 2 and dst.dtype is openreg.float32
    dst.copy_(openreg.tensor([[True], [False]]))
    assert dst.tolist() == [[1.0] * 3, [0.0] * 3]
    i = openreg.zeros(3, dtype=openreg.int32, device=devices).copy_(openreg.tensor([1.7, -2.7, 3.0]))
    assert i.tolist() == [1, -2, 3]


def test_copy_overlapping_src(devices):
    x = openreg.arange(6.0, device=devices)
    x[1:].copy_(x[:-1])
    assert x.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    y = openreg.arange(4.0).view(2, 2)
    y.copy_(y.t())
    assert y.tolist() == [[0.0, 2.0], [1.0, 3.0]]


def test_copy_errors_leave_destination_unchanged():
    dst = openreg.arange(3.0)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 0"):
        dst.copy_(openreg.zeros(2))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        dst.copy_(openreg.zeros(2, 3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single "
                                           "memory location"):
        openreg.zeros(1).expand(3).copy_(openreg.ones(3))
    with pytest.raises(TypeError, match="must be Tensor"):
        dst.copy_([1, 2, 3])
    assert dst.tolist() == [0.0, 1.0, 2.0]


def test_copy_complex_to_real_warns():
    dst = openreg.zeros(2)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        dst.copy_(openreg.tensor([1 + 1j, 2 - 3j]))
    assert dst.tolist() == [1.0, 2.0]


def test_meta_copy():
    m = openreg.empty(2, 3, device="meta")
    assert m.copy_(openreg.zeros(3)) is m
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        openreg.zeros(2, 3).copy_(m)
    with pytest.raises(RuntimeError, match="must match the size"):
        m.copy_(openreg.empty(4, device="meta"))


def test_clone_preserves_dense_layout(devices):
    x = openreg.arange(6.0, device=devices).view(2, 3)
    c = x.t().clone()
    assert c.stride() == (1, 3) and c.untyped_storage() is not x.untyped_storage()
    assert c.tolist() == x.t().tolist()
    s = x[:, ::2].clone()
    assert s.stride() == (2, 1) and s.tolist() == [[0.0, 2.0], [3.0, 5.0]]
    assert x.t().clone(memory_format=openreg.contiguous_format).stride() == (2, 1)
    assert openreg.ops.aten.clone.default(x)._version == 0


def test_contiguous(devices):
    x = openreg.arange(6.0, device=devices).view(2, 3)
    assert x.contiguous() is x
    c = x.t().contiguous()
    assert c.is_contiguous() and c.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    nchw = openreg.zeros(2, 3, 4, 5)
    cl = nchw.contiguous(memory_format=openreg.channels_last)
    assert cl.stride() == (60, 1, 15, 3) and cl.is_contiguous(memory_format=openreg.channels_last)
    assert not cl.is_contiguous()


def test_to_dtype_device_and_copy(devices):
    x = openreg.tensor([1.5, -2.5])
    assert x.to(openreg.float32) is x and x.to("cpu") is x
    y = x.to(openreg.int64)
    assert y.dtype is openreg.int64 and y.tolist() == [1, -2]
    assert x.to(openreg.float32, copy=True) is not x
    d = x.to(devices)
    assert d.device.type == devices and d.tolist() == [1.5, -2.5]
    back = d.to(device="cpu", dtype=openreg.float64)
    assert back.device.type == "cpu" and back.dtype is openreg.float64
    assert d.cpu().device.type == "cpu"
    other = openreg.zeros(1, dtype=openreg.float16, device=devices)
    assert x.to(other).dtype is openreg.float16 and x.to(other).device == other.device
    assert x.double().dtype is openreg.float64 and x.long().dtype is openreg.int64 and x.bool().dtype is openreg.bool
    with pytest.raises(TypeError, match="to\\(\\) received an invalid combination of arguments"):
        x.to(1.5)


def test_fill_and_zero(devices):
    x = openreg.empty(2, 2, device=devices)
    assert x.fill_(3).tolist() == [[3.0, 3.0]] * 2
    assert x.fill_(openreg.tensor(4.5)).tolist() == [[4.5, 4.5]] * 2
    x[0].zero_()
    assert x.tolist() == [[0.0, 0.0], [4.5, 4.5]]
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           "dimensions"):
        x.fill_(openreg.tensor([1.0]))
    v = x._version
    x.zero_()
    assert x._version == v + 1


def test_to_copy_op_schema():
    s = str(openreg.ops.aten._to_copy.default._schema)
    assert s.startswith("aten::_to_copy(Tensor self, *, ScalarType? dtype=None")
    y = openreg.ops.aten._to_copy.default(openreg.tensor([1, 2]), dtype=openreg.float64)
    assert y.dtype is openreg.float64


def test_numpy_interop_after_copy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = openreg.from_numpy(a).t().contiguous()
    np.testing.assert_array_equal(t.numpy(), a.T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        openreg.zeros(3).copy_(openreg.ones(3))
