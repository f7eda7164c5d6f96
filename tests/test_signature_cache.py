"""The structured kernels' per-signature cache (aten/structured.py): a repeated call skips the meta rule and, for
records declaring a ``ufunc``, calls the array-module ufunc directly. It must never change a result, an error, a
dtype or which kernel runs."""
import copy
import pickle

import numpy as np
import pytest

import openreg
from openreg._array_bridge import wrap_array
from openreg.aten import structured
from openreg.library import Library
from openreg.storage import UntypedStorage
from openreg.tensor import TensorBase

DTYPES = [openreg.bool, openreg.uint8, openreg.int32, openreg.int64, openreg.float16, openreg.bfloat16,
          openreg.float32, openreg.float64, openreg.complex64]


def _make(shape, dtype, device, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=shape) if dtype is not openreg.bool else rng.integers(0, 2, size=shape)
    t = openreg.tensor(values.tolist())
    return t.to(dtype).to(device)


def _same(a, b):
    assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
    assert a.device == b.device
    x, y = a.cpu(), b.cpu()
    if a.dtype is openreg.bfloat16:
        x, y = x.float(), y.float()
    np.testing.assert_array_equal(x.numpy(), y.numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_repeated_calls_equal_the_first(devices, dtype):
    """The first call of a signature runs the meta rule and compute; the second one the cached plan (for add, sub,
    mul, abs and neg: the ufunc). Both give the same values, dtype and layout, broadcasting and strided too."""
    a = _make((3, 4), dtype, devices, 1)
    b = _make((3, 4), dtype, devices, 2)
    row = _make((4,), dtype, devices, 3)
    calls = [lambda: a + b, lambda: a * b, lambda: a * row, lambda: a.t() + b.t(), lambda: a[:, 1:] * b[:, :3]]
    if dtype is not openreg.bool:
        calls += [lambda: a - b, lambda: openreg.sub(a, row, alpha=2), lambda: -a]
    if not dtype.is_complex and dtype is not openreg.bool:
        calls += [lambda: a.abs()]
    for call in calls:
        first, second, third = call(), call(), call()
        _same(first, second)
        _same(first, third)
        assert second.data_ptr() != third.data_ptr()      # a fresh result every time


def test_errors_are_not_cached(devices):
    a = openreg.ones(2, dtype=openreg.bool, device=devices)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
            a - a
    x, y = openreg.ones(2, 3, device=devices), openreg.ones(4, device=devices)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="must match the size"):
            x + y


def test_alpha_types_are_told_apart():
    """``alpha=1``, ``alpha=True`` and ``alpha=1.0`` compare equal but PyTorch treats them differently."""
    i = openreg.tensor([1, 2])
    assert (openreg.add(i, i, alpha=1)).tolist() == [2, 4]
    with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
        openreg.add(i, i, alpha=True)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        openreg.add(i, i, alpha=1.0)
    assert openreg.add(i, i, alpha=2).tolist() == [3, 6]


def test_default_dtype_change_is_seen():
    """A meta rule that reads the default dtype (integer ``div``, ``sigmoid``) gives the new one after a change."""
    i = openreg.tensor([1, 2])
    assert (i / i).dtype is openreg.float32 and i.sigmoid().dtype is openreg.float32
    openreg.set_default_dtype(openreg.float64)
    try:
        assert (i / i).dtype is openreg.float64 and i.sigmoid().dtype is openreg.float64
    finally:
        openreg.set_default_dtype(openreg.float32)
    assert (i / i).dtype is openreg.float32


def test_library_impl_after_caching_takes_effect_and_undo_restores(devices):
    """A kernel registered over a structured kernel whose signatures are cached runs from the next call on;
    destroying the Library brings back the structured kernel (with its cache)."""
    import warnings
    x, y = openreg.ones(3, device=devices), openreg.full((3,), 2.0, device=devices)
    for _ in range(3):
        assert (x + y).tolist() == [3.0, 3.0, 3.0]
    key = "CPU" if x.device.type == "cpu" else "PrivateUse1"
    lib = Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.impl("add.Tensor", lambda a, b, *, alpha=1: openreg.zeros(7, device=a.device), key)
    try:
        assert (x + y).shape == (7,) and (x + y).tolist() == [0.0] * 7
    finally:
        lib._destroy()
    assert (x + y).tolist() == [3.0, 3.0, 3.0]
    assert (x * y).tolist() == [2.0, 2.0, 2.0]


def test_cache_is_bounded():
    x = openreg.ones(1)
    for n in range(1, structured._SIGNATURE_LIMIT + 40):
        x = openreg.ones(n)
        x.abs()
    assert all(len(cache) <= structured._SIGNATURE_LIMIT for cache in structured._signature_caches)


