"""Storages over memory openreg does not own (from_numpy, as_tensor, from_dlpack): they span exactly the producer's
bytes, map views of a NumPy array to the bytes the view reaches, and cannot grow past them (PyTorch's from_blob
storages are not resizable)."""
import numpy as np
import pytest

import openreg

NOT_RESIZABLE = "Trying to resize storage that is not resizable"


def _importers():
    return {"from_numpy": openreg.from_numpy, "as_tensor": openreg.as_tensor, "from_dlpack": openreg.from_dlpack}


@pytest.mark.parametrize("how", ["from_numpy", "as_tensor", "from_dlpack"])
@pytest.mark.parametrize("np_dtype", [np.complex64, np.float32, np.int8, np.float64, np.bool_])
def test_storage_is_exactly_the_producer_buffer(how, np_dtype):
    a = np.zeros(6, dtype=np_dtype)
    t = _importers()[how](a)
    s = t.untyped_storage()
    assert s.nbytes() == a.nbytes
    assert s.data_ptr() == a.ctypes.data
    assert t.data_ptr() == a.ctypes.data


@pytest.mark.parametrize("how", ["from_numpy", "as_tensor", "from_dlpack"])
def test_views_map_to_the_window_they_reach(how):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = base[1:3, ::2]  # starts 24 bytes into base, reaches elements 6..16 of it
    t = _importers()[how](a)
    assert t.storage_offset() == 0 and t.stride() == (6, 2)
    assert t.data_ptr() == a.ctypes.data
    assert t.untyped_storage().nbytes() == (6 * 1 + 2 * 2 + 1) * 4  # as PyTorch: 44
    assert t.tolist() == a.tolist()
    t.fill_(-1)
    assert (base[1:3, ::2] == -1).all() and base[1:3, 1::2].min() >= 0
    assert base[0].min() >= 0 and base[3].min() >= 0
    # the whole storage is the window: its bytes are exactly base's elements 6..16
    window = np.frombuffer(bytes(t.untyped_storage().tolist()), dtype=np.float32)
    np.testing.assert_array_equal(window, base.reshape(-1)[6:17])


def test_zero_size_arrays_get_empty_storages():
    assert openreg.from_numpy(np.zeros((0, 5))).untyped_storage().nbytes() == 0
    assert openreg.from_numpy(np.zeros((3, 0), dtype=np.complex64)).untyped_storage().nbytes() == 0


def test_save_writes_only_the_producer_bytes(tmp_path):
    a = (np.arange(6) + 1j).astype(np.complex64)
    openreg.save(openreg.from_numpy(a), tmp_path / "t.pt")
    back = openreg.load(tmp_path / "t.pt")
    assert back.untyped_storage().nbytes() == 48
    np.testing.assert_array_equal(back.numpy(), a)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("how", ["from_numpy", "as_tensor", "from_dlpack"])
def test_growing_past_the_buffer_raises_and_changes_nothing(how):
    a = np.zeros(6, dtype=np.complex64)
    t = _importers()[how](a)
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        t.resize_(16)
    assert t.shape == (6,) and t.untyped_storage().nbytes() == 48
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        t.untyped_storage().resize_(100)
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        openreg.empty(0, dtype=openreg.complex64).set_(t.untyped_storage(), 1, (6,), (1,))
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        t[1:].resize_(6)
    with pytest.raises(RuntimeError, match=NOT_RESIZABLE):
        openreg.randn(7, out=openreg.from_numpy(np.zeros(6, dtype=np.float32)))
    # shrinking and reshaping within the buffer keep working (the storage is not touched)
    assert t.resize_(2, 3).shape == (2, 3) and t.untyped_storage().nbytes() == 48
    t.fill_(1 + 1j)
    assert (a == 1 + 1j).all()


def test_copies_of_foreign_storages_are_resizable():
    t = openreg.from_numpy(np.zeros(2, dtype=np.float32)).clone()
    assert t.resize_(8).shape == (8,)
