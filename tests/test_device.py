"""The PrivateUse1 device module and tensors on the device (emulated driver in CI)."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE, needs_two_devices
from openreg.backends.privateuseone import device_ops, kernels

import openreg

pu = openreg.privateuseone
DEV = "privateuseone"
LAST = openreg.device(LAST_DEVICE).index     # 1, or 0 on a one-GPU machine


def test_module_basics():
    assert openreg.privateuseone is pu
    assert pu.is_available()
    assert pu.driver() in ("cuda", "emulated")
    assert pu.device_count() >= 1
    assert pu.current_device() == 0


@needs_two_devices
def test_set_device_and_guard_restored_on_exception():
    pu.set_device(1)
    try:
        assert pu.current_device() == 1
        assert openreg.empty(2, device=DEV).device == openreg.device(DEV, 1)
    finally:
        pu.set_device(0)
    with pytest.raises(ValueError, match="boom"), pu.device(1):
        assert pu.current_device() == 1
        raise ValueError("boom")
    assert pu.current_device() == 0
    for arg in (1, "privateuseone:1", openreg.device("privateuseone:1")):
        with pu.device(arg):
            assert pu.current_device() == 1
    with pu.device(None):
        assert pu.current_device() == 0


def test_out_of_range_index_errors():
    n = pu.device_count()
    with pytest.raises(RuntimeError, match=f"Invalid device index {n} .*privateuseone"):
        pu.set_device(n)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        openreg.empty(3, device=f"{DEV}:{n}")
    with pytest.raises(RuntimeError, match="Invalid device index"):
        openreg.tensor([1.0]).to(f"{DEV}:{n}")
    with pytest.raises(RuntimeError, match="Invalid device index"):
        pu.device(n)
    with pytest.raises(RuntimeError, match="Invalid device index"):
        pu.memory_allocated(n)
    assert pu.current_device() == 0


def test_synchronize_and_mem_get_info():
    pu.synchronize()
    pu.synchronize(LAST)
    free, total = pu.mem_get_info(LAST)
    assert 0 <= free <= total
    if pu.driver() == "emulated":          # the emulated driver's free memory is exactly what the pool holds
        reserved = pu.memory_reserved(LAST)
        t = openreg.empty(1 << 18, dtype=openreg.uint8, device=LAST_DEVICE)
        grown = pu.memory_reserved(LAST) - reserved
        assert pu.mem_get_info(LAST)[0] == free - grown
        del t
        pu.empty_cache()
        assert pu.mem_get_info(LAST)[0] == total - pu.memory_reserved(LAST)


@needs_two_devices
def test_streams_and_events():
    s = pu.Stream(1)
    assert s.device == openreg.device(DEV, 1)
    assert pu.current_stream(1) != s
    with pu.stream(s):
        assert pu.current_stream() == s and pu.current_device() == 1
        start = pu.Event(enable_timing=True)
        end = pu.Event(enable_timing=True)
        start.record()
        x = openreg.ones(1000, device=DEV) * 2
        end.record()
    assert pu.current_device() == 0 and pu.current_stream(1) == pu.default_stream(1)
    end.synchronize()
    assert end.query() and s.query()
    assert start.elapsed_time(end) >= 0.0
    assert x.device.index == 1
    with s:
        assert pu.current_stream(1) == s
    other = pu.Stream()
    ev = s.record_event()
    other.wait_event(ev)
    other.wait_stream(s)
    ev.wait()
    other.synchronize()


def test_event_errors():
    a, b = pu.Event(), pu.Event()
    a.record()
    b.record()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        a.elapsed_time(b)
    c, d = pu.Event(enable_timing=True), pu.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="must be recorded"):
        c.elapsed_time(d)
    assert c.query()        # never recorded: complete
    c.synchronize()


@needs_two_devices
def test_event_recorded_on_another_device_raises():
    with pytest.raises(RuntimeError, match="does not match"):
        e = pu.Event()
        e.record(pu.Stream(0))
        e.record(pu.Stream(1))


def test_empty_and_empty_strided_on_device():
    t = openreg.empty(2, 3, device=LAST_DEVICE)
    assert t.device == openreg.device(DEV, LAST) and t.shape == (2, 3) and t.stride() == (3, 1)
    s = openreg.empty_strided((2, 3), (1, 2), device=DEV)
    assert s.stride() == (1, 2) and s.untyped_storage().nbytes() == 6 * 4
    assert s.untyped_storage().device == openreg.device(DEV, 0)
    assert t.data_ptr() != 0 and t.is_cpu is False


def test_empty_views_past_the_storage_end_on_device():
    t = openreg.arange(3.0, device=DEV)
    for v in (t[5:], t.as_strided((0,), (1,), 100_000), t.as_strided((0, 4), (4, 1), 100_000)):
        assert v.numel() == 0 and v.device == t.device
        assert v.cpu().shape == v.shape and v.tolist() == np.empty(tuple(v.shape)).tolist()
        assert (v + 1).shape == v.shape and v.clone().shape == v.shape
        v.copy_(openreg.ones(v.shape))
        assert v.sum().item() == 0
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_item_tolist_print_numpy():
    t = openreg.tensor([[1.5, -2.0], [3.0, 4.25]], device=LAST_DEVICE)
    assert t.tolist() == [[1.5, -2.0], [3.0, 4.25]]
    assert openreg.tensor([7], device=DEV).item() == 7
    text = repr(t)
    assert f"device='{LAST_DEVICE}'" in text and "4.25" in text
    with pytest.raises(TypeError, match=r"\.cpu\(\)"):
        t.numpy()


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64, openreg.int32, openreg.int64])
def test_ops_match_numpy(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((4, 5)) * 10).astype(dtype.numpy)
    b = (rng.standard_normal((4, 5)) * 10).astype(dtype.numpy)
    x, y = openreg.tensor(a, device=DEV), openreg.tensor(b, device=DEV)
    np.testing.assert_allclose(np.array(x.abs().cpu().tolist()), np.abs(a))
    np.testing.assert_allclose(np.array((x + y).cpu().tolist()), a + b)
    np.testing.assert_allclose(np.array(x.sum().cpu().tolist()), a.sum(), rtol=1e-6)
    out = openreg.empty(0, dtype=dtype, device=DEV)
    openreg.ops.aten.abs.out(x, out=out)
    np.testing.assert_allclose(np.array(out.cpu().tolist()), np.abs(a))
    x.abs_()
    np.testing.assert_allclose(np.array(x.cpu().tolist()), np.abs(a))
    if dtype.is_floating_point:
        m = openreg.tensor(a[:, :4], device=DEV).mm(openreg.tensor(b[:4], device=DEV))
        np.testing.assert_allclose(np.array(m.cpu().tolist()), a[:, :4] @ b[:4], rtol=1e-5)


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_mm_plus_mm_on_device(dtype):
    rng = np.random.default_rng(1)
    a, b, c, d = (rng.standard_normal(s).astype(dtype.numpy) for s in ((5, 3), (3, 4), (5, 6), (6, 4)))
    ts = [openreg.tensor(v, device=LAST_DEVICE) for v in (a, b, c, d)]
    out = openreg.empty(5, 4, dtype=dtype, device=LAST_DEVICE)
    res = openreg.ops.inductor._mm_plus_mm(*ts, out)
    assert res is out
    np.testing.assert_allclose(np.array(out.cpu().tolist()), a @ b + c @ d, rtol=1e-5, atol=1e-6)
    cpu = openreg.empty(5, 4, dtype=dtype)
    openreg.ops.inductor._mm_plus_mm(*[openreg.tensor(v) for v in (a, b, c, d)], cpu)
    np.testing.assert_allclose(np.array(out.cpu().tolist()), np.array(cpu.tolist()), rtol=1e-5, atol=1e-6)


def test_fill_and_zero_on_device():
    t = openreg.empty(3, 2, device=DEV)
    t.fill_(2.5)
    assert t.cpu().tolist() == [[2.5, 2.5]] * 3
    t.zero_()
    assert t.cpu().tolist() == [[0.0, 0.0]] * 3
    assert openreg.full((2,), 7, device=DEV).tolist() == [7, 7]
    b = openreg.ones(2, dtype=openreg.bfloat16, device=DEV)
    assert b.cpu().float().tolist() == [1.0, 1.0] if hasattr(b, "float") else b.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="cannot be converted"):
        t.fill_(1j)


@needs_two_devices
def test_mixing_two_devices_raises_naming_both():
    x = openreg.ones(3, device=f"{DEV}:0")
    y = openreg.ones(3, device=f"{DEV}:1")
    with pytest.raises(RuntimeError, match=r"privateuseone:0 and privateuseone:1"):
        x + y


def test_mixing_device_and_cpu_raises_naming_both():
    x = openreg.ones(3, device=f"{DEV}:0")
    with pytest.raises(RuntimeError, match=r"same device.*(privateuseone:0 and cpu|cpu and privateuseone:0)"):
        x + openreg.ones(3)
    with pytest.raises(RuntimeError, match="same device"):
        openreg.ops.inductor._mm_plus_mm(openreg.ones(2, 2, device=DEV), openreg.ones(2, 2), openreg.ones(2, 2),
                                         openreg.ones(2, 2), openreg.empty(2, 2, device=DEV))
    # a zero-dim CPU tensor may join a device computation
    assert (x + openreg.tensor([2.0]).sum()).cpu().tolist() == [3.0, 3.0, 3.0]


def test_generic_device_kernels_registered():
    device_ops.register_generic()     # idempotent: ops that got a device kernel are skipped
    for q in device_ops._generic:
        if device_ops._generic[q] == "device":
            from openreg._dispatch import dispatcher
            from openreg._dispatch.keys import DispatchKey
            assert dispatcher.has_kernel(q, DispatchKey.PrivateUse1), q


def test_device_support_is_declared_by_the_kernel(monkeypatch):
    """A CPU kernel runs on the device only when it says so (runs_on_device); its module does not count."""
    from openreg._dispatch import dispatcher
    from openreg._dispatch.device_support import runs_on_device
    from openreg._dispatch.keys import DispatchKey
    from openreg.library import Library

    monkeypatch.setattr(device_ops, "_generic", {})
    ns = "openreg_device_support_test"
    defs, impls = Library(ns, "DEF"), Library(ns, "IMPL")
    try:
        defs.define("twice(Tensor x) -> Tensor")
        defs.define("thrice(Tensor x) -> Tensor")

        @runs_on_device
        def twice(x):
            return x + x

        def thrice(x):
            return x + x + x
        thrice.__module__ = "openreg.aten.pretend_core"   # core-looking code is not device code by module name
        impls.impl("twice", twice, "CPU")
        impls.impl("thrice", thrice, "CPU")
        assert device_ops.register_generic(namespaces=(ns,), libs={ns: impls}) == [f"{ns}::twice"]
        x = openreg.tensor([1.0, 2.0], device=DEV)
        assert getattr(openreg.ops, ns).twice(x).cpu().tolist() == [2.0, 4.0]
        assert not dispatcher.has_kernel(f"{ns}::thrice", DispatchKey.PrivateUse1)
        assert device_ops.unported_ops() == [f"{ns}::thrice"]
    finally:
        impls._destroy()
        defs._destroy()


def test_raw_kernel_wiring(monkeypatch):
    """With raw kernels enabled, abs/fill_/copy_/_mm_plus_mm reach the kernels' entry points with the launcher."""
    calls = []

    class Kernels:
        @staticmethod
        def abs_(launcher, out, inp):
            calls.append(("abs", launcher))
            np.abs(inp, out=out)

        @staticmethod
        def copy_(launcher, out, inp):
            calls.append(("copy", launcher))
            out[...] = inp

        @staticmethod
        def fill_(launcher, out, value):
            calls.append(("fill", launcher))
            out[...] = value

        @staticmethod
        def mm_plus_mm(launcher, a, b, c, d, out):
            calls.append(("mm", launcher))
            out[...] = a @ b + c @ d

    monkeypatch.setattr(kernels, "enabled", lambda: True)
    monkeypatch.setattr(kernels, "launcher", lambda: "L")
    for name in ("abs_", "copy_", "fill_", "mm_plus_mm"):
        monkeypatch.setattr(kernels, name, getattr(Kernels, name))
    for table in ("ABS_DTYPES", "COPY_DTYPES", "FILL_DTYPES", "MM_DTYPES"):
        monkeypatch.setattr(kernels, table, (np.dtype(np.float32),))
    x = openreg.tensor([[-1.0, 2.0], [3.0, -4.0]], device=DEV)
    assert x.abs().cpu().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    y = openreg.empty(2, 2, device=DEV)
    y.copy_(x.as_strided((2, 2), (1, 2)))
    assert y.cpu().tolist() == [[-1.0, 3.0], [2.0, -4.0]]
    y.fill_(3.0)
    out = openreg.empty(2, 2, device=DEV)
    openreg.ops.inductor._mm_plus_mm(x, y, x, y, out)
    assert out.cpu().tolist() == (2 * (np.array([[-1.0, 2.0], [3.0, -4.0]]) @ np.full((2, 2), 3.0))).tolist()
    assert {name for name, _ in calls} == {"abs", "copy", "fill", "mm"}
    assert all(launcher == "L" for _, launcher in calls)


