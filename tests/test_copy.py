"""Copies between the CPU and the device and between devices: contiguous, strided, broadcast, dtype
conversion, overlapping, non-blocking from pinned memory; compared against NumPy."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE, cross_device, needs_two_devices

import openreg

pu = openreg.privateuseone
D0, D1 = "privateuseone:0", LAST_DEVICE            # D1: device 1, or device 0 on a one-GPU machine


def _np(t):
    return np.array(t.cpu().tolist())


def _transposed(t):
    return t.as_strided((t.shape[1], t.shape[0]), (t.stride(1), t.stride(0)), t.storage_offset())


@needs_two_devices
def test_round_trip_cpu_device_device_cpu():
    a = np.arange(24, dtype=np.float32).reshape(4, 6) - 7.5
    x = openreg.tensor(a)
    d0 = x.to(D0)
    d1 = d0.to(D1)
    back = d1.cpu()
    assert d0.device == openreg.device(D0) and d1.device == openreg.device(D1) and back.is_cpu
    assert d0.data_ptr() != d1.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(np.asarray(back), a)
    assert x.to(D0) is not x and d0.to(D0) is d0


@pytest.mark.parametrize("src_dev,dst_dev", [("cpu", D0), (D0, "cpu"), (D0, D0), cross_device(D0, D1)])
def test_strided_copies(src_dev, dst_dev):
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    src = _transposed(openreg.tensor(a, device=src_dev))          # (4, 3), strides (1, 4)
    assert not src.is_contiguous()
    dst = openreg.zeros(4, 3, dtype=openreg.float64, device=dst_dev)
    dst.copy_(src)
    np.testing.assert_array_equal(_np(dst), a.T)
    # strided destination
    base = openreg.zeros(3, 4, dtype=openreg.float64, device=dst_dev)
    _transposed(base).copy_(openreg.tensor(a.T.copy(), device=src_dev))
    np.testing.assert_array_equal(_np(base), a)
    # offsets inside the storage
    big = openreg.tensor(np.arange(10.0), device=src_dev)
    part = big.as_strided((3,), (2,), 3)
    out = openreg.zeros(3, dtype=openreg.float64, device=dst_dev)
    out.copy_(part)
    assert out.cpu().tolist() == [3.0, 5.0, 7.0]


CASES = [
    (openreg.float32, openreg.int32, [1.7, -2.9, 3.0], [1, -2, 3]),
    (openreg.int64, openreg.float64, [1, -2, 3], [1.0, -2.0, 3.0]),
    (openreg.float32, openreg.bool, [0.0, 2.0, -1.0], [False, True, True]),
    (openreg.bool, openreg.float32, [True, False, True], [1.0, 0.0, 1.0]),
    (openreg.float32, openreg.bfloat16, [1.0, 0.5, -3.0], [1.0, 0.5, -3.0]),
    (openreg.float64, openreg.float16, [1.0, 0.25, 65504.0], [1.0, 0.25, 65504.0]),
    (openreg.complex64, openreg.float32, [1 + 2j, -3 + 0j, 0.5j], [1.0, -3.0, 0.0]),
]


@pytest.mark.parametrize("src_dt,dst_dt,values,expected", CASES)
@pytest.mark.parametrize("src_dev,dst_dev", [("cpu", D1), (D1, "cpu"), (D1, D1), cross_device(D1, D0)])
def test_dtype_conversion(src_dt, dst_dt, values, expected, src_dev, dst_dev):
    src = openreg.tensor(values, dtype=src_dt, device=src_dev)
    dst = openreg.empty(len(values), dtype=dst_dt, device=dst_dev)
    dst.copy_(src)
    got = dst.cpu()
    if dst_dt is openreg.bfloat16:
        got = got.to(openreg.float32)
    assert got.tolist() == expected
    conv = src.to(device=dst_dev, dtype=dst_dt)
    assert conv.dtype is dst_dt and conv.device == openreg.device(dst_dev)


@pytest.mark.parametrize("src_dev,dst_dev", [("cpu", D1), (D1, "cpu"), (D1, D1), cross_device(D0, D1)])
def test_broadcast_copy(src_dev, dst_dev):
    dst = openreg.zeros(3, 2, device=dst_dev)
    dst.copy_(openreg.tensor([5.0, 6.0], device=src_dev))
    assert dst.cpu().tolist() == [[5.0, 6.0]] * 3
    with pytest.raises(RuntimeError, match="must match the size"):
        dst.copy_(openreg.ones(3, device=src_dev))


@pytest.mark.parametrize("src_dev,dst_dev", [("cpu", D1), (D1, "cpu"), (D1, D1), cross_device(D0, D1)])
def test_copy_errors_match_the_cpu(src_dev, dst_dev):
    """The device kernel runs the CPU's argument checks: same error types and messages, nothing written."""
    cases = [(lambda d: openreg.zeros(3, device=d), lambda d: openreg.ones(2, device=d)),
             (lambda d: openreg.zeros(3, device=d), lambda d: openreg.ones(2, 3, device=d)),
             (lambda d: openreg.zeros(1, device=d).expand(3), lambda d: openreg.ones(3, device=d))]
    for make_dst, make_src in cases:
        with pytest.raises(RuntimeError) as cpu_err:
            make_dst("cpu").copy_(make_src("cpu"))
        dst = make_dst(dst_dev)
        with pytest.raises(RuntimeError) as dev_err:
            dst.copy_(make_src(src_dev))
        assert str(dev_err.value) == str(cpu_err.value)
        assert dst.cpu().tolist() == [0.0] * dst.numel()
    assert "more than one element of the written-to tensor" in str(dev_err.value)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        openreg.zeros(2, device=dst_dev).copy_(openreg.tensor([1 + 2j, 3j], device=src_dev))


