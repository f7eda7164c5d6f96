"""Views share storage and get sizes/strides/offsets right; property tests against NumPy views."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openreg


def _np(t):
    return np.asarray(t.cpu().tolist()) if t.numel() else np.zeros(tuple(t.shape))


def _base(device, shape=(2, 3, 4)):
    n = int(np.prod(shape))
    return openreg.arange(n, dtype=openreg.float32, device=device).view(*shape), np.arange(
        n, dtype=np.float32).reshape(shape)


def test_view_shares_storage_and_version(devices):
    t, _ = _base(devices)
    v = t.view(6, 4)
    assert v.untyped_storage() is t.untyped_storage() and v._base is t._base is not None
    assert v.stride() == (4, 1) and v.data_ptr() == t.data_ptr()
    before = t._version
    v.fill_(1.0)
    assert t._version == before + 1 and _np(t).sum() == 24


def test_view_infers_and_rejects(devices):
    t, _ = _base(devices)
    assert t.view(-1).shape == (24,) and t.view(2, -1, 3).shape == (2, 4, 3)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.view(-1, -1)
    with pytest.raises(RuntimeError, match=r"invalid shape dimension -2 at index 0 of shape \[-2, 12\]"):
        t.view(-2, 12)
    with pytest.raises(RuntimeError, match=r"shape '\[5, -1\]' is invalid for input of size 24"):
        t.view(5, -1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.transpose(0, 2).view(24)
    assert t.transpose(0, 2).reshape(24).tolist() == np.arange(24).reshape(2, 3, 4).transpose(2, 1, 0).ravel().tolist()


def test_reshape_views_when_possible(devices):
    t, _ = _base(devices)
    assert t.reshape(4, 6).untyped_storage() is t.untyped_storage()
    assert t.permute(2, 0, 1).reshape(4, 6).untyped_storage() is t.untyped_storage()
    r = t.permute(2, 1, 0).reshape(4, 6)
    assert r.untyped_storage() is not t.untyped_storage() and r.is_contiguous()


def test_transpose_permute_t(devices):
    t, a = _base(devices)
    np.testing.assert_array_equal(_np(t.transpose(0, 2)), a.transpose(2, 1, 0))
    p = t.permute(1, 2, 0)
    assert p.stride() == (4, 1, 12)
    np.testing.assert_array_equal(_np(p), a.transpose(1, 2, 0))
    assert t[0].t().shape == (4, 3) and t[0].T.stride() == (1, 4) and t.mT.shape == (2, 4, 3)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        t.t()
    with pytest.raises(RuntimeError, match="duplicate dims"):
        t.permute(0, 0, 1)
    with pytest.raises(RuntimeError, match="number of dimensions in the tensor input does not match"):
        t.permute(0, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.transpose(0, 3)
    with pytest.raises(RuntimeError, match="mT is only supported on matrices"):
        _ = openreg.zeros(3).mT


def test_expand(devices):
    x = openreg.tensor([[1.0], [2.0]], device=devices)
    e = x.expand(3, 2, 4)
    assert e.stride() == (0, 1, 0) and e.shape == (3, 2, 4)
    assert e.untyped_storage() is x.untyped_storage()
    np.testing.assert_array_equal(_np(e), np.broadcast_to(np.array([[1.0], [2.0]]), (3, 2, 4)))
    assert x.expand(-1, 5).shape == (2, 5)
    assert x.expand_as(openreg.zeros(2, 7)).shape == (2, 7)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing size "
                                           r"\(2\) at non-singleton dimension 0"):
        x.expand(3, 4)
    with pytest.raises(RuntimeError, match="must be greater or equal to the number of dimensions"):
        x.expand(4)
    with pytest.raises(RuntimeError, match="isn't allowed in a leading, non-existing dimension 0"):
        x.expand(-1, 2, 3)


def test_squeeze_unsqueeze_flatten_unflatten(devices):
    x = openreg.zeros(1, 3, 1, 2, device=devices)
    assert x.squeeze().shape == (3, 2)
    assert x.squeeze(0).shape == (3, 1, 2) and x.squeeze(1).shape == (1, 3, 1, 2)
    assert x.squeeze((0, 2)).shape == (3, 2)
    assert x.unsqueeze(-1).shape == (1, 3, 1, 2, 1) and x.unsqueeze(-1).stride()[-1] == 1
    assert x.unsqueeze(1).stride() == (6, 6, 2, 2, 1)
    assert x.flatten().shape == (6,) and x.flatten(1, 2).shape == (1, 3, 2)
    assert openreg.tensor(5.0).flatten().shape == (1,)
    assert openreg.zeros(6).unflatten(0, (2, -1)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        x.flatten(2, 1)
    with pytest.raises(RuntimeError, match="don't multiply up to the size of dim 0"):
        openreg.zeros(6).unflatten(0, (4, 2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.unsqueeze(5)


def test_narrow_select_slice_diagonal(devices):
    t, a = _base(devices)
    n = t.narrow(2, 1, 2)
    assert n.storage_offset() == 1 and n.stride() == (12, 4, 1)
    np.testing.assert_array_equal(_np(n), a[:, :, 1:3])
    np.testing.assert_array_equal(_np(t.narrow(1, -2, 2)), a[:, -2:, :])
    s = t.select(1, 2)
    assert s.storage_offset() == 8 and s.shape == (2, 4)
    np.testing.assert_array_equal(_np(t.select(-1, -1)), a[..., -1])
    sl = openreg.ops.aten.slice.Tensor(t, 2, 1, 100, 2)
    np.testing.assert_array_equal(_np(sl), a[:, :, 1::2])
    m, am = _base(devices, (3, 4))
    for off in (-2, -1, 0, 1, 3, 5):
        np.testing.assert_array_equal(_np(m.diagonal(off)), np.diagonal(am, off))
    with pytest.raises(IndexError, match=r"select\(\): index 3 out of range for tensor of size \[2, 3, 4\] at "
                                         r"dimension 1"):
        t.select(1, 3)
    with pytest.raises(RuntimeError, match=r"start \(3\) \+ length \(2\) exceeds dimension size \(4\)"):
        t.narrow(2, 3, 2)
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        t.narrow(2, 0, -1)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        m.diagonal(0, 1, 1)


def test_unbind_split_chunk(devices):
    t, a = _base(devices)
    parts = t.unbind(1)
    assert len(parts) == 3 and all(p.untyped_storage() is t.untyped_storage() for p in parts)
    np.testing.assert_array_equal(_np(parts[2]), a[:, 2])
    sizes = [p.shape[2] for p in t.split(3, dim=2)]
    assert sizes == [3, 1]
    assert [p.shape[1] for p in t.split([1, 2], 1)] == [1, 2]
    assert [p.shape[2] for p in t.chunk(3, 2)] == [2, 2]
    assert [p.shape[0] for p in openreg.arange(5).chunk(3)] == [2, 2, 1]
    assert len(openreg.zeros(0).chunk(3)) == 3
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 4"):
        t.split([1, 2], 2)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        t.chunk(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative"):
        t.split(-1)


def test_alias_detach_view_as_movedim(devices):
    t, a = _base(devices)
    d = t.detach()
    assert d._base is None and d.untyped_storage() is t.untyped_storage() and d._version == t._version
    al = openreg.ops.aten.alias.default(t)
    assert al._base is t._base and al.stride() == t.stride()
    assert t.view_as(openreg.zeros(6, 4)).shape == (6, 4)
    np.testing.assert_array_equal(_np(t.movedim(0, 2)), np.moveaxis(a, 0, 2))
    np.testing.assert_array_equal(_np(t.movedim((0, 1), (2, 0))), np.moveaxis(a, (0, 1), (2, 0)))


def test_in_place_views(devices):
    x = openreg.arange(6.0, device=devices).view(2, 3)
    storage, v = x.untyped_storage(), x._version
    x.t_()
    assert x.shape == (3, 2) and x.stride() == (1, 3) and x.untyped_storage() is storage
    x.unsqueeze_(0).transpose_(0, 2)
    assert x.shape == (2, 3, 1) and x.stride() == (3, 1, 3)
    x.squeeze_()
    assert x.shape == (2, 3) and x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x._version == v + 4
    assert openreg.Tag.inplace_view in openreg.ops.aten.t_.default.tags
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.unsqueeze_(5)
    assert x.shape == (2, 3)


def test_view_dtype(devices):
    x = openreg.zeros(2, 4, dtype=openreg.int32, device=devices)
    assert x.view(openreg.float32).dtype is openreg.float32
    v = x.view(openreg.int16)
    assert v.shape == (2, 8) and v.stride() == (8, 1)
    assert x.view(openreg.int64).shape == (2, 2)
    assert x.view(dtype=openreg.uint8).shape == (2, 16)
    with pytest.raises(RuntimeError, match="self.size\\(-1\\) must be divisible by 2"):
        openreg.zeros(3, dtype=openreg.int32).view(openreg.int64)


def test_as_strided_and_bounds(devices):
    x = openreg.arange(6, device=devices)
    v = openreg.as_strided(x, (2, 2), (1, 2), 1)
    assert v.tolist() == [[1, 3], [2, 4]]
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 48"):
        x.as_strided((4,), (2,))
    x.as_strided_((3,), (2,))
    assert x.tolist() == [0, 2, 4] and x.stride() == (2,)


def test_meta_views():
    m = openreg.empty(2, 3, 4, device="meta")
    assert m.transpose(0, 1).shape == (3, 2, 4) and m.reshape(6, 4).is_meta
    assert m.permute(2, 0, 1).stride() == (1, 12, 4)
    assert [p.shape for p in m.split(2, 2)] == [(2, 3, 2), (2, 3, 2)]
    assert m.permute(2, 1, 0).reshape(4, 6).stride() == (6, 1)


# -- property tests: chains of views vs NumPy -----------------------------------------------------------

@st.composite
def _chain(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    steps = draw(st.lists(st.tuples(st.sampled_from(["transpose", "permute", "narrow", "select", "expand",
                                                     "slice", "unsqueeze", "view", "diagonal", "flip_t"]),
                                    st.integers(0, 1000)), max_size=6))
    return shape, steps


def _apply(op, seed, t, a):
    rng = np.random.default_rng(seed)
    n = a.ndim
    if op == "transpose" and n >= 1:
        i, j = rng.integers(0, n, 2)
        return t.transpose(int(i), int(j)), np.swapaxes(a, i, j)
    if op == "permute" and n >= 1:
        p = [int(x) for x in rng.permutation(n)]
        return t.permute(*p), a.transpose(p)
    if op == "narrow" and n >= 1:
        d = int(rng.integers(0, n))
        start = int(rng.integers(0, a.shape[d] + 1))
        length = int(rng.integers(0, a.shape[d] - start + 1))
        idx = [slice(None)] * n
        idx[d] = slice(start, start + length)
        return t.narrow(d, start, length), a[tuple(idx)]
    if op == "select" and n >= 1 and a.shape[0] > 0:
        d = int(rng.integers(0, n))
        if a.shape[d] == 0:
            return t, a
        i = int(rng.integers(-a.shape[d], a.shape[d]))
        idx = [slice(None)] * n
        idx[d] = i
        return t.select(d, i), a[tuple(idx)]
    if op == "expand" and n < 5:
        new = [int(rng.integers(1, 3))] + [s if s != 1 else int(rng.integers(1, 4)) for s in a.shape]
        return t.expand(*new), np.broadcast_to(a, new)
    if op == "slice" and n >= 1:
        idx = tuple(slice(int(rng.integers(-4, 4)), int(rng.integers(-4, 5)), int(rng.integers(1, 4)))
                    for _ in range(int(rng.integers(1, n + 1))))
        return t[idx], a[idx]
    if op == "unsqueeze" and n < 5:
        d = int(rng.integers(-n - 1, n + 1))
        return t.unsqueeze(d), np.expand_dims(a, d)
    if op == "view":
        if t.is_contiguous():
            return t.view(-1), a.reshape(-1)
        return t.reshape(-1), a.reshape(-1)
    if op == "diagonal" and n >= 2:
        off = int(rng.integers(-2, 3))
        return t.diagonal(off, 0, 1), np.diagonal(a, off, 0, 1)
    if op == "flip_t" and n >= 2:
        return t.mT, np.swapaxes(a, -1, -2)
    return t, a


@settings(max_examples=60, deadline=None)
@given(_chain())
def test_view_chains_match_numpy(case):
    shape, steps = case
    n = int(np.prod(shape))
    base = openreg.arange(n, dtype=openreg.int64).view(*shape)
    t, a = base, np.arange(n, dtype=np.int64).reshape(shape)
    for op, seed in steps:
        t, a = _apply(op, seed, t, a)
        assert tuple(t.shape) == a.shape
        assert all(s >= 0 for s in t.stride())
        np.testing.assert_array_equal(t.numpy(), a)
        if t.untyped_storage() is base.untyped_storage():
            # shared storage: the data pointer is base's plus offset * itemsize, and strides match NumPy's
            assert t.data_ptr() == base.data_ptr() + t.storage_offset() * 8
            if a.size > 1 and a.base is not None:
                np_strides = [s // 8 for s, d in zip(a.strides, a.shape) if d > 1]
                ours = [s for s, d in zip(t.stride(), t.shape) if d > 1]
                assert ours == np_strides


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=4), st.data())
def test_views_write_through(shape, data):
    n = int(np.prod(shape))
    base = openreg.zeros(n, dtype=openreg.int64).view(*shape)
    a = np.zeros(shape, dtype=np.int64)
    idx = tuple(slice(data.draw(st.integers(0, 3)), None, data.draw(st.integers(1, 3))) for _ in shape)
    base[idx] = 7
    a[idx] = 7
    np.testing.assert_array_equal(base.numpy(), a)
    v = base[idx]
    if v.numel():
        v.fill_(3)
        a[idx] = 3
    np.testing.assert_array_equal(base.numpy(), a)
