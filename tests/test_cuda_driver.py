"""The cuda driver, tested without a GPU: CuPy is replaced at the boundary by a fake module that keeps
"device memory" in host buffers and records every runtime call. ``ci/gpu-check`` runs the real thing."""
from __future__ import annotations

import ctypes
import itertools
import sys
import time
import types
import weakref
from typing import ClassVar

import numpy as np
import pytest
from cupy_double import strict as _strict
from cupy_double.strict import SURFACE, make_strict_cupy
from cupy_double.strict import current as _current
from openreg.backends.privateuseone import kernels
from openreg.backends.privateuseone.allocator import OutOfMemoryError
from openreg.backends.privateuseone.cuda_driver import CudaDriver
from openreg.backends.privateuseone.driver import DriverOutOfMemory
from openreg.backends.privateuseone.driver_select import cuda_usable, requested_name, use_driver
from openreg.backends.privateuseone.launchers import HostLauncher

import openreg

pu = openreg.privateuseone


# -- the fake CuPy -------------------------------------------------------------------------------------------
# The array part is the strict CuPy double (tests/cupy_double): recorded names, keywords and dtype limits of
# the real CuPy, arrays that are not NumPy arrays. The ``cupy.cuda`` runtime below keeps "device memory" in
# host buffers and records every call; its names are checked against the recorded surface too.


class FakeOOM(Exception):
    pass


class FakeMemory:
    def __init__(self, nbytes, device, used):
        self.buf = np.zeros(max(nbytes, 1), np.uint8)
        self.ptr = self.buf.ctypes.data
        self.size = nbytes
        self.device_id = device
        used[device] += nbytes
        weakref.finalize(self, _release, used, device, nbytes)


def _release(used, device, nbytes):
    used[device] -= nbytes


class FakeMemoryPointer:
    def __init__(self, mem, offset):
        self.mem = mem
        self.ptr = mem.ptr + offset
        self.device_id = mem.device_id


class FakePool:
    def __init__(self, cuda):
        self.cuda = cuda
        self.device = _current[0]
        self.mallocs = 0
        self.free_all = 0

    def malloc(self, nbytes):
        assert _current[0] == self.device, "a pool must allocate on its own device"
        if self.cuda.used[self.device] + nbytes > self.cuda.memory_limit:
            raise FakeOOM(f"out of memory allocating {nbytes} bytes")
        self.mallocs += 1
        return FakeMemoryPointer(FakeMemory(nbytes, self.device, self.cuda.used), 0)

    def free_all_blocks(self):
        self.free_all += 1


class FakeDevice:
    def __init__(self, index):
        self.id = index

    def __enter__(self):
        self._prev = _current[0]
        _current[0] = self.id
        return self

    def __exit__(self, *exc):
        _current[0] = self._prev


class FakeStream:
    _ids = itertools.count(1)

    def __init__(self, non_blocking=False, priority=0, ptr=None):
        self.ptr = next(FakeStream._ids) if ptr is None else ptr
        self.device = _current[0]
        self.non_blocking = non_blocking
        self.priority = priority
        self.done = True
        self.waited = []

    def synchronize(self):
        pass

    def wait_event(self, event):
        self.waited.append(event)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


class FakeEvent:
    def __init__(self, block=False, disable_timing=False):
        self.disable_timing = disable_timing
        self.t = None
        self.done = True

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass


class FakeRuntime:
    memcpyHostToHost, memcpyHostToDevice, memcpyDeviceToHost, memcpyDeviceToDevice = 0, 1, 2, 3

    def __init__(self, cuda, count):
        self.cuda = cuda
        self.count = count
        self.calls = []

    def getDeviceCount(self):
        if self.count is None:
            raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
        return self.count

    def getDevice(self):
        return _current[0]

    def memGetInfo(self):
        return self.cuda.memory_limit - self.cuda.used[_current[0]], self.cuda.memory_limit

    def deviceSynchronize(self):
        self.calls.append(("deviceSynchronize", _current[0]))

    def memcpy(self, dst, src, n, kind):
        self.calls.append(("memcpy", kind, n))
        ctypes.memmove(dst, src, n)

    def memcpyAsync(self, dst, src, n, kind, stream):
        self.calls.append(("memcpyAsync", kind, n, stream))
        ctypes.memmove(dst, src, n)

    def memcpyPeer(self, dst, dst_dev, src, src_dev, n):
        self.calls.append(("memcpyPeer", dst_dev, src_dev, n))
        ctypes.memmove(dst, src, n)

    def memcpyPeerAsync(self, dst, dst_dev, src, src_dev, n, stream):
        self.calls.append(("memcpyPeerAsync", dst_dev, src_dev, n, stream))
        ctypes.memmove(dst, src, n)


