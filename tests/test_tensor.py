"""Tensor metadata and mutation of metadata: resize_, set_ (all forms), as_strided_, type(), cat/stack."""
from __future__ import annotations

import numpy as np
import pytest

import openreg


def test_resize_grows_never_shrinks(devices):
    t = openreg.arange(6.0, device=devices)
    nbytes = t.untyped_storage().nbytes()
    t.resize_(2, 2)
    assert t.shape == (2, 2) and t.stride() == (2, 1) and t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert t.untyped_storage().nbytes() == nbytes
    t.resize_(0)
    assert t.shape == (0,) and t.untyped_storage().nbytes() == nbytes
    t.resize_(4, 3)
    assert t.untyped_storage().nbytes() == 48 and t.view(-1)[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        t.resize_(-1)
    assert t.shape == (4, 3)


def test_resize_keeps_strides_when_same_size():
    t = openreg.zeros(3, 2).t()
    t.resize_(2, 3)
    assert t.stride() == (1, 2)
    v = t._version
    t.resize_((6,))
    assert t.stride() == (1,) and t._version == v + 1


def test_set_forms(devices):
    src = openreg.arange(6.0, device=devices)
    t = openreg.empty(0, device=devices)
    t.set_(src)
    assert t.untyped_storage() is src.untyped_storage() and t.tolist() == src.tolist()
    src[0] = 9.0
    assert t[0].item() == 9.0
    t.set_(src.untyped_storage(), 2, (2, 2), (1, 2))
    assert t.tolist() == [[2.0, 4.0], [3.0, 5.0]] and t.storage_offset() == 2
    t.set_(src.untyped_storage(), 1, (2,))
    assert t.stride() == (1,) and t.tolist() == [1.0, 2.0]
    t.set_(src.untyped_storage())
    assert t.shape == (6,) and t.storage_offset() == 0
    t.set_()
    assert t.shape == (0,) and t.untyped_storage().nbytes() == 0
    assert src.tolist()[1:] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_set_storage_grows_and_errors():
    s = openreg.UntypedStorage(8)
    t = openreg.empty(0).set_(s, 0, (4,))
    assert s.nbytes() == 16 and t.shape == (4,)
    with pytest.raises(RuntimeError, match="Could not set tensor of type"):
        openreg.empty(0).set_(openreg.zeros(2, dtype=openreg.int64))
    with pytest.raises(RuntimeError, match="Could not set tensor of type long int to a tensor of type float"):
        openreg.empty(0).set_(openreg.zeros(2, dtype=openreg.int64))
    with pytest.raises(RuntimeError, match="the devices must match"):
        openreg.empty(0).set_(openreg.UntypedStorage(8, device="meta"))
    names = sorted(openreg.ops.aten.set_.overloads())
    assert names == ["default", "source_Storage", "source_Storage_storage_offset", "source_Tensor",
                     "source_Tensor_storage_offset"]
    assert str(openreg.ops.aten.set_.source_Storage_storage_offset._schema) == (
        "aten::set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt storage_offset, "
        "SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)")


def test_type_strings():
    assert openreg.zeros(1).type() == "openreg.FloatTensor"
    assert openreg.zeros(1, dtype=openreg.int64).type() == "openreg.LongTensor"
    assert openreg.zeros(1).type(openreg.float64).dtype is openreg.float64
    assert openreg.zeros(1).type("openreg.IntTensor").dtype is openreg.int32


def test_cat(devices):
    a = openreg.ones(2, 2, device=devices)
    b = openreg.zeros(2, 3, dtype=openreg.int64, device=devices)
    c = openreg.cat([a, b], dim=1)
    assert c.dtype is openreg.float32 and c.shape == (2, 5)
    np.testing.assert_array_equal(np.asarray(c.tolist()), np.concatenate([np.ones((2, 2)), np.zeros((2, 3))], 1))
    assert openreg.cat([a, openreg.empty(0, dtype=openreg.float64, device=devices)]).dtype is openreg.float64
    assert openreg.cat([a, openreg.empty(0, device=devices)], dim=1).shape == (2, 2)
    assert openreg.cat((a.t(), a), -1).shape == (2, 4)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 1. Expected size 2 "
                                           "but got size 3 for tensor number 1 in the list."):
        openreg.cat([a, openreg.zeros(3, 2, device=devices)], 1)
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        openreg.cat([])
    with pytest.raises(RuntimeError, match="zero-dimensional tensor \\(at position 0\\) cannot be concatenated"):
        openreg.cat([openreg.tensor(1.0), openreg.tensor(2.0)])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        openreg.cat([a, openreg.ones(2, device=devices)])
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got int"):  # PyTorch's wording
        openreg.cat([a, 1])
    out = openreg.empty(0, device=devices)
    assert openreg.cat([a, a], out=out) is out and out.shape == (4, 2)