def test_scalars_do_not_fill_the_cache():
    """A Python number that changes on every call (a learning rate) is not part of a cached signature: only its
    type is (``add.Scalar``'s meta rule reads nothing else), so a first call of each type caches one signature
    and no value after it adds any."""
    x = openreg.ones(5)
    before = sum(len(c) for c in structured._signature_caches)
    x * 0.25
    x + 7
    assert sum(len(c) for c in structured._signature_caches) - before <= 2
    sizes = [len(c) for c in structured._signature_caches]
    for i in range(50):
        x * (0.5 + i)
        x + i
    assert [len(c) for c in structured._signature_caches] == sizes


def test_devices_are_interned():
    d = openreg.device("privateuseone", 0)
    assert d is openreg.device("privateuseone:0") is copy.copy(d) is copy.deepcopy(d) is pickle.loads(pickle.dumps(d))
    assert openreg.device("cpu") is openreg.device("cpu", None) and openreg.device("cpu") == "cpu"
    assert {openreg.device("cpu"): 1}[openreg.device("cpu")] == 1
    assert openreg.device("cpu") != openreg.device("meta") and openreg.device("cpu") != "meta"


def test_wrapped_result_matches_the_constructors():
    """``wrap_array`` builds a CPU result's storage and tensor field by field; they must agree with
    ``UntypedStorage._init`` and ``TensorBase._init_view`` (a field added there must be added here)."""
    arr = np.arange(6.0).reshape(2, 3)
    fast = wrap_array(arr)
    storage = object.__new__(UntypedStorage)
    storage._init(arr, arr.nbytes, openreg.device("cpu"))
    slow = openreg.Tensor._make(storage, openreg.Size((2, 3)), (3, 1), 0, openreg.float64)
    for name in UntypedStorage.__slots__:
        if name not in ("__weakref__", "_data"):
            assert getattr(fast._storage, name) == getattr(slow._storage, name), name
    assert fast._storage._data is arr
    for name in TensorBase.__slots__:
        if name not in ("__dict__", "__weakref__", "_storage", "_vc", "_arr", "_arr_src"):
            assert getattr(fast, name) == getattr(slow, name), name
    assert fast._ks == slow._ks and fast._vc.value == slow._vc.value == 0 and fast._vc is not slow._vc
    assert fast.__dict__ == slow.__dict__


def test_repeated_ufunc_result_matches_the_first():
    """A repeated CPU ufunc call wraps its result with the layout the signature's earlier call showed
    (``wrap_known_cpu``): every field equals what ``wrap_array`` gives, broadcasting included."""
    x, y, col = openreg.ones(4, 3), openreg.arange(3.0), openreg.ones(4, 1)
    for a, b in ((x, y), (col, y), (x, x)):
        results = [a * b for _ in range(3)]
        first = results[0]
        for r in results[1:]:
            assert r.tolist() == first.tolist() and r.stride() == first.stride() and r.shape == first.shape
            assert r.dtype is first.dtype and r._ks == first._ks and r.__dict__ == first.__dict__
            assert r._vc is not first._vc and r._vc.value == 0 and r._storage.nbytes() == first._storage.nbytes()
            for name in UntypedStorage.__slots__:
                if name not in ("__weakref__", "_data"):
                    assert getattr(r._storage, name) == getattr(first._storage, name), name
            assert r._arr is r._storage._data and r._arr_src is r._arr
        r.add_(1)          # results own their memory: writing one leaves the others
        assert results[0].tolist() == first.tolist() and r._version == 1


