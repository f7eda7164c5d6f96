"""The CPU fallback: per-op and whole-backend, write-back of mutated and out= arguments, lists, factories,
blocklist, views, warnings, failures leaving inputs unchanged."""
import gc
import warnings

import numpy as np
import pytest
from device_params import LAST_DEVICE, needs_device, needs_two_devices
from openreg.backends.privateuseone import fallback as fb

import openreg
from openreg.library import Library

pytestmark = needs_device
D0, D1 = "privateuseone:0", LAST_DEVICE            # D1: device 1, or device 0 on a one-GPU machine
aten = openreg.ops.aten


@pytest.fixture
def per_op():
    """Route the given aten ops through the fallback (shadowing any native device kernel)."""
    libs = []

    def route(*names):
        lib = Library("aten", "IMPL")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # shadowing the native device kernel is the point here
            for n in names:
                lib.impl(n, fb.cpu_fallback_kernel, "PrivateUse1")
        libs.append(lib)
    yield route
    for lib in libs:
        lib._destroy()


@pytest.fixture
def custom_ns():
    """A namespace with CPU-only kernels, so the device can only run them through the fallback."""
    lib = Library("fbtest", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.define("add_one_(Tensor(a!) x) -> Tensor(a!)")
    lib.define("scale_then_fail_(Tensor(a!) x) -> Tensor(a!)")
    lib.define("alias(Tensor(a) x) -> Tensor(a)")
    lib.define("pair(Tensor x, Tensor y) -> (Tensor, Tensor)")

    def add_one_(x):
        x.add_(1)
        return x

    def scale_then_fail_(x):
        x.mul_(10)
        raise ValueError("kernel failed after writing")

    lib.impl("twice", lambda x: x * 2, "CPU")
    lib.impl("add_one_", add_one_, "CPU")
    lib.impl("scale_then_fail_", scale_then_fail_, "CPU")
    lib.impl("alias", lambda x: x.view(-1), "CPU")
    lib.impl("pair", lambda x, y: (x + y, x - y), "CPU")
    yield openreg.ops.fbtest
    lib._destroy()


@pytest.fixture
def backend_fallback():
    lib = fb.register_backend_fallback()
    yield
    lib._destroy()


def test_sub_through_per_op_fallback(per_op, monkeypatch):
    per_op("sub.Tensor")
    monkeypatch.setenv("OPENREG_FALLBACK_WARN", "1")
    fb._warned.clear()
    a, b = np.arange(6.0).reshape(2, 3), np.full((2, 3), 0.5)
    with pytest.warns(UserWarning, match="aten::sub.Tensor' is not currently supported on the privateuseone"):
        r = openreg.tensor(a).to(D0) - openreg.tensor(b).to(D0)
    assert r.device == openreg.device(D0)
    np.testing.assert_array_equal(r.cpu().numpy(), a - b)


def test_warns_once_per_op(per_op, monkeypatch):
    per_op("sub.Tensor")
    monkeypatch.setenv("OPENREG_FALLBACK_WARN", "1")
    fb._warned.clear()
    x = openreg.ones(2).to(D0)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        x - x
        x - x
    assert len([w for w in rec if "fall back" in str(w.message)]) == 1


def test_no_warning_by_default(per_op, monkeypatch):
    per_op("sub.Tensor")
    monkeypatch.delenv("OPENREG_FALLBACK_WARN", raising=False)
    fb._warned.clear()
    x = openreg.ones(2).to(D0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x - x).cpu().tolist() == [0.0, 0.0]


def test_index_with_optional_tensor_list(per_op):
    per_op("index.Tensor")
    a = np.arange(12.0).reshape(3, 4)
    t = openreg.tensor(a).to(D1)
    idx = openreg.tensor([2, 0, 2]).to(D1)
    r = aten.index.Tensor(t, [None, idx])
    assert r.device == openreg.device(D1)
    np.testing.assert_array_equal(r.cpu().numpy(), a[:, [2, 0, 2]])
    np.testing.assert_array_equal(aten.index.Tensor(t, [idx]).cpu().numpy(), a[[2, 0, 2]])


def test_triu_indices_factory_takes_device_argument(per_op):
    per_op("triu_indices")
    r = aten.triu_indices.default(3, 4, 1, device=D1)
    assert r.device == openreg.device(D1) and r.dtype is openreg.int64
    np.testing.assert_array_equal(r.cpu().numpy(), np.stack(np.triu_indices(3, 1, 4)))


def test_foreach_add_list(per_op):
    per_op("_foreach_add.List")
    xs = [openreg.tensor([1.0, 2.0]).to(D0), openreg.tensor([[3.0]]).to(D0)]
    ys = [openreg.tensor([10.0, 20.0]).to(D0), openreg.tensor([[30.0]]).to(D0)]
    out = aten._foreach_add.List(xs, ys)
    assert isinstance(out, (list, tuple)) and [o.device for o in out] == [openreg.device(D0)] * 2
    assert out[0].cpu().tolist() == [11.0, 22.0] and out[1].cpu().tolist() == [[33.0]]


def test_out_argument_written_back_and_resized(per_op):
    per_op("sub.out")
    a = openreg.tensor([[5.0, 6.0], [7.0, 8.0]]).to(D0)
    out = openreg.empty(0).to(D0)
    r = aten.sub.out(a, openreg.ones(2, 2).to(D0), out=out)
    assert r is out and out.shape == (2, 2) and out.device == openreg.device(D0)
    assert out.cpu().tolist() == [[4.0, 5.0], [6.0, 7.0]]


def test_whole_backend_fallback(custom_ns, backend_fallback):
    x = openreg.tensor([1.0, -2.0]).to(D1)
    r = custom_ns.twice.default(x)
    assert r.device == openreg.device(D1) and r.cpu().tolist() == [2.0, -4.0]
    s, d = custom_ns.pair.default(x, x)
    assert s.device == d.device == openreg.device(D1) and s.cpu().tolist() == [2.0, -4.0]


def test_missing_kernel_without_fallback(custom_ns):
    with pytest.raises(NotImplementedError, match="Could not run 'fbtest::twice'"):
        custom_ns.twice.default(openreg.ones(1).to(D0))


def test_mutated_argument_written_back(custom_ns, backend_fallback):
    x = openreg.tensor([1.0, 2.0]).to(D0)
    ptr, version = x.data_ptr(), x._version
    r = custom_ns.add_one_.default(x)
    assert r is x and x.data_ptr() == ptr and x.cpu().tolist() == [2.0, 3.0]
    assert x._version > version


def test_mutated_strided_view_written_back(custom_ns, backend_fallback):
    base = openreg.zeros(3, 4).to(D0)
    col = base[:, 1]
    custom_ns.add_one_.default(col)
    expected = np.zeros((3, 4))
    expected[:, 1] = 1
    np.testing.assert_array_equal(base.cpu().numpy(), expected)


def test_failure_leaves_inputs_unchanged(custom_ns, backend_fallback):
    x = openreg.tensor([1.0, 2.0]).to(D0)
    with pytest.raises(ValueError, match="kernel failed after writing"):
        custom_ns.scale_then_fail_.default(x)
    assert x.cpu().tolist() == [1.0, 2.0]


def test_view_ops_refused(custom_ns, backend_fallback):
    with pytest.raises(NotImplementedError, match="appears to be a view operator"):
        custom_ns.alias.default(openreg.ones(2, 2).to(D0))


def test_blocklist(custom_ns, backend_fallback):
    fb.FALLBACK_BLOCKLIST.add("fbtest::twice")
    try:
        with pytest.raises(NotImplementedError, match=r"Operator 'fbtest::twice' is not implemented for device "
                                                      r"privateuseone\."):
            custom_ns.twice.default(openreg.ones(1).to(D0))
    finally:
        fb.FALLBACK_BLOCKLIST.discard("fbtest::twice")


@needs_two_devices
def test_mixed_devices_raise(custom_ns, backend_fallback):
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        custom_ns.pair.default(openreg.ones(1).to(D0), openreg.ones(1).to("privateuseone:1"))


def test_cpu_scalar_operand_kept_on_cpu(custom_ns, backend_fallback):
    s, _ = custom_ns.pair.default(openreg.tensor([1.0, 2.0]).to(D0), openreg.tensor(3.0))
    assert s.device == openreg.device(D0) and s.cpu().tolist() == [4.0, 5.0]


def test_no_device_memory_leaked(custom_ns, backend_fallback):
    mod = openreg.privateuseone
    x = openreg.ones(256).to(D0)
    gc.collect()
    before = mod.memory_allocated(0)
    for _ in range(3):
        r = custom_ns.twice.default(x)
        custom_ns.add_one_.default(x)
        with pytest.raises(ValueError):
            custom_ns.scale_then_fail_.default(x)
        del r
    gc.collect()
    assert mod.memory_allocated(0) == before
