"""DLPack interchange: CPU tensors through NumPy in both directions (zero-copy, views, dtypes), the emulated
device's refusal, openreg-to-openreg aliasing, and the cuda driver's export/import over the fake CuPy of
test_cuda_driver.py."""
from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest
from device_params import LAST_DEVICE

import openreg
from openreg._dlpack_capsule import read_capsule
from openreg.dlpack import DLDeviceType

pu = openreg.privateuseone

CPU_DTYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int8, np.int16, np.int32,
              np.int64, np.uint8, np.bool_]


def _values(shape, dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape) * 50
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return (a > 0) if dtype is np.bool_ else a.astype(dtype)


def _shares(t: openreg.Tensor, a: np.ndarray) -> bool:
    return t.data_ptr() == a.__array_interface__["data"][0]


# -- CPU: export ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", CPU_DTYPES, ids=lambda d: np.dtype(d).name)
def test_cpu_export_every_dtype_zero_copy(dtype):
    a = _values((3, 4), dtype)
    t = openreg.from_numpy(a.copy())
    assert t.__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    out = np.from_dlpack(t)
    assert out.dtype == a.dtype and out.shape == (3, 4)
    np.testing.assert_array_equal(out, a)
    assert _shares(t, out)


@pytest.mark.parametrize("view", [
    lambda t: t.t(),                          # transposed
    lambda t: t[1:, ::2],                     # offset and step
    lambda t: t[:, 1],                        # a column (stride 5)
    lambda t: t.unsqueeze(1).expand(4, 3, 5),  # zero stride
    lambda t: t[2, 3],                        # 0-d
    lambda t: t[:0],                          # empty
], ids=["t", "slice", "column", "expand", "0d", "empty"])
def test_cpu_export_views_keep_layout(view):
    base = openreg.arange(20.0).reshape(4, 5)
    v = view(base)
    out = np.from_dlpack(v)
    np.testing.assert_array_equal(out, v.numpy())
    assert out.shape == tuple(v.shape)
    if v.numel() > 1:
        assert out.strides == tuple(s * v.element_size() for s in v.stride())
    if v.numel():
        _ = base.mul_(-1)                     # the consumer sees writes: no copy was made
        np.testing.assert_array_equal(out, v.numpy())


def test_cpu_export_writes_flow_back_and_capsule_keeps_memory():
    t = openreg.zeros(2, 3)
    out = np.from_dlpack(t[:, 1:])
    out[...] = 5
    assert t.tolist() == [[0.0, 5.0, 5.0], [0.0, 5.0, 5.0]]
    capsule = openreg.arange(6, dtype=openreg.int64).__dlpack__()
    gc.collect()                               # the tensor is gone; its memory lives in the capsule
    holder = _Holder(capsule, (1, 0))
    assert np.from_dlpack(holder).tolist() == list(range(6))


def test_cpu_export_options():
    t = openreg.arange(4.0)
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert '"dltensor"' in repr(t.__dlpack__())
    assert not np.shares_memory(np.from_dlpack(_Holder(t.__dlpack__(copy=True), (1, 0))), np.from_dlpack(t))
    np.from_dlpack(_Holder(t.__dlpack__(stream=7), (1, 0)))   # the stream is ignored on the CPU, as PyTorch
    # array API consumers pass these keywords to the producer:
    a = np.from_dlpack(t, device="cpu")
    assert _shares(t, a)
    with pytest.raises(BufferError, match="to DLPack device kDLCUDA:0"):
        t.__dlpack__(dl_device=(DLDeviceType.kDLCUDA, 0))


