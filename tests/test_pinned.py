"""Pinned (page-locked) host memory: pinning, queries through views/slices/set_, no leaks."""
from __future__ import annotations

import gc

import numpy as np
import pytest
from openreg.backends.privateuseone import pinned_memory

import openreg

pu = openreg.privateuseone


def test_pin_memory_copies_into_page_locked_memory():
    t = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p.is_pinned() and p.is_cpu and p.tolist() == t.tolist()
    assert p.data_ptr() != t.data_ptr()
    if pu.driver() == "emulated":
        assert p.untyped_storage().data_ptr() % 4096 == 0       # page aligned
    assert p.pin_memory() is p                                  # already pinned
    assert p.is_pinned(device="privateuseone") and t.pin_memory(device="privateuseone:0").is_pinned()
    # the copy is independent of the source
    t.fill_(0.0)
    assert p.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_strided_tensor_keeps_layout_when_pinned():
    t = openreg.tensor(np.arange(6.0)).as_strided((2, 2), (1, 3), 1)
    p = t.pin_memory()
    # PyTorch's _pin_memory copies into a buffer sized for the view: same strides, storage offset 0 (#10.10)
    assert p.stride() == t.stride() and p.storage_offset() == 0 and p.tolist() == t.tolist()


def test_views_slices_and_set_report_pinned():
    p = openreg.zeros(8).pin_memory()
    assert p.as_strided((3,), (2,), 1).is_pinned()
    assert p.untyped_storage()[4:12].is_pinned()
    assert p.untyped_storage().is_pinned()
    if hasattr(openreg.Tensor, "set_"):
        e = openreg.empty(0)
        e.set_(p.untyped_storage())
        assert e.is_pinned()
        f = openreg.empty(0)
        f.set_(p)
        assert f.is_pinned()
    shared = openreg.from_numpy(np.asarray(p))                # same memory, other storage object
    assert shared.is_pinned()


def test_storage_pin_memory():
    s = openreg.UntypedStorage(16)
    assert not s.is_pinned()
    ps = s.pin_memory()
    assert ps.is_pinned() and ps.nbytes() == 16 and ps.tolist() == s.tolist()
    assert openreg.empty(3, pin_memory=True).is_pinned()
    assert openreg.tensor([1, 2], pin_memory=True).is_pinned()


def test_pinning_device_memory_raises():
    d = openreg.ones(2, device="privateuseone")
    with pytest.raises(RuntimeError, match=r"cannot pin 'openreg\.privateuseone\.FloatTensor' only dense CPU"):
        d.pin_memory()
    # As torch.UntypedStorage.pin_memory: TypeError for storages (RuntimeError for tensors), naming the device.
    with pytest.raises(TypeError, match=r"cannot pin .* device 'privateuseone:0'.* only CPU memory can be pinned"):
        d.untyped_storage().pin_memory()
    assert not d.is_pinned()
    with pytest.raises(RuntimeError, match="pinned memory"):
        openreg.ones(2).pin_memory(device="cpu")


def test_entries_vanish_when_freed_no_leak():
    gc.collect()
    baseline = pinned_memory.tracked_count()
    src = openreg.tensor([1.0, 2.0, 3.0, 4.0])
    for i in range(10_000):
        p = src.pin_memory()
        if i % 1000 == 0:
            assert p.is_pinned() and pinned_memory.tracked_count() == baseline + 1
        del p
    gc.collect()
    assert pinned_memory.tracked_count() == baseline
    p = openreg.empty(4).pin_memory()
    v = p.as_strided((2,), (1,), 1)
    del p
    assert pinned_memory.tracked_count() == baseline + 1 and v.is_pinned()
    del v
    assert pinned_memory.tracked_count() == baseline


def test_pinning_a_view_pins_only_the_view():
    base = openreg.zeros(1 << 20)                       # 4 MiB
    base[10:14] = openreg.tensor([1.0, 2.0, 3.0, 4.0])
    p = base[10:14].pin_memory()
    assert p.is_pinned() and p.untyped_storage().nbytes() == 16   # 4 elements, not 4 MiB
    assert p.storage_offset() == 0 and p.tolist() == [1.0, 2.0, 3.0, 4.0]
    s = base[100:108:2].pin_memory()                  # keeps the view's strides, as PyTorch's _pin_memory
    assert s.stride() == (2,) and s.untyped_storage().nbytes() == (3 * 2 + 1) * 4
    t = base.view(1024, 1024)[:, :2].t().pin_memory()
    assert t.shape == (2, 1024) and t.tolist() == base.view(1024, 1024)[:, :2].t().tolist()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        p.resize_(8)                                   # growing would leave the page-locked buffer
