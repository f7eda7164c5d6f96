"""The DLPack 1.x protocol details and the array protocols: versioned vs legacy capsules, copy flags, bfloat16
and float8 in both directions, PyTorch/JAX as producers and consumers, bad capsules (consumed twice, unknown
dtype codes) leaving nothing behind, ``__array__``'s NumPy 2 ``copy=`` and ``__cuda_array_interface__``."""
from __future__ import annotations

import gc

import ml_dtypes
import numpy as np
import pytest
from device_params import LAST_DEVICE, needs_device
from test_dlpack import cuda_driver  # noqa: F401 - the fixture

import openreg
from openreg import _dlpack_capsule as capsules
from openreg.dlpack import DLDeviceType

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]


def _sample(name: str, shape=(2, 3)) -> openreg.Tensor:
    values = openreg.arange(6.0).reshape(shape) - 2.0
    if name == "bool":
        return values > 0
    if name.startswith("complex"):
        return values.to(getattr(openreg, name)) * (1 + 1j)
    return values.to(getattr(openreg, name))


def _live() -> int:
    gc.collect()
    return len(capsules._live)


# -- producing ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("max_version", "name"), [(None, "dltensor"), ((0, 8), "dltensor"),
                                                    ((1, 0), "dltensor_versioned"), ((1, 3), "dltensor_versioned"),
                                                    ((2, 0), "dltensor_versioned")])
def test_capsule_kind_follows_the_consumers_max_version(max_version, name):
    cap = openreg.arange(3.0).__dlpack__(max_version=max_version)
    assert capsules.capsule_name(cap) == name
    view = capsules.read_capsule(cap)
    assert view.version == ((1, 1) if name == "dltensor_versioned" else (0, 0))


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_every_dtype_exports_its_dlpack_type_and_round_trips(name):
    t = _sample(name)[:, 1:]                              # a strided view
    cap = t.__dlpack__(max_version=(1, 0))
    view = capsules.read_capsule(cap)
    assert (view.code, view.bits, view.lanes) == (*capsules.DTYPE_CODES[name], 1)
    assert view.shape == (2, 2) and view.strides == (3, 1) and view.data == t.data_ptr()
    assert view.flags == 0                                # neither read-only nor a copy
    back = openreg.from_dlpack(cap)
    assert back.dtype is t.dtype and back.data_ptr() == t.data_ptr() and back.stride() == (3, 1)
    assert back.tolist() == t.tolist() if not name.startswith("float8") else \
        np.array_equal(back.float().numpy(), t.float().numpy(), equal_nan=True)


def test_copies_carry_the_is_copied_flag():
    t = openreg.arange(4.0)
    copied = capsules.read_capsule(t.__dlpack__(max_version=(1, 0), copy=True))
    assert copied.flags & capsules.FLAG_IS_COPIED and copied.data != t.data_ptr()
    shared = capsules.read_capsule(t.__dlpack__(max_version=(1, 0), copy=False))
    assert shared.flags == 0 and shared.data == t.data_ptr()


@needs_device
def test_device_export_to_the_cpu_is_a_flagged_copy():
    if openreg.privateuseone.driver() != "emulated":
        pytest.skip("emulated-driver behaviour")
    t = openreg.tensor([1.0, 2.0], dtype=openreg.bfloat16, device=LAST_DEVICE)
    cap = t.__dlpack__(dl_device=(DLDeviceType.kDLCPU, 0), max_version=(1, 0))
    view = capsules.read_capsule(cap)
    assert view.device == (DLDeviceType.kDLCPU, 0) and view.flags & capsules.FLAG_IS_COPIED
    assert openreg.from_dlpack(cap).tolist() == [1.0, 2.0]


def test_exported_memory_lives_until_the_consumer_deletes_it():
    before = _live()
    cap = (openreg.arange(1000.0) * 2).__dlpack__(max_version=(1, 0))
    assert _live() == before + 1
    t = openreg.from_dlpack(cap)                         # the tensor is gone; the capsule holds its memory
    del cap
    assert _live() == before + 1 and t[999].item() == 1998.0
    del t                                                # the consumer's deleter hands it back
    assert _live() == before
    openreg.arange(3.0).__dlpack__()                     # an unconsumed capsule deletes on collection
    assert _live() == before


