"""is_same_size, is_neg/resolve_neg, unsafe_split/unsafe_chunk and record_stream (CPU and the device)."""
import gc

import pytest
from device_params import DEVICES, needs_device
from openreg.backends.privateuseone.allocator import CachingAllocator, record_stream
from openreg.backends.privateuseone.emulated_driver import EmulatedDriver
from openreg.backends.privateuseone.storage_backend import DeviceAllocation

import openreg


@pytest.mark.parametrize("device", DEVICES)
def test_queries_and_unsafe_splits(device):
    a = openreg.arange(12.0, device=device).reshape(3, 4)
    assert a.is_same_size(openreg.zeros(3, 4)) and not openreg.is_same_size(a, a.t())
    with pytest.raises(TypeError, match="must be Tensor"):
        a.is_same_size(3)
    assert not a.is_neg() and not openreg.is_neg(-a) and openreg.resolve_neg(a) is a
    assert [p.tolist() for p in a.unsafe_chunk(2, 1)] == [p.tolist() for p in a.chunk(2, 1)]
    assert [p.shape for p in openreg.unsafe_split(a, 2)] == [(2, 4), (1, 4)]
    assert [p.shape for p in a.unsafe_split([1, 3], 1)] == [(3, 1), (3, 3)]
    x = a.clone().requires_grad_()
    p, q = x.unsafe_split(2)
    (p.sum() * 2 + q.sum()).backward()
    assert x.grad.tolist() == [[2.0] * 4] * 2 + [[1.0] * 4]


def test_against_torch():
    torch = pytest.importorskip("torch")
    t, o = torch.arange(10.0), openreg.arange(10.0)
    for args in [(3,), (3, 0)]:
        assert [x.tolist() for x in torch.unsafe_split(t, *args)] == [x.tolist() for x in openreg.unsafe_split(o, *args)]
        assert [x.tolist() for x in torch.unsafe_chunk(t, *args)] == [x.tolist() for x in openreg.unsafe_chunk(o, *args)]
    assert [x.tolist() for x in t.unsafe_split_with_sizes([4, 6])] == [x.tolist() for x in o.unsafe_split_with_sizes([4, 6])]
    assert torch.is_neg(t) == openreg.is_neg(o) and t.is_same_size(t) == o.is_same_size(o)


def test_record_stream_cpu_refused():
    with pytest.raises(NotImplementedError, match="aten::record_stream.*CPU"):
        openreg.ones(2).record_stream(object())


class _Event:
    def __init__(self, done):
        self.done = done

    def query(self):
        return self.done[0]

    def synchronize(self):
        self.done[0] = True


class _Stream:
    def __init__(self):
        self.done = [False]

    def record_event(self):
        return _Event(self.done)


def test_record_stream_defers_the_free_until_the_stream_is_done():
    alloc = CachingAllocator(EmulatedDriver(devices=1, memory=1 << 20))
    block = DeviceAllocation(alloc, 0, 1000)
    stream = _Stream()
    record_stream(block, stream)
    record_stream(block, stream)                     # recorded once
    del block
    gc.collect()
    assert alloc.stats(0)["allocated_bytes.all.current"] == 1024     # the stream's work is still queued
    assert alloc.cached_bytes(0) == 0
    stream.done[0] = True
    assert alloc.stats(0)["allocated_bytes.all.current"] == 0
    assert alloc.cached_bytes(0) == 1024


@needs_device
def test_record_stream_on_the_device():
    dev = openreg.utils.get_privateuse1_backend_name()
    mod = getattr(openreg, dev)
    s = mod.Stream()
    x = openreg.ones(1000, device=dev)
    with mod.stream(s):
        y = x[1:] * 2       # a view's storage: the base allocation is recorded
    x[1:].record_stream(s)
    before = mod.memory_allocated()
    del x
    s.synchronize()
    gc.collect()
    assert mod.memory_allocated() == before - 4096
    assert y.sum().item() == 1998.0


@pytest.mark.parametrize("device", DEVICES)
def test_typed_storage_matches_torch(device):
    torch = pytest.importorskip("torch")
    import warnings
    results = []
    for lib, dev in ((torch, "cpu"), (openreg, device)):
        t = lib.arange(6.0, device=dev)[2:]
        torch.storage._warn_typed_storage_removal.__dict__["has_warned"] = False    # both warn once per process
        openreg.typed_storage._warned[0] = False
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = t.storage()
        assert w and "TypedStorage is deprecated" in str(w[0].message)
        s[0] = 9.0
        with pytest.raises(IndexError, match="index 7 out of range for storage of size 6"):
            s[7]
        with pytest.raises(RuntimeError, match="slices are only supported"):
            s[1:2]
        results.append((s.size(), len(s), s.element_size(), str(s.dtype).split(".")[1], s[0], s[-1], s.tolist(),
                        s.data_ptr() == t.untyped_storage().data_ptr(), s.nbytes(), list(s)[:2],
                        t.cpu().tolist(), s.type().split(".")[-1]))
        assert isinstance(s, lib.TypedStorage) and s.device == t.device
    assert results[0] == results[1]