class FakeCuda:
    pass


def make_fake_cupy(count=2, memory=64 << 20):
    cuda = FakeCuda()
    cuda.memory_limit = memory
    cuda.memory = types.SimpleNamespace(OutOfMemoryError=FakeOOM)   # cupy.cuda.memory.OutOfMemoryError
    cuda.used = [0] * (count or 0)
    cuda.runtime = FakeRuntime(cuda, count)
    cuda.pools = []
    cuda.pinned = []
    cuda.allocator = None

    def memory_pool():
        pool = FakePool(cuda)
        cuda.pools.append(pool)
        return pool

    def alloc_pinned_memory(n):
        cuda.pinned.append(n)
        return bytearray(n)

    cuda.Device = FakeDevice
    cuda.MemoryPool = memory_pool
    cuda.MemoryPointer = FakeMemoryPointer
    cuda.Stream = FakeStream
    FakeStream.null = FakeStream(ptr=0)
    cuda.Event = FakeEvent
    cuda.get_elapsed_time = lambda a, b: (b.t - a.t) * 1000.0
    cuda.alloc_pinned_memory = alloc_pinned_memory
    cuda.set_allocator = lambda fn: setattr(cuda, "allocator", fn)
    _check_names("cupy.cuda", cuda)
    _check_names("cupy.cuda.runtime", cuda.runtime)
    cp = make_strict_cupy(cuda)
    _strict.constructed.clear()
    cp.ndarray_calls = _strict.constructed
    return cp


def _check_names(namespace: str, fake) -> None:
    """The fake may offer only what the real namespace has."""
    offered = {n for n in vars(fake) if not n.startswith("_")} | {
        n for n in dir(type(fake)) if not n.startswith("_") and type(fake) not in (types.SimpleNamespace,)}
    offered -= {"memory_limit", "used", "pools", "pinned", "allocator", "cuda", "count", "calls"}
    unknown = sorted(offered - set(SURFACE["names"][namespace]))
    assert not unknown, f"the fake {namespace} offers names real CuPy lacks: {unknown}"


@pytest.fixture
def fake_cupy(monkeypatch):
    cp = make_fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    _current[0] = 0
    return cp


# -- selection ------------------------------------------------------------------------------------------------
def test_detection_never_raises(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)          # import cupy -> ImportError
    assert cuda_usable() is False
    broken = make_fake_cupy(count=None)                     # getDeviceCount raises
    monkeypatch.setitem(sys.modules, "cupy", broken)
    assert cuda_usable() is False
    monkeypatch.setitem(sys.modules, "cupy", make_fake_cupy(count=0))
    assert cuda_usable() is False


def test_selection_env(monkeypatch, fake_cupy):
    monkeypatch.delenv("OPENREG_DRIVER", raising=False)
    assert requested_name() == "cuda"
    monkeypatch.setenv("OPENREG_DRIVER", "emulated")
    assert requested_name() == "emulated"
    monkeypatch.setenv("OPENREG_DRIVER", "cuda")
    assert requested_name() == "cuda"
    monkeypatch.setenv("OPENREG_DRIVER", "tpu")
    with pytest.raises(RuntimeError, match="OPENREG_DRIVER must be"):
        requested_name()


# -- the driver itself ---------------------------------------------------------------------------------------
def test_memory_pool_per_device_and_views(fake_cupy):
    drv = CudaDriver()
    assert drv.device_count() == 2 and drv.array_module is fake_cupy
    assert fake_cupy.cuda.allocator is not None          # CuPy temporaries use the same pools
    s0, s1 = drv.raw_alloc(0, 1024), drv.raw_alloc(1, 2048)
    assert drv.pool(0) is not drv.pool(1) and drv.pool(0).device == 0 and drv.pool(1).device == 1
    assert s1.device == 1 and s1.ptr == s1.mem.ptr
    arr = drv.as_array(s1, 64, np.float32, (3, 4), (4, 12))
    assert fake_cupy.ndarray_calls[-1] == ((3, 4), np.dtype(np.float32), s1.ptr + 64, (4, 12))
    assert arr.device.id == 1
    arr[...] = 7
    host = np.empty(4, np.uint8)
    drv.memcpy_dtoh(host, s1, 64)
    assert host.view(np.float32)[0] == 7
    assert drv.mem_get_info(1) == ((64 << 20) - 2048, 64 << 20)
    drv.raw_free(s0)
    drv.release_cached(0)
    assert drv.pool(0).free_all == 1


