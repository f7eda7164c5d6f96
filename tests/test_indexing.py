"""t[...] reads and writes: basic indices give views, advanced indices copy (index.Tensor / index_put_)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openreg


def _pair(device, shape=(3, 4, 5)):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return openreg.tensor(a, device=device), a


def _np(t):
    return np.asarray(t.cpu().numpy())


BASIC = [
    1, -1, (1, 2), (slice(None), 1), (slice(1, None, 2),), (slice(None), slice(None, None, 3), 0), (Ellipsis, 1),
    (None, 0), (1, None, Ellipsis, None), (slice(-2, None), Ellipsis), (slice(10, 20),), (0, 0, 0),
    (slice(None, None, 2), None, slice(1, 4, 2)),
]


@pytest.mark.parametrize("index", BASIC, ids=str)
def test_basic_indexing_is_a_view(devices, index):
    t, a = _pair(devices)
    v = t[index]
    np.testing.assert_array_equal(_np(v), a[index])
    assert v.untyped_storage() is t.untyped_storage()


def test_ellipsis_alone_and_zero_dim(devices):
    t, _ = _pair(devices)
    e = t[...]
    assert e is not t and e.untyped_storage() is t.untyped_storage() and e.shape == t.shape
    s = openreg.tensor(3.0, device=devices)
    assert s[None].shape == (1,) and s[...].shape == ()
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        s[0]


ADVANCED = [
    [0, 2], ([0, 2], [1, 3]), (slice(None), [3, 0, 0]), (Ellipsis, [4, 1]), ([[0, 1], [2, 2]],),
    ([0, 1], slice(None), [1, 2]), (1, [0, 3]), (slice(None), [0, 1], [2, 3]), ([0, 2], None, 1),
]


@pytest.mark.parametrize("index", ADVANCED, ids=str)
def test_advanced_indexing_matches_numpy(devices, index):
    t, a = _pair(devices)
    conv = tuple(openreg.tensor(i) if isinstance(i, list) else i for i in
                 (index if isinstance(index, tuple) else (index,)))
    r = t[conv]
    np.testing.assert_array_equal(_np(r), a[index if isinstance(index, tuple) else (index,)])
    assert r.untyped_storage() is not t.untyped_storage()
    # Python lists index like tensors
    np.testing.assert_array_equal(_np(t[index]), a[index if isinstance(index, tuple) else (index,)])


def test_bool_masks_and_scalars(devices):
    t, a = _pair(devices)
    mask = a > 30
    np.testing.assert_array_equal(_np(t[openreg.tensor(mask, device=devices)]), a[mask])
    m2 = a[:, :, 0] > 20
    np.testing.assert_array_equal(_np(t[openreg.tensor(m2)]), a[m2])
    assert t[True].shape == (1, 3, 4, 5) and t[False].shape == (0, 3, 4, 5)
    assert t[openreg.tensor(True)].shape == (1, 3, 4, 5)
    assert t[openreg.tensor(2)].shape == (4, 5)
    np.testing.assert_array_equal(_np(t[openreg.tensor(2)]), a[2])
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match the shape of the "
                                         r"indexed tensor \[3, 4, 5\] at index 0"):
        t[openreg.tensor([True, False])]


def test_index_errors(devices):
    t, _ = _pair(devices)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        t[5]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        t[0, 4]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 3"):
        t[openreg.tensor([0, 7])]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 2 with size 5"):
        t[:, :, [-6]]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        t[openreg.tensor([0.0])]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[1.5]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[::0]
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        t["a"]
    assert t[..., ...].shape == (3, 4, 5) and t[0, ..., 1, ...].shape == (4,)  # as PyTorch


def test_setitem_basic(devices):
    t, a = _pair(devices)
    before = t._version
    t[0] = 1.5
    a[0] = 1.5
    t[1, :, ::2] = openreg.tensor([7.0, 8.0, 9.0], device=devices)
    a[1, :, ::2] = [7.0, 8.0, 9.0]
    t[2, 1] = openreg.tensor([[1, 2, 3, 4, 5]])  # leading 1s stripped, int -> float
    a[2, 1] = [1, 2, 3, 4, 5]
    t[..., 0] = 0
    a[..., 0] = 0
    np.testing.assert_array_equal(_np(t), a)
    assert t._version > before


def test_setitem_advanced(devices):
    t, a = _pair(devices)
    t[[0, 2]] = -1.0
    a[[0, 2]] = -1.0
    t[openreg.tensor([1]), openreg.tensor([3])] = openreg.tensor([42.0])
    a[[1], [3]] = 42.0
    mask = a > 50
    t[openreg.tensor(mask, device=devices)] = 0.5
    a[mask] = 0.5
    t[:, [0, 1], 2] = openreg.tensor([10.0, 11.0], device=devices)
    a[:, [0, 1], 2] = [10.0, 11.0]
    np.testing.assert_array_equal(_np(t), a)


def test_failed_setitem_leaves_tensor_unchanged(devices):
    t, a = _pair(devices)
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape \\[3\\] cannot be broadcast to "
                                           "indexing result of shape \\[2, 4, 5\\]"):
        t[[0, 1]] = openreg.tensor([1.0, 2.0, 3.0], device=devices)
    with pytest.raises(IndexError):
        t[[0, 9]] = 1.0
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, got Float "
                                           "for the destination and Long for the source"):
        t[[0]] = openreg.tensor([[[1] * 5] * 4], device=devices)
    with pytest.raises(RuntimeError, match="must match the size"):
        t[0] = openreg.tensor([1.0, 2.0], device=devices)
    np.testing.assert_array_equal(_np(t), a)


def test_index_put_accumulate(devices):
    x = openreg.zeros(4, device=devices)
    idx = openreg.tensor([0, 0, 3])
    x.index_put_((idx,), openreg.tensor([1.0, 2.0, 5.0], device=devices), accumulate=True)
    assert x.tolist() == [3.0, 0.0, 0.0, 5.0]
    y = x.index_put((openreg.tensor([1]),), openreg.tensor(9.0))
    assert y.tolist() == [3.0, 9.0, 0.0, 5.0] and x.tolist() == [3.0, 0.0, 0.0, 5.0]


def test_index_put_accumulate_bfloat16_and_bool(devices):
    y = openreg.zeros(3, dtype=openreg.bfloat16, device=devices)
    y.index_put_((openreg.tensor([0, 0, 2]),), openreg.tensor([1.5, 2.0, -1.0], dtype=openreg.bfloat16,
                                                               device=devices), accumulate=True)
    assert y.float().tolist() == [3.5, 0.0, -1.0]
    b = openreg.zeros(3, dtype=openreg.bool, device=devices)
    b.index_put_((openreg.tensor([1, 1]),), openreg.tensor([True, False], device=devices), accumulate=True)
    assert b.tolist() == [False, True, False]


def test_index_ops_on_meta():
    m = openreg.empty(3, 4, 5, device="meta")
    assert m[openreg.tensor([0, 1])].shape == (2, 4, 5)
    assert m[:, openreg.tensor([[0, 1]]), 0].shape == (3, 1, 2)
    assert m[openreg.tensor([0]), :, openreg.tensor([1, 2])].shape == (2, 4)
    assert m[1:, None].shape == (2, 1, 4, 5)
    with pytest.raises(NotImplementedError, match="data-dependent"):
        m[openreg.tensor([True, False, True])]


# -- property test: random index expressions vs NumPy ------------------------------------------------------


@st.composite
def _index_case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    advanced = draw(st.booleans())
    items, dim = [], 0
    used_ellipsis = False
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["slice", "none", "ellipsis", "adv"] + ([] if advanced else ["int"])))
        size = shape[dim]
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
            dim += 1
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-5, 5)), draw(st.none() | st.integers(-5, 5)),
                               draw(st.none() | st.integers(1, 3))))
            dim += 1
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            break  # keep the remaining dims implicit
        elif kind == "adv" and advanced:
            n = draw(st.integers(1, 3))
            items.append([draw(st.integers(-size, size - 1)) for _ in range(n)])
            dim += 1
    return shape, tuple(items)


@settings(max_examples=80, deadline=None)
@given(_index_case())
def test_index_expressions_match_numpy(case):
    shape, index = case
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = openreg.tensor(a)
    lists = [i for i in index if isinstance(i, list)]
    # NumPy broadcasts advanced indices together; keep them mutually broadcastable.
    if lists and len({len(x) for x in lists} - {1}) > 1:
        return
    np_index = tuple(np.array(i) if isinstance(i, list) else i for i in index)
    np.testing.assert_array_equal(t[index].numpy(), a[np_index])
    # the same expression as an assignment target
    b = a.copy()
    b[np_index] = -1
    t[index] = -1
    np.testing.assert_array_equal(t.numpy(), b)


def test_index_with_a_range_as_pytorch():
    """pytorch/examples' mnist_forward_forward writes ``x_[range(n), y] = v``."""
    x = openreg.zeros(3, 4)
    x[range(3), openreg.tensor([0, 1, 3])] = 5.0
    assert x.tolist() == [[5.0, 0, 0, 0], [0, 5.0, 0, 0], [0, 0, 0, 5.0]]
    assert x[range(1, 3)].shape == (2, 4)