# -- consuming: bad input -----------------------------------------------------------------------------------------
def test_a_capsule_consumed_twice_raises_pytorchs_error():
    cap = openreg.arange(3.0).__dlpack__(max_version=(1, 0))
    openreg.from_dlpack(cap)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule. Note that DLTensor "
                                               "capsules can be consumed only once") as info:
            openreg.from_dlpack(cap)
        assert isinstance(info.value, BufferError)       # what the DLPack protocol raises, too
    narrow = openreg.ones(2, dtype=openreg.float8_e5m2).__dlpack__()
    openreg.from_dlpack(narrow)
    with pytest.raises(RuntimeError, match="consumed only once"):
        openreg.from_dlpack(narrow)


@pytest.mark.parametrize(("code", "words"), [((7, 8), "Unsupported code 7"), ((3, 64), "Unsupported code 3"),
                                             ((2, 8), "Unsupported kDLFloat bits 8"),
                                             ((4, 32), "Unsupported kDLBfloat bits 32")])
def test_unknown_dtype_codes_are_refused_and_leave_nothing_behind(code, words):
    a = np.arange(8, dtype=np.uint8)
    before = _live()
    for versioned in (True, False):
        cap = capsules.make_capsule(a.ctypes.data, (1, 0), (2,), (1,), code, owner=a, versioned=versioned)
        with pytest.raises(BufferError, match=words):
            openreg.from_dlpack(cap)
        assert capsules.capsule_name(cap).startswith("dltensor")     # not consumed: still the producer's
        del cap
    assert _live() == before


def test_lanes_and_foreign_versions_are_refused():
    a = np.arange(8, dtype=np.float32)
    cap = capsules.make_capsule(a.ctypes.data, (1, 0), (2,), (1,), (2, 32), owner=a, versioned=True)
    capsules.DLDataType.from_address(capsules.read_capsule(cap).managed + capsules.DLManagedTensorVersioned.dl_tensor.offset
                                      + capsules.DLTensor.dtype.offset).lanes = 4
    with pytest.raises(BufferError, match="lanes 4"):
        openreg.from_dlpack(cap)
    capsules.DLPackVersion.from_address(capsules.read_capsule(cap).managed).major = 2
    with pytest.raises(BufferError, match="DLPack version 2.1"):
        openreg.from_dlpack(cap)


def test_read_only_memory_imports_read_only():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    t = openreg.from_dlpack(a)
    assert not t.numpy().flags.writeable and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    b = openreg.ones(2, dtype=openreg.bfloat16).__dlpack__()        # legacy: cannot say, so read-only
    assert not openreg.from_dlpack(b).numpy().flags.writeable
    assert capsules.read_capsule(t.__dlpack__(max_version=(1, 0))).flags == capsules.FLAG_READ_ONLY
    assert not np.from_dlpack(t).flags.writeable                      # NumPy sees the flag
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()                                                # a legacy capsule cannot say so


# -- PyTorch and JAX ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL_DTYPES)
def test_pytorch_reads_and_writes_openreg_memory(name):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    t = _sample(name)[:, ::2]
    theirs = torch.from_dlpack(t)
    assert str(theirs.dtype) == f"torch.{name}" and theirs.data_ptr() == t.data_ptr()
    assert theirs.stride() == t.stride()
    ours = openreg.from_dlpack(theirs)
    assert ours.dtype is t.dtype and ours.data_ptr() == theirs.data_ptr()
    np.testing.assert_array_equal(ours.contiguous().numpy().view(np.uint8), t.contiguous().numpy().view(np.uint8))
    if name in ("bfloat16", "float32"):
        theirs.mul_(0)                                   # writes flow both ways: one memory
        assert t.float().abs().sum().item() == 0.0
    for max_version in (None, (1, 0)):                   # PyTorch's capsules of both kinds
        cap = theirs.__dlpack__(max_version=max_version)
        assert openreg.from_dlpack(cap).dtype is t.dtype


def test_pytorch_capsule_consumed_twice_and_pytorch_consuming_ours_twice():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    cap = torch.arange(3.0).__dlpack__(max_version=(1, 0))
    openreg.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        openreg.from_dlpack(cap)
    ours = openreg.arange(3.0).__dlpack__(max_version=(1, 0))
    torch.from_dlpack(ours)
    with pytest.raises(RuntimeError, match="consumed only once"):
        torch.from_dlpack(ours)