def test_emulated_raw_kernels_env(monkeypatch):
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    assert kernels.enabled()
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "0")
    assert kernels.enabled() == (pu.driver() == "cuda")


def test_driver_protocol_is_what_drivers_differ_in():
    """13 abstract driver methods (25 before): copies, uploads, default streams and the stream/event calls are
    shared in the base; streams and events carry their own operations (as CuPy's do)."""
    from openreg.backends.privateuseone.driver import Driver, EventHandle, StreamHandle
    from openreg.backends.privateuseone.emulated_driver import EmulatedDriver

    assert sorted(Driver.__abstractmethods__) == [
        "alloc_pinned", "array_module", "as_array", "create_event", "create_stream", "device_count", "download",
        "mem_get_info", "memcpy", "properties", "raw_alloc", "synchronize", "to_device"]
    assert sorted(StreamHandle.__abstractmethods__) == ["query", "synchronize", "wait_event"]
    assert sorted(EventHandle.__abstractmethods__) == ["elapsed_ms", "query", "record", "synchronize"]
    drv = EmulatedDriver(devices=1, memory=1 << 20)
    s, e = drv.default_stream(0), drv.create_event(0, True)
    assert drv.default_stream(0) is s and s.id == 0 and isinstance(s, StreamHandle) and isinstance(e, EventHandle)
    seg = drv.raw_alloc(0, 8)
    drv.memcpy_htod(seg, 0, np.arange(8, dtype=np.uint8), s)
    drv.memcpy_dtod(seg, 4, seg, 0, 4)                  # overlapping-safe, one memmove
    host = np.zeros(8, np.uint8)
    drv.memcpy_dtoh(host, seg, 0)
    assert host.tolist() == [0, 1, 2, 3, 0, 1, 2, 3] and drv.total_memory(0) == 1 << 20