def test_copies_use_runtime_memcpy(fake_cupy):
    drv = CudaDriver()
    rt = fake_cupy.cuda.runtime
    a, b = drv.raw_alloc(0, 16), drv.raw_alloc(1, 16)
    src = np.arange(16, dtype=np.uint8)
    drv.memcpy_htod(a, 0, src)
    assert rt.calls[-1] == ("memcpy", rt.memcpyHostToDevice, 16)
    drv.memcpy_dtod(b, 0, a, 0, 16)
    assert rt.calls[-1] == ("memcpyPeer", 1, 0, 16)
    s = drv.create_stream(1)
    out = np.zeros(16, np.uint8)
    drv.memcpy_dtoh(out, b, 0, stream=s)
    assert rt.calls[-1][0] == "memcpyAsync" and rt.calls[-1][-1] == s.ptr
    assert out.tolist() == list(range(16))
    drv.memcpy_dtod(a, 8, a, 0, 8, stream=s)
    assert rt.calls[-1][0] == "memcpyAsync" and rt.calls[-1][1] == rt.memcpyDeviceToDevice


def test_oom_becomes_driver_out_of_memory(fake_cupy):
    drv = CudaDriver()
    with pytest.raises(DriverOutOfMemory):
        drv.raw_alloc(0, (64 << 20) + 1)


def test_streams_events_pinned(fake_cupy):
    drv = CudaDriver()
    s = drv.create_stream(1, priority=-1)
    assert s.device == 1 and s.cupy_stream.non_blocking and s.cupy_stream.priority == -1
    assert drv.default_stream(0).cupy_stream is fake_cupy.cuda.Stream.null
    e1, e2 = drv.create_event(1, True), drv.create_event(1, True)
    drv.event_record(e1, s)
    drv.event_record(e2, s)
    assert drv.event_elapsed_ms(e1, e2) >= 0 and drv.event_query(e2)
    assert e1.cupy_event.disable_timing is False and drv.create_event(0, False).cupy_event.disable_timing
    drv.stream_wait_event(s, e1)
    assert s.cupy_stream.waited == [e1.cupy_event]
    buf, owner = drv.alloc_pinned(100)
    assert fake_cupy.cuda.pinned == [100] and buf.nbytes == 100 and isinstance(owner, bytearray)
    drv.synchronize(1)
    assert ("deviceSynchronize", 1) in fake_cupy.cuda.runtime.calls


# -- the whole device on the cuda driver ---------------------------------------------------------------------
class DoubleLauncher(HostLauncher):
    """The host launcher over the fake GPU's arrays: kernels without a stand-in (bf16.cu) run for real on the host
    memory behind them."""

    name = "cupy-double"

    def operand(self, array, *, what="array", writable=False):
        return super().operand(getattr(array, "_a", array), what=what, writable=writable)


DOUBLE_LAUNCHER = DoubleLauncher()


class _NumpyKernels:
    """Stands in for the kernels' entry points on the fake GPU, recording launches."""

    launched: ClassVar[list] = []

    @classmethod
    def abs_(cls, launcher, out, inp):
        cls.launched.append("abs")
        np.abs(inp, out=out)

    @classmethod
    def copy_(cls, launcher, out, inp):
        cls.launched.append("copy")
        out[...] = inp

    @classmethod
    def fill_(cls, launcher, out, value):
        cls.launched.append("fill")
        out[...] = value

    @classmethod
    def mm_plus_mm(cls, launcher, a, b, c, d, out):
        cls.launched.append("mm_plus_mm")
        out[...] = a @ b + c @ d


def use_stand_in_kernels(mp, stand_in) -> None:
    """Route the raw kernels' entry points to ``stand_in`` on the fake GPU; the others (bf16.cu) run through the
    host launcher on the arrays' host memory."""
    for name in ("abs_", "copy_", "fill_", "mm_plus_mm"):
        mp.setattr(kernels, name, getattr(stand_in, name))
    mp.setattr(kernels, "launcher", lambda: DOUBLE_LAUNCHER)