def test_jax_exchanges_bfloat16_and_float8():
    jnp = pytest.importorskip("jax.numpy", reason="needs jax")
    for name in ("float32", "bfloat16", "float8_e4m3fn", "float8_e5m2"):
        a = jnp.asarray(np.arange(4.0, dtype=np.float32).astype(getattr(ml_dtypes, name, np.float32)))
        t = openreg.from_dlpack(a)
        assert t.dtype is getattr(openreg, name) and t.float().tolist() == [0.0, 1.0, 2.0, 3.0]
        back = jnp.from_dlpack(openreg.arange(3.0).to(getattr(openreg, name)))
        assert str(back.dtype) == name and np.asarray(back.astype(jnp.float32)).tolist() == [0.0, 1.0, 2.0]


# -- __array__ ------------------------------------------------------------------------------------------------------
def test_array_protocol_follows_numpy2_copy_semantics():
    t = openreg.arange(4.0)
    assert np.shares_memory(np.asarray(t), t.numpy())                    # copy=None: shares
    assert np.shares_memory(np.asarray(t, copy=False), t.numpy())
    assert not np.shares_memory(np.array(t, copy=True), t.numpy())
    assert np.asarray(t, dtype=np.float64).dtype == np.float64           # a converting copy when allowed
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.asarray(t, dtype=np.float64, copy=False)
    b = openreg.tensor([1.5], dtype=openreg.bfloat16)
    assert np.asarray(b).dtype == np.dtype(ml_dtypes.bfloat16) and np.shares_memory(np.asarray(b), b.numpy())


@needs_device
def test_array_protocol_on_the_device():
    t = openreg.arange(3.0, device=LAST_DEVICE)
    with pytest.raises(ValueError, match=r"Unable to avoid copy.*\.cpu\(\)"):
        np.asarray(t, copy=False)
    with pytest.raises(TypeError, match="can't convert privateuseone device type tensor to numpy"):
        np.asarray(t)                                                     # as PyTorch: no implicit copy
    assert np.array(t, copy=True).tolist() == [0.0, 1.0, 2.0]             # an explicit copy is fine
    assert np.array(t, dtype=np.int64, copy=True).tolist() == [0, 1, 2]


# -- __cuda_array_interface__ ---------------------------------------------------------------------------------------
def test_cuda_array_interface_only_on_the_cuda_driver():
    assert not hasattr(openreg.ones(2), "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="Can't get __cuda_array_interface__ on non-CUDA tensor type"):
        _ = openreg.ones(2).__cuda_array_interface__
    if openreg.privateuseone.device_count():
        assert not hasattr(openreg.ones(2, device="privateuseone:0"), "__cuda_array_interface__")


def test_cuda_array_interface_on_the_cuda_driver(cuda_driver):  # noqa: F811 - the fixture
    t = openreg.arange(12.0, device="privateuseone:1").reshape(3, 4)
    iface = t.__cuda_array_interface__
    assert iface == {"typestr": "<f4", "shape": (3, 4), "strides": None, "data": (t.data_ptr(), False),
                     "version": 3, "stream": 1}
    col = t[:, 1]
    assert col.__cuda_array_interface__["strides"] == (16,) and col.__cuda_array_interface__["data"][0] == \
        t.data_ptr() + 4
    assert openreg.ones(2, dtype=openreg.bfloat16, device="privateuseone:0").__cuda_array_interface__[
        "typestr"] == "<V2"
    assert openreg.empty(0, device="privateuseone:0").__cuda_array_interface__["data"] == (0, False)
    with pytest.raises(RuntimeError, match="requires grad"):
        _ = openreg.arange(2.0, device="privateuseone:0").requires_grad_().__cuda_array_interface__
    with pytest.raises(TypeError, match="float8"):
        _ = openreg.ones(2).to(openreg.float8_e4m3fn).to("privateuseone:0").__cuda_array_interface__


def test_narrow_floats_travel_as_cuda_memory_on_the_cuda_driver(cuda_driver):  # noqa: F811 - the fixture
    before = _live()
    for name in ("bfloat16", "float8_e4m3fn"):
        t = openreg.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]).to(getattr(openreg, name)).to("privateuseone:1")
        cap = t[:, ::2].__dlpack__(max_version=(1, 0))
        back = openreg.from_dlpack(cap)                  # a kDLCUDA capsule: a device tensor on the same memory
        assert back.device == openreg.device("privateuseone:1") and back.dtype is t.dtype
        assert back.data_ptr() == t.data_ptr() and back.stride() == (3, 2)
        assert back.cpu().float().tolist() == [[1.5, 3.0], [0.5, -1.0]]
        del back, cap
    assert _live() == before                             # the consumer's deleter ran