def test_cpu_export_errors():
    with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach()"):
        openreg.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        np.from_dlpack(openreg.ones(2, requires_grad=True))
    np.from_dlpack(openreg.ones(2, requires_grad=True).detach())
    # bfloat16 exports as kDLBfloat since #16 (it was refused while storage held raw bits): test_narrow_floats_*
    with pytest.raises(TypeError, match="stream must be ``int`` or ``none``"):
        openreg.ones(2).__dlpack__(stream=1.5)
    with pytest.raises(BufferError, match="quantized"):
        openreg.quantize_per_tensor(openreg.ones(2), 0.5, 0, openreg.qint8).__dlpack__()
    meta = openreg.empty(2, device="meta")
    with pytest.raises(ValueError, match="Unknown device type meta for Dlpack"):
        meta.__dlpack_device__()
    with pytest.raises(BufferError, match="meta"):
        openreg.from_dlpack(meta)


# -- CPU: import ---------------------------------------------------------------------------------------------
class _Holder:
    """A minimal DLPack producer around a capsule (what torch.utils.dlpack.to_dlpack would hand over)."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


@pytest.mark.parametrize("dtype", CPU_DTYPES, ids=lambda d: np.dtype(d).name)
def test_cpu_import_every_dtype_shares_memory(dtype):
    a = _values((2, 5), dtype)
    t = openreg.from_dlpack(a)
    assert t.device.type == "cpu" and t.dtype == openreg.dtypes.from_numpy(a.dtype)
    np.testing.assert_array_equal(t.numpy(), a)
    assert _shares(t, a)


def test_cpu_import_non_contiguous_views():
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for v in (a.transpose(2, 0, 1), a[1:, ::2, 3], a[:, :, ::-1][:, :, ::-1], a[..., None][:, :1]):
        t = openreg.from_dlpack(v)
        assert tuple(t.shape) == v.shape
        assert t.stride() == tuple(s // 4 for s in v.strides)
        np.testing.assert_array_equal(t.numpy(), v)
        assert t.data_ptr() == v.__array_interface__["data"][0]
    v = a[1:, ::2, 3]
    t = openreg.from_dlpack(v)
    _ = t.add_(1000)                        # writes go to the producer's memory
    assert (a[1:, ::2, 3] >= 1000).all() and a[0, 0, 0] == 0


def test_cpu_import_keeps_producer_alive_and_round_trips():
    t = openreg.from_dlpack(np.arange(1000, dtype=np.int32) * 3)
    gc.collect()
    assert t[999].item() == 2997
    back = openreg.from_dlpack(np.from_dlpack(t))
    assert back.data_ptr() == t.data_ptr() and back.tolist() == t.tolist()
    assert openreg.from_dlpack(np.array(2.5)).tolist() == 2.5          # 0-d
    assert openreg.from_dlpack(np.zeros((0, 3))).shape == (0, 3)       # empty


def test_cpu_import_capsules():
    a = np.arange(6.0).reshape(2, 3)
    for capsule in (a.__dlpack__(), a.__dlpack__(max_version=(1, 0))):
        t = openreg.from_dlpack(capsule)
        assert t.tolist() == a.tolist() and t.data_ptr() == a.__array_interface__["data"][0]
    used = a.__dlpack__()
    openreg.from_dlpack(used)
    with pytest.raises(BufferError, match="consumed only once"):
        openreg.from_dlpack(used)


def test_cpu_import_errors():
    with pytest.raises(BufferError, match="negative strides"):
        openreg.from_dlpack(np.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="__dlpack__"):
        openreg.from_dlpack([1, 2, 3])
    with pytest.raises(BufferError, match="unsupported DLPack device kDLOpenCL"):
        openreg.from_dlpack(_Holder(None, (4, 0)))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type uint16"):
        openreg.from_dlpack(np.arange(3, dtype=np.uint16))


# -- openreg to openreg --------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
def test_from_dlpack_of_an_openreg_tensor_aliases(device):
    base = openreg.arange(12.0, device=device).reshape(3, 4)
    v = base[:, 1::2]
    t = openreg.from_dlpack(v)
    assert t is not v and t.device == v.device
    assert (t.shape, t.stride(), t.storage_offset()) == (v.shape, v.stride(), v.storage_offset())
    assert t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    t.fill_(-1.0)
    expected = np.arange(12.0).reshape(3, 4)
    expected[:, 1::2] = -1
    assert base.cpu().tolist() == expected.tolist()
    assert not t.requires_grad
    with pytest.raises(BufferError, match="require gradient"):
        openreg.from_dlpack(openreg.ones(2, device=device, requires_grad=True))


# -- the emulated device -------------------------------------------------------------------------------------
def test_emulated_device_refuses_export_and_copies_on_request():
    if pu.driver() != "emulated":
        pytest.skip("emulated-driver behaviour")
    t = openreg.arange(6.0, device=LAST_DEVICE).reshape(2, 3)
    assert t.__dlpack_device__() == (DLDeviceType.kDLExtDev, openreg.device(LAST_DEVICE).index)
    with pytest.raises(BufferError, match=LAST_DEVICE + r".*emulated.*\.cpu\(\) first"):
        t.__dlpack__()
    with pytest.raises(BufferError, match=LAST_DEVICE):
        np.from_dlpack(t)
    host = np.from_dlpack(_Holder(t.t().__dlpack__(dl_device=(DLDeviceType.kDLCPU, 0)), (1, 0)))
    np.testing.assert_array_equal(host, np.arange(6.0).reshape(2, 3).T)
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(1, 0), copy=False)
    np.testing.assert_array_equal(np.from_dlpack(t.cpu()), np.arange(6.0).reshape(2, 3))


def test_emulated_device_refuses_cuda_imports():
    if pu.driver() != "emulated":
        pytest.skip("emulated-driver behaviour")
    with pytest.raises(BufferError, match=r"CUDA device 0 \(kDLCUDA\).*'emulated' driver"):
        openreg.from_dlpack(_Holder(None, (DLDeviceType.kDLCUDA, 0)))


# -- the cuda driver over the fake CuPy ----------------------------------------------------------------------
@pytest.fixture
def cuda_driver(monkeypatch):
    """The cuda driver on test_cuda_driver's fake CuPy, extended with the DLPack pieces CuPy provides:
    ``cuda.UnownedMemory``, ``ndarray.__dlpack__``/``__dlpack_device__`` and ``from_dlpack``. The fake
    capsules are NumPy's (host memory standing in for device memory)."""
    import ctypes

    from openreg.backends.privateuseone.cuda_driver import CudaDriver
    from openreg.backends.privateuseone.driver_select import use_driver
    test_cuda_driver = pytest.importorskip("test_cuda_driver")
    from cupy_double import strict

    cp = test_cuda_driver.make_fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    test_cuda_driver._current[0] = 0
    calls = {"streams": [], "owners": []}

    class UnownedMemory:
        def __init__(self, ptr, size, owner, device_id=None):
            self.ptr, self.size, self.owner, self.device_id = ptr, size, owner, device_id
            self.buf = np.ctypeslib.as_array((ctypes.c_uint8 * max(size, 1)).from_address(ptr))
            calls["owners"].append(weakref.ref(owner) if hasattr(owner, "__weakref__") else owner)

    def array_dlpack(self, stream=None, **kwargs):
        calls["streams"].append(stream)
        return np.asarray(_Exporting(self)).__dlpack__(**kwargs)   # as CuPy's, the capsule holds the array

    def from_dlpack(obj):
        kind, dev = obj.__dlpack_device__()
        assert kind == DLDeviceType.kDLCUDA
        host = np.from_dlpack(_Holder(obj.__dlpack__(), (1, 0)))
        base = host if host.base is None else host.base
        extent = sum((n - 1) * s for n, s in zip(host.shape, host.strides)) + host.itemsize  # bytes
        mem = UnownedMemory(host.__array_interface__["data"][0], extent, base, device_id=dev)
        out = strict.ndarray._wrap(host, dev)
        calls["imported"] = mem
        return _FakeImported(out, test_cuda_driver.FakeMemoryPointer(mem, 0))

    def ndarray(shape, dtype, memptr, strides, _make=cp.ndarray):
        out = _make(shape, dtype, memptr, strides)
        out._memptr = memptr                  # as in CuPy, an array holds its MemoryPointer (and its memory)
        return out

    cp.ndarray = ndarray
    cp.cuda.UnownedMemory = UnownedMemory
    cp.from_dlpack = from_dlpack
    monkeypatch.setattr(strict.ndarray, "__dlpack__", array_dlpack)
    monkeypatch.setattr(strict.ndarray, "__dlpack_device__",
                        lambda self: (DLDeviceType.kDLCUDA, self._dev), raising=False)
    drv = CudaDriver()
    with use_driver(drv):
        yield calls
    gc.collect()