def test_tensors_on_the_cuda_driver(fake_cupy, monkeypatch):
    use_stand_in_kernels(monkeypatch, _NumpyKernels)
    _NumpyKernels.launched = []
    drv = CudaDriver()
    a = np.array([[1.5, -2.0], [-3.0, 4.0]], np.float32)
    with use_driver(drv):
        assert pu.driver() == "cuda"
        x = openreg.tensor(a).to("privateuseone:1")
        assert x.device.index == 1 and x._array().device.id == 1
        assert x.abs().cpu().tolist() == np.abs(a).tolist()
        assert (x + x).cpu().tolist() == (a + a).tolist()
        y = x.to("privateuseone:0")                         # peer copy
        assert any(c[0] in ("memcpyPeer", "memcpyPeerAsync") for c in fake_cupy.cuda.runtime.calls)
        assert y.cpu().tolist() == a.tolist()
        z = openreg.empty(2, 2, device="privateuseone:1")
        z.copy_(x.as_strided((2, 2), (1, 2)))            # strided: raw copy kernel
        assert z.cpu().tolist() == a.T.tolist()
        z.fill_(2.0)
        out = openreg.empty(2, 2, device="privateuseone:1")
        openreg.ops.inductor._mm_plus_mm(x, z, x, z, out)
        np.testing.assert_allclose(np.array(out.cpu().tolist()), 2 * (a @ np.full((2, 2), 2.0)))
        assert {"abs", "copy", "fill", "mm_plus_mm"} <= set(_NumpyKernels.launched)
        pinned = openreg.tensor(a).pin_memory()
        assert pinned.is_pinned() and fake_cupy.cuda.pinned
        s = pu.Stream(1)
        with pu.stream(s):
            w = openreg.empty(2, 2, device="privateuseone:1")
            w.copy_(pinned, non_blocking=True)
        assert any(c[0] == "memcpyAsync" and c[-1] == s.stream_id for c in fake_cupy.cuda.runtime.calls)
        assert w.cpu().tolist() == a.tolist()
        before = pu.memory_allocated(1)
        assert before > 0 and pu.mem_get_info(1)[1] == 64 << 20
        del x, z, out, w
        assert pu.memory_allocated(1) < before
        pu.set_per_process_memory_fraction(0.25, 1)
        with pytest.raises(OutOfMemoryError, match=r"Tried to allocate 32.00 MiB"):
            openreg.empty(8 << 20, device="privateuseone:1")
        pu.empty_cache()
        assert pu.memory_reserved(1) == pu.memory_allocated(1)
        del y, pinned


def test_device_to_device_copies_do_not_synchronize_the_host(fake_cupy, monkeypatch):
    use_stand_in_kernels(monkeypatch, _NumpyKernels)
    host_waits = []
    monkeypatch.setattr(FakeStream, "synchronize", lambda self: host_waits.append(("stream", self.ptr)))
    monkeypatch.setattr(FakeEvent, "synchronize", lambda self: host_waits.append(("event", self)))
    rt = fake_cupy.cuda.runtime
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    with use_driver(CudaDriver()):
        s1 = pu.Stream(1)
        x = openreg.tensor(a).to("privateuseone:1")
        with pu.stream(s1):
            same = openreg.empty(3, 4, device="privateuseone:1")
            conv = openreg.empty(4, 3, dtype=openreg.float16, device="privateuseone:1")
            host_waits.clear()
            _NumpyKernels.launched = []
            del rt.calls[:]
            same.copy_(x)                                   # one memcpy on the current stream
            conv.copy_(x.t())                               # converting kernel, strided source
            assert host_waits == [] and not any(c[0] == "deviceSynchronize" for c in rt.calls)
            assert rt.calls == [("memcpyAsync", rt.memcpyDeviceToDevice, 48, s1.stream_id)]
            assert _NumpyKernels.launched == ["copy"]       # no astype + same-dtype copy
            # across devices: no host wait either, the two current streams wait on each other's events
            other = openreg.empty(3, 4, device="privateuseone:0")
            host_waits.clear()
            other.copy_(same)
            assert host_waits == []
            assert s1._handle.cupy_stream.waited and fake_cupy.cuda.Stream.null.waited
            assert any(c[0] == "memcpyPeerAsync" for c in rt.calls)
        assert same.cpu().tolist() == a.tolist() and other.cpu().tolist() == a.tolist()
        assert conv.cpu().tolist() == a.T.astype(np.float16).tolist()


def test_driver_reports_the_driver_in_use_not_the_request(monkeypatch):
    """OPENREG_DRIVER=cuda without a usable CuPy is an error when the driver is needed, never "cuda"."""
    from openreg.backends.privateuseone import driver_select
    monkeypatch.setattr(driver_select, "_driver", None)
    monkeypatch.setenv("OPENREG_DRIVER", "cuda")
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(RuntimeError, match="'cuda' PrivateUse1 driver could not be initialised"):
        pu.driver()
    monkeypatch.setenv("OPENREG_DRIVER", "emulated")
    assert pu.driver() == "emulated"
