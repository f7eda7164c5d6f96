"""Every way to put a tensor over a storage checks that the view fits, with int64 overflow caught as PyTorch does
("Storage size calculation overflowed", "numel: integer multiplication overflow"), and sizes too large to allocate
raise RuntimeError (never NumPy's ValueError or MemoryError). A failed call changes nothing."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg
from openreg.tensor import Size, Tensor

OVERFLOW = "Storage size calculation overflowed"
HUGE_STRIDES = [(2**60 - 1,), (2**62,), (2**62 + 2**61,)]  # (2**63 is refused when the int64 argument is read)


def _oob(sizes, strides, offset, itemsize, needed, have):
    return (rf"setStorage: sizes \[{sizes}\], strides \[{strides}\], storage offset {offset}, and itemsize "
            rf"{itemsize} requiring a storage size of {needed} are out of bounds for storage of size {have}")


def _views_over_16_bytes():
    """Each way to view a 16-byte storage as float32 with (size, stride, offset)."""
    return {
        "as_strided": lambda size, stride, off: openreg.as_strided(openreg.zeros(4), size, stride, off),
        "Tensor.as_strided": lambda size, stride, off: openreg.zeros(4).as_strided(size, stride, off),
        "as_strided_": lambda size, stride, off: openreg.zeros(4).as_strided_(size, stride, off),
        "_reinterpret_tensor": lambda size, stride, off: openreg.ops.inductor._reinterpret_tensor(
            openreg.zeros(4), size, stride, off),
        "_alloc_from_pool": lambda size, stride, off: openreg.ops.inductor._alloc_from_pool(
            openreg.zeros(16, dtype=openreg.uint8), off * 4, openreg.float32, size, stride),
        "set_ (not resizable)": lambda size, stride, off: openreg.empty(0).set_(
            openreg.from_numpy(np.zeros(4, np.float32)).untyped_storage(), off, size, stride),
    }


@pytest.mark.parametrize("how", sorted(_views_over_16_bytes()))
def test_views_that_fit_are_built(how):
    t = _views_over_16_bytes()[how]((2,), (3,), 0)
    assert t.shape == (2,) and t.stride() == (3,) and t.untyped_storage().nbytes() == 16
    assert _views_over_16_bytes()[how]((0,), (2**62,), 99).numel() == 0  # empty views may sit anywhere


@pytest.mark.parametrize("how", sorted(set(_views_over_16_bytes()) - {"set_ (not resizable)"}))
def test_views_past_the_end_raise_setstorage(how):
    make = _views_over_16_bytes()[how]
    with pytest.raises(RuntimeError, match=_oob(2, 3, 1, 4, 20, 16)):
        make((2,), (3,), 1)
    with pytest.raises(RuntimeError, match=_oob(2, 1152921504606846975, 0, 4, 4611686018427387904, 16)):
        make((2,), (2**60 - 1,), 0)


@pytest.mark.parametrize("how", sorted(_views_over_16_bytes()))
@pytest.mark.parametrize("stride", HUGE_STRIDES[1:] + [(-1,)])
def test_views_whose_extent_overflows_int64_raise(how, stride):
    with pytest.raises(RuntimeError, match=rf"{OVERFLOW}|Negative strides are not supported"):
        _views_over_16_bytes()[how]((2,), stride, 0)


@pytest.mark.parametrize("how", sorted(_views_over_16_bytes()))
def test_views_with_too_many_elements_raise(how):
    with pytest.raises(RuntimeError, match=rf"{OVERFLOW}|numel: integer multiplication overflow"):
        _views_over_16_bytes()[how]((2**32, 2**32), (0, 0), 0)
    with pytest.raises(RuntimeError, match=rf"{OVERFLOW}|numel: integer multiplication overflow"):
        _views_over_16_bytes()[how]((2**62, 4), (1, 1), 0)


def test_meta_views_check_overflow_not_bounds():
    m = openreg.zeros(4, device="meta")
    assert openreg.as_strided(m, (2,), (3,), 10).storage_offset() == 10  # meta has no memory to overrun
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        openreg.as_strided(m, (2**32, 2**32), (0, 0))


def test_as_strided_in_place_failure_changes_nothing():
    t = openreg.zeros(4)
    with pytest.raises(RuntimeError):
        t.as_strided_((2,), (2**62,), 0)
    assert t.shape == (4,) and t.stride() == (1,) and t.storage_offset() == 0


@pytest.mark.parametrize("stride", HUGE_STRIDES[1:] + [(-1,)])
def test_set_on_a_resizable_storage_checks_the_arithmetic_before_growing(stride):
    s = openreg.zeros(4).untyped_storage()
    t = openreg.empty(0)
    with pytest.raises(RuntimeError, match=OVERFLOW):
        t.set_(s, 0, (2,), stride)
    assert s.nbytes() == 16 and t.shape == (0,)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("stride", [(2**62,), (-1,), (2**62 + 2**61,)])
def test_empty_strided_overflow(device, stride):
    with pytest.raises(RuntimeError, match=OVERFLOW):
        openreg.empty_strided((2,), stride, device=device)


HUGE_SIZES = [(2**62,), (2**63 - 1,), (2**31, 2**31), (2**62, 4)]


@pytest.mark.parametrize("device", DEVICES + ["meta"])
@pytest.mark.parametrize("size", HUGE_SIZES)
def test_factories_of_unrepresentable_sizes_raise_overflow(device, size):
    makers = [lambda: openreg.empty(*size, device=device), lambda: openreg.zeros(*size, device=device),
              lambda: openreg.full(size, 1.0, device=device), lambda: openreg.ones(size, device=device).sum(),
              lambda: openreg.zeros(2, device=device).new_empty(size)]
    if device != "meta":  # PyTorch's meta versions of these check only that numel fits
        makers += [lambda: openreg.randn(*size, device=device),
                   lambda: openreg.empty_strided(size, _contiguous(size), device=device)]
    for make in makers:
        with pytest.raises(RuntimeError, match=OVERFLOW):
            make()


def _contiguous(size):
    from openreg.tensor import contiguous_strides
    return contiguous_strides(size)


@pytest.mark.parametrize("device", DEVICES)
def test_resize_to_an_unrepresentable_size_raises_and_changes_nothing(device):
    t = openreg.zeros(2, device=device)
    for size in HUGE_SIZES:
        with pytest.raises(RuntimeError, match=rf"{OVERFLOW}|numel: integer multiplication overflow"):
            t.resize_(*size)
        assert t.shape == (2,) and t.untyped_storage().nbytes() == 8


def test_arange_and_expand_copies_of_unrepresentable_sizes():
    with pytest.raises(RuntimeError, match=OVERFLOW):
        openreg.arange(2**62)
    with pytest.raises(RuntimeError, match=OVERFLOW):
        openreg.zeros(1).expand(2**62).clone()


@pytest.mark.parametrize("device", DEVICES)
def test_allocations_too_large_for_memory_raise_runtime_error(device):
    # representable, but more than any machine has: PyTorch's allocator error is a RuntimeError
    for make in (lambda: openreg.empty(2**42, device=device), lambda: openreg.UntypedStorage(2**61, device=device),
                 lambda: openreg.zeros(2, device=device).resize_(2**42)):
        with pytest.raises(RuntimeError, match="allocate"):
            make()


def _saved_view(tmp_path, size, stride, offset):
    """A file holding a tensor with the given (possibly impossible) view of a 64-byte storage."""
    storage = openreg.zeros(16).untyped_storage()
    bad = Tensor._make(storage, Size(size), tuple(stride), offset, openreg.float32)  # bypasses every check
    path = tmp_path / "bad.pt"
    openreg.save(bad, path)
    return path


@pytest.mark.parametrize("weights_only", [True, False])
def test_load_refuses_views_past_their_storage(tmp_path, weights_only):
    with pytest.raises(RuntimeError, match=_oob(2, 1152921504606846975, 0, 4, 4611686018427387904, 64)):
        openreg.load(_saved_view(tmp_path, (2,), (2**60 - 1,), 0), weights_only=weights_only)
    with pytest.raises(RuntimeError, match=_oob(2, 1, 15, 4, 68, 64)):
        openreg.load(_saved_view(tmp_path, (2,), (1,), 15), weights_only=weights_only)
    for size, stride, offset in [((2,), (-1,), 3), ((2,), (2**62,), 0), ((-2,), (1,), 0), ((2,), (1,), -1)]:
        with pytest.raises(RuntimeError):
            openreg.load(_saved_view(tmp_path, size, stride, offset), weights_only=weights_only)
    ok = openreg.load(_saved_view(tmp_path, (2,), (7,), 1), weights_only=weights_only)
    assert ok.stride() == (7,) and ok.storage_offset() == 1 and ok.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_elementwise_results_of_unrepresentable_sizes_raise_overflow(device):
    big = openreg.zeros(1, device=device).expand(2**62)
    for make in (lambda: big + 1, lambda: big.exp(), lambda: openreg.add(big, 1, out=openreg.empty(0, device=device))):
        with pytest.raises(RuntimeError, match=OVERFLOW):
            make()


def test_elementwise_results_too_large_for_memory_raise_runtime_error():
    with pytest.raises(RuntimeError, match="allocate"):
        openreg.zeros(1).expand(2**42) * 2


def test_empty_strided_counts_elements_in_int64():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        openreg.empty_strided((2**32, 2**32), (0, 0))