@pytest.mark.parametrize("dev", ["cpu", D1])
def test_empty_destination_with_zero_strides_is_not_overlapping(dev):
    dst = openreg.empty_strided((0, 3), (0, 0), device=dev)
    assert dst.copy_(openreg.ones(0, 3)) is dst
    assert openreg.from_numpy(np.zeros((0, 3))).to(D1).shape == (0, 3)


def test_overlapping_copy_within_one_storage():
    t = openreg.tensor(np.arange(8.0), device=D0)
    dst = t.as_strided((6,), (1,), 2)
    src = t.as_strided((6,), (1,), 0)
    dst.copy_(src)
    assert t.cpu().tolist() == [0.0, 1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    u = openreg.tensor(np.arange(4.0), device=D0)
    _transposed(u.as_strided((2, 2), (2, 1))).copy_(u.as_strided((2, 2), (2, 1)))   # in-place transpose
    assert u.cpu().tolist() == [0.0, 2.0, 1.0, 3.0]


def test_non_blocking_from_pinned_memory_on_a_stream():
    a = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    host = openreg.tensor(a).pin_memory()
    assert host.is_pinned()
    s = pu.Stream(openreg.device(D1).index)
    with pu.stream(s):
        dev = openreg.empty(1000, device=D1)
        dev.copy_(host, non_blocking=True)
        back = openreg.empty(1000).pin_memory()
        back.copy_(dev, non_blocking=True)
    s.synchronize()
    np.testing.assert_array_equal(np.asarray(back), a)
    moved = host.to(D1, non_blocking=True)
    pu.synchronize(D1)
    np.testing.assert_array_equal(_np(moved), a.astype(np.float64))


def test_copy_to_nonexistent_device_raises():
    n = pu.device_count()
    with pytest.raises(RuntimeError, match=f"Invalid device index {n}"):
        openreg.ones(2).to(f"privateuseone:{n}")
    with pytest.raises(RuntimeError, match="Invalid device index"):
        openreg.ones(2, device=D0).to(f"privateuseone:{n}")


def test_empty_and_scalar_copies():
    e = openreg.empty(0, device=D0)
    assert e.cpu().tolist() == [] and e.to(D1).shape == (0,)
    z = openreg.tensor([4.5]).sum().to(D1)
    assert z.dim() == 0 and z.item() == 4.5
    assert z.to(D0).cpu().item() == 4.5


def test_storage_level_copies_and_resize():
    s = openreg.UntypedStorage(16, device=D1)
    assert s.device == openreg.device(D1) and s.nbytes() == 16
    t = openreg.tensor([1.0, 2.0, 3.0, 4.0], device=D1)
    st = t.untyped_storage()
    c = st.cpu()
    assert c.device.type == "cpu" and c.tolist() == st.tolist()
    clone = st.clone()
    assert clone.data_ptr() != st.data_ptr() and clone.tolist() == st.tolist()
    st.resize_(32)
    assert st.nbytes() == 32 and st.tolist()[:16] == c.tolist()


def test_device_dtype_conversion_runs_the_converting_kernel(monkeypatch):
    from openreg.backends.privateuseone import kernels

    if pu.driver() != "emulated":
        pytest.skip("the OPENREG_EMULATE_KERNELS switch is for the emulated driver")
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    counts = kernels.launcher().launch_counts
    a = (np.arange(24, dtype=np.float32).reshape(4, 6) - 11.5) * np.float32(1.3e3)   # some round in f16
    a[0, 0] = 7e4                                                                  # overflows to inf
    for src_dev, dst_dev in ((D0, D0), (D1, D0)):
        x = openreg.tensor(a, device=src_dev)
        cases = [(x, a, "contig"), (_transposed(x), a.T, "strided")]
        for src, ref, variant in cases:
            before = dict(counts)
            out = openreg.empty(*ref.shape, dtype=openreg.float16, device=dst_dev).copy_(src)
            launched = {k: v - before.get(k, 0) for k, v in counts.items() if v != before.get(k, 0)}
            converting = f"copy_{variant}_f16_from_f32" if src_dev == dst_dev else "copy_contig_f16_from_f32"
            assert launched == {converting: 1}, launched                 # no astype + f16->f16 copy
            with np.errstate(over="ignore"):
                expected = ref.astype(np.float16)
            np.testing.assert_array_equal(out.cpu().numpy(), expected)