def test_stack(devices):
    xs = [openreg.tensor([1, 2], device=devices), openreg.tensor([3, 4], device=devices)]
    assert openreg.stack(xs).tolist() == [[1, 2], [3, 4]]
    assert openreg.stack(xs, dim=-1).tolist() == [[1, 3], [2, 4]]
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        openreg.stack([xs[0], openreg.tensor([1, 2, 3], device=devices)])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        openreg.stack([])


def test_cat_meta_and_mixed_devices():
    m = openreg.cat([openreg.empty(2, 3, device="meta"), openreg.empty(1, 3, device="meta")])
    assert m.is_meta and m.shape == (3, 3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        openreg.cat([openreg.zeros(2), openreg.empty(2, device="meta")])


def test_non_tensor_arguments_raise_type_error():
    with pytest.raises(TypeError, match="must be Tensor"):
        openreg.ops.aten.transpose.int([1, 2], 0, 1)
    with pytest.raises(TypeError, match="must be Tensor"):
        openreg.reshape([1, 2], (2,))
    with pytest.raises(TypeError):
        openreg.zeros(2).view("a")
    for bad in (lambda x: x.expand_as(3), lambda x: x.view_as([2]), lambda x: x.reshape_as(None),
                lambda x: x.index_put_((1,), x), lambda x: x.set_(5), lambda x: x.new_zeros("a")):
        with pytest.raises(TypeError):
            bad(openreg.zeros(2))


def test_overloads_match_pytorch():
    aten = openreg.ops.aten
    x = openreg.arange(6.0).view(2, 3)
    assert aten.narrow.Tensor(x, 1, openreg.tensor(1), 2).tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert [p.shape for p in aten.split.sizes(x, [1, 2], 1)] == [(2, 1), (2, 2)]
    assert aten.movedim.intlist(openreg.zeros(2, 3, 4), [0, 1], [2, 0]).shape == (3, 4, 2)
    assert aten.linspace.Tensor_Tensor(openreg.tensor(0.0), openreg.tensor(1.0), 3).tolist() == [0.0, 0.5, 1.0]
    assert aten.fill.Tensor(x, openreg.tensor(2.0)).tolist() == [[2.0] * 3] * 2
    t = openreg.empty(0).set_(x, 1, (2,), (3,))
    assert t.tolist() == [1.0, 4.0] and t.untyped_storage() is x.untyped_storage()
    for op, tags in [(aten.clone.default, {"core", "pointwise"}), (aten.index.Tensor, {"core", "dynamic_output_shape"}),
                     (aten._to_copy.default, {"core"}), (aten.resize_.default, {"core", "inplace_view"})]:
        assert tags <= {t.name for t in op.tags}


def test_version_counter_bumps_once_per_user_level_mutation():
    def bumps(make, mutate):
        t = make()
        v = t._version
        mutate(t)
        return t._version - v
    m = openreg
    assert bumps(lambda: m.zeros(3), lambda x: x.fill_(m.tensor(2.0))) == 1
    assert bumps(lambda: m.empty(0), lambda o: m.cat([m.ones(2), m.ones(3)], out=o)) == 1
    assert bumps(lambda: m.empty(0), lambda o: m.stack([m.ones(2), m.ones(2)], out=o)) == 1
    assert bumps(lambda: m.empty(0, dtype=m.int64), lambda o: m.arange(5, out=o)) == 1
    assert bumps(lambda: m.zeros(3), lambda x: x.__setitem__([0, 1], 1.0)) == 1
    assert bumps(lambda: m.zeros(3), lambda x: x.resize_(5)) == 1
    assert bumps(lambda: m.zeros(3), lambda x: x.set_(m.zeros(2))) == 1
    for fresh in (m.zeros(2).clone(), m.full((2,), 1.0), m.cat([m.ones(1)]), m.ones(1).to(m.float64),
                  m.zeros_like(m.ones(1)), m.arange(3), m.eye(2), m.ones(2, 2).t().reshape(4), m.ones(3)[[0]]):
        assert fresh._version == 0