def test_repeated_device_ufunc_result_matches_the_first():
    """A repeated device ufunc call gets its result tensor from the backend's ``result_maker`` (written out in
    one frame, handing on the previous result's block): every field equals what the first call's
    ``wrap_buffer`` gave, results own their memory, and a storage-creation hook still sees each result."""
    dev = "privateuseone:0"
    x, y = openreg.full((4, 3), -2.0, device=dev), openreg.arange(3.0, device=dev)
    first = x * y
    seen = []
    openreg.utils.set_storage_create_hook("privateuseone", lambda n, data: seen.append(n))
    try:
        results = []
        for _ in range(4):
            x * y, x.abs()                 # results freed at once: their blocks are handed on
            results.append(x * y)
    finally:
        openreg.utils.set_storage_create_hook("privateuseone", None)
    assert seen == [48] * 12
    for r in results:
        assert r.tolist() == first.tolist() == [[-0.0, -2.0, -4.0]] * 4
        assert r.stride() == first.stride() and r.shape == first.shape and r.dtype is first.dtype
        assert r._ks == first._ks and r.__dict__ == first.__dict__ and r._vc is not first._vc and r._version == 0
        for name in UntypedStorage.__slots__:
            if name not in ("__weakref__", "_data"):
                assert getattr(r._storage, name) == getattr(first._storage, name), name
        for name in TensorBase.__slots__:
            if name not in ("__dict__", "__weakref__", "_storage", "_vc", "_arr", "_arr_src"):
                assert getattr(r, name) == getattr(first, name), name
        if openreg.privateuseone.driver() == "emulated":     # NumPy arrays over the device memory
            assert r._arr_src is r._storage._data and r._arr.ctypes.data == r._storage.data_ptr()
    assert len({r.data_ptr() for r in results}) == len(results)
    results[0].add_(1)      # results own their memory: writing one leaves the others
    assert results[1].tolist() == first.tolist() and results[0]._version == 1


def test_version_counters_and_hooks_still_work():
    x = openreg.ones(3, requires_grad=True)
    y = openreg.ones(3)
    z = x * y
    z2 = x * y
    assert z._version == 0 and z2._vc is not z._vc
    z.add_(1)
    assert z._version == 1 and z2._version == 0
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * y).sum().backward()
    (x * y).sum().backward()
    assert seen == [[1.0, 1.0, 1.0]] * 2


@pytest.mark.parametrize("dtype", [openreg.int64, openreg.float32, openreg.bfloat16], ids=str)
def test_repeated_inplace_calls_equal_the_first(devices, dtype):
    """In-place kernels cache their signatures too (the ufunc writes into ``self``): the same values as the
    first, uncached call, broadcasting, and an operand overlapping ``self`` read as it was before the op."""
    def run(op):
        results = []
        for _ in range(3):
            a = _make((3, 4), dtype, devices, 1)
            b = _make((3, 4), dtype, devices, 2)
            row = _make((4,), dtype, devices, 3)
            flat = _make((12,), dtype, devices, 4)
            results.append(op(a, b, row, flat))
        for r in results[1:]:
            _same(results[0], r)
    run(lambda a, b, row, flat: a.add_(b))
    run(lambda a, b, row, flat: a.mul_(row))
    run(lambda a, b, row, flat: a.sub_(b, alpha=2))
    run(lambda a, b, row, flat: (flat[1:].add_(flat[:-1]), flat)[1])     # overlapping operands
    run(lambda a, b, row, flat: a.t().add_(b.t()))                           # strided self


def test_inplace_errors_are_not_cached(devices):
    a = openreg.ones(3, dtype=openreg.int64, device=devices)
    f = openreg.ones(3, device=devices)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            a.add_(f)
    big = openreg.ones(2, 3, device=devices)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            f.add_(big)


def test_a_repeated_plain_call_is_one_ufunc_call(devices):
    """The shortcut is taken: after the first call of a signature, the kernel's cached plan holds the ufunc
    (on the device: writing into fresh device memory); a call with another ``alpha`` gets a plan without it."""
    x, y = openreg.ones(5, 7, device=devices), openreg.ones(5, 7, device=devices)

    def plans():
        return [p for cache in structured._signature_caches for p in cache.values()
                if p.spec.device == x.device and tuple(p.spec.size) == (5, 7)]
    x + y
    added = [p for p in plans() if p.ufunc is not None and p.ufunc.__name__ == "add"]
    assert len(added) == 1
    assert (added[0].buffer is None) == (x.device.type == "cpu")
    before = set(map(id, plans()))
    openreg.add(x, y, alpha=2)
    new = [p for p in plans() if id(p) not in before]
    assert len(new) == 1 and new[0].ufunc is None


def test_scalar_options_are_cached_by_value():
    """threshold_backward declares its threshold an option (``scalar_options``): calls are cached with the int
    value, so a different threshold is a different signature and gives its own result; a float threshold is not
    cached and still computes."""
    g = openreg.tensor([1.0, 2.0, 3.0, 4.0])
    x = openreg.tensor([-1.0, 0.5, 1.0, 2.0])
    th = openreg.ops.aten.threshold_backward
    sizes = [len(c) for c in structured._signature_caches]
    for _ in range(3):
        assert th(g, x, 0).tolist() == [0.0, 2.0, 3.0, 4.0]
        assert th(g, x, 1).tolist() == [0.0, 0.0, 0.0, 4.0]
    grown = sum(len(c) for c in structured._signature_caches) - sum(sizes)
    assert grown == 2
    for i in range(20):
        expected = np.where(np.array([-1.0, 0.5, 1.0, 2.0]) > 0.25 + i, [1.0, 2.0, 3.0, 4.0], 0.0)
        assert th(g, x, 0.25 + i).tolist() == expected.tolist()
    assert sum(len(c) for c in structured._signature_caches) - sum(sizes) == 2