class _Exporting:
    """Host view of a fake device array whose base is the array itself (NumPy collapses view bases)."""

    def __init__(self, arr):
        self.arr, self.__array_interface__ = arr, arr._a.__array_interface__


class _FakeImported:
    """What CuPy's from_dlpack returns, reduced to what openreg reads: shape, strides, dtype, ``.data``."""

    def __init__(self, arr, memptr):
        self._arr, self.data = arr, memptr
        self.shape, self.strides, self.dtype, self.size, self.itemsize = (arr.shape, arr.strides, arr.dtype,
                                                                           arr.size, arr.itemsize)


def test_cuda_export_shares_device_memory_and_keeps_it_alive(cuda_driver):
    t = openreg.arange(12.0, dtype=openreg.float32, device="privateuseone:1").reshape(3, 4)
    assert t.__dlpack_device__() == (DLDeviceType.kDLCUDA, 1)
    capsule = t[:, 1::2].__dlpack__(stream=1, max_version=(1, 0))
    assert cuda_driver["streams"] == [1]
    # the UnownedMemory under the exported array owns the storage's allocation
    assert cuda_driver["owners"][-1]() is t.untyped_storage()._data
    view = np.from_dlpack(_Holder(capsule, (1, 0)))
    np.testing.assert_array_equal(view, np.arange(12.0).reshape(3, 4)[:, 1::2])
    view[...] = -7                                           # the consumer writes the device memory
    assert t.cpu().tolist()[0] == [0.0, -7.0, 2.0, -7.0]
    allocated = pu.memory_allocated(1)
    del t
    gc.collect()
    assert pu.memory_allocated(1) == allocated               # the block stays while the capsule lives
    del view, capsule
    gc.collect()
    assert pu.memory_allocated(1) < allocated and cuda_driver["owners"][-1]() is None
    # bfloat16 (no CuPy dtype) exports through openreg's own capsule over the raw device memory
    b = openreg.tensor([1.5, -2.0], dtype=openreg.bfloat16, device="privateuseone:0")
    view = read_capsule(cap := b.__dlpack__(max_version=(1, 0)))
    assert (view.device, view.code, view.bits, view.shape) == ((DLDeviceType.kDLCUDA, 0), 4, 16, (2,))
    assert view.data == b.data_ptr()
    del cap


def test_cuda_import_gives_a_device_tensor_sharing_memory(cuda_driver):
    src = openreg.arange(10.0, dtype=openreg.float32, device="privateuseone:1")
    before = pu.memory_allocated(1)
    t = openreg.from_dlpack(_DeviceProducer(src[::2]))
    assert t.device == openreg.device("privateuseone:1") and t.dtype == openreg.float32
    assert t.stride() == (2,) and t.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert cuda_driver["streams"][-1] == 1                    # our (legacy default) stream, DLPack's number 1
    assert pu.memory_allocated(1) == before                  # foreign memory is not counted
    _ = t.mul_(10)                                           # writes land in the producer's memory
    assert src.cpu().tolist() == [0.0, 1.0, 20.0, 3.0, 40.0, 5.0, 60.0, 7.0, 80.0, 9.0]
    assert cuda_driver["imported"].owner is not None
    assert (t + 1).cpu().tolist() == [1.0, 21.0, 41.0, 61.0, 81.0]
    assert t.untyped_storage().nbytes() == (4 * 2 + 1) * 4   # exactly the producer's bytes, and no more
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(10)


class _DeviceProducer:
    """A CuPy-array-like producer over an openreg device tensor, as another CUDA library would be."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None, **kwargs):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()