def test_normalized_dims_are_remembered_but_errors_repeat():
    from openreg.aten.meta_rules import normalize_dims
    assert normalize_dims([-1, 0], 3) == normalize_dims([-1, 0], 3) == (2, 0)
    assert normalize_dims(-1, 2) == (1,) and normalize_dims((), 2) == (0, 1) and normalize_dims(None, 0) == ()
    for _ in range(2):
        with pytest.raises(IndexError, match="Dimension out of range"):
            normalize_dims([5], 2)
        with pytest.raises(RuntimeError, match="appears multiple times"):
            normalize_dims([1, -1], 2)
    x = openreg.arange(6.0).reshape(2, 3)
    for _ in range(2):
        assert x.sum([-1]).tolist() == [3.0, 12.0] and x.sum(0).tolist() == [3.0, 5.0, 7.0]


def test_scalar_calls_cached_by_type_compute_with_every_value():
    """``x + 1`` and ``x + 1.0`` promote differently and ``1 == True == 1.0``: the cached signature of a tensor
    and a Python number holds the number's type, and each call computes with its own value."""
    b = openreg.tensor([True, False])
    i = openreg.tensor([1, 2], dtype=openreg.int32)
    f = openreg.tensor([1.5, -2.0])
    for _ in range(3):
        assert (b + True).dtype is openreg.bool and (b + 1).dtype is openreg.int64
        assert (b + 1.0).dtype is openreg.float32 and (i + 1).dtype is openreg.int32
        assert (i * 2.5).tolist() == [2.5, 5.0] and (i * 2.5).dtype is openreg.float32
        assert (i > 1.5).tolist() == [False, True] and (f < 0).tolist() == [False, True]
    for k in range(5):
        assert (f + k).tolist() == [1.5 + k, -2.0 + k]
        assert (f * (k + 0.5)).tolist() == [1.5 * (k + 0.5), -2.0 * (k + 0.5)]
        assert openreg.add(f, k, alpha=2).tolist() == [1.5 + 2 * k, -2.0 + 2 * k]
        assert (i - k).tolist() == [1 - k, 2 - k] and (f >= k - 1).tolist() == [k - 1 <= 1.5, k - 1 <= -2.0]
    g = openreg.tensor([1.0, 2.0])
    for k in range(3):
        g.mul_(2).add_(k)
    assert g.tolist() == [1 * 8 + 0 * 4 + 1 * 2 + 2, 2 * 8 + 0 * 4 + 1 * 2 + 2]
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        openreg.add(f, 1, alpha=True)


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_repeated_scalar_calls_give_the_first_calls_bits(dtype):
    """A repeated (tensor, number) call runs the ufunc on the number itself (_scalar_ufunc): the same values,
    dtype and layout as the first call, which converted the number through ``as_compute``."""
    rng = np.random.default_rng(3)
    data = (rng.standard_normal((4, 6)) * 1e3).astype(dtype.numpy)
    data[0, :3] = [np.nan, np.inf, 3.4028235e38]
    values = [0, 1, -3, 0.1, 1 / 3, 1e300, -1e300, float("nan"), float("inf"), 2 ** 60 + 2 ** 36 + 1, 16777217]
    ops = [lambda t, v: t + v, lambda t, v: t - v, lambda t, v: t * v, lambda t, v: t.mul(v),
           lambda t, v: openreg.add(t, v), lambda t, v: t < v, lambda t, v: t >= v, lambda t, v: t == v]
    for layout in (lambda t: t, lambda t: t.t()):
        t = layout(openreg.from_numpy(data.copy()))
        for op in ops:
            first = [op(t, v) for v in values]
            for _ in range(3):
                again = [op(t, v) for v in values]
                for a, b in zip(first, again):
                    assert a.dtype is b.dtype and a.shape == b.shape and a.stride() == b.stride()
                    assert a.numpy().tobytes() == b.numpy().tobytes()
        arr = t.numpy()
        for v in values:
            with np.errstate(all="ignore"):
                number = np.asarray(v, dtype.numpy)
                assert np.array_equal((t + v).numpy(), arr + number, equal_nan=True)
                assert np.array_equal((t * v).numpy(), arr * number, equal_nan=True)
                assert np.array_equal((t < v).numpy(), arr < number)
