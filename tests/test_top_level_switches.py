"""Top-level switches (inter-op threads, flush-denormal, warn-always, the deprecated autocast setters), the
``openreg.cpu`` device module and ``backends.mkl/mkldnn/openmp``, checked against PyTorch's behaviour."""
import warnings

import pytest

import openreg


def test_deprecated_autocast_setters_act_on_autocast_state():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert openreg.get_autocast_cpu_dtype() is openreg.get_autocast_dtype("cpu")
        assert openreg.get_autocast_gpu_dtype() is openreg.get_autocast_dtype("cuda")
        openreg.set_autocast_cpu_enabled(True)
        try:
            assert openreg.is_autocast_enabled("cpu") and openreg.is_autocast_cpu_enabled()
        finally:
            openreg.set_autocast_cpu_enabled(False)
        assert not openreg.is_autocast_enabled("cpu")
        openreg.set_autocast_cpu_dtype(openreg.float16)
        try:
            assert openreg.get_autocast_dtype("cpu") is openreg.float16
        finally:
            openreg.set_autocast_cpu_dtype(openreg.bfloat16)
        openreg.set_autocast_gpu_dtype(openreg.bfloat16)
        try:
            assert openreg.get_autocast_dtype("cuda") is openreg.bfloat16
        finally:
            openreg.set_autocast_gpu_dtype(openreg.float16)
    assert w and all(x.category is DeprecationWarning for x in w)
    assert "set_autocast_dtype('cuda', dtype)" in str(w[-1].message)


def test_flush_denormal_and_warn_always():
    assert openreg.set_flush_denormal(True) is False    # openreg cannot set the FPU mode
    assert openreg.set_flush_denormal(False) is True
    openreg.set_warn_always(True)
    try:
        assert openreg.is_warn_always_enabled()
    finally:
        openreg.set_warn_always(False)
    assert not openreg.is_warn_always_enabled()


def test_interop_threads():
    assert openreg.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError, match="positive"):
        openreg.set_num_interop_threads(0)


def test_cpu_device_module():
    assert openreg.cpu.is_available() and openreg.cpu.device_count() == 1
    assert openreg.cpu.current_device() == "cpu"
    openreg.cpu.set_device(0)
    openreg.cpu.synchronize()
    default = openreg.cpu.current_stream()
    s = openreg.cpu.Stream()
    with openreg.cpu.stream(s):
        assert openreg.cpu.current_stream() is s
    assert openreg.cpu.current_stream() is default
    with pytest.warns(FutureWarning, match="openreg.amp.autocast\\('cpu'"):
        ctx = openreg.cpu.amp.autocast(dtype=openreg.bfloat16)
    with ctx:
        assert openreg.is_autocast_enabled("cpu")
        y = openreg.mm(openreg.ones(2, 2), openreg.ones(2, 2))
    assert y.dtype is openreg.bfloat16 and not openreg.is_autocast_enabled("cpu")


def test_backend_flags():
    assert not openreg.backends.mkl.is_available()
    assert not openreg.backends.mkldnn.is_available()
    assert not openreg.backends.openmp.is_available()
    openreg.backends.mkldnn.enabled = False
    openreg.backends.mkldnn.enabled = True
    with openreg.backends.mkldnn.flags(enabled=False, deterministic=True):
        assert openreg.backends.mkldnn.enabled is False and openreg.backends.mkldnn.deterministic is True
    assert openreg.backends.mkldnn.enabled is True and openreg.backends.mkldnn.deterministic is False


def test_names_match_torch():
    torch = pytest.importorskip("torch")
    names = ["get_num_interop_threads", "set_num_interop_threads", "set_flush_denormal", "set_warn_always",
             "is_warn_always_enabled", "get_autocast_gpu_dtype", "get_autocast_cpu_dtype",
             "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "set_autocast_cpu_dtype",
             "set_autocast_gpu_dtype", "is_autocast_ipu_enabled", "get_autocast_xla_dtype"]
    for name in names:
        assert hasattr(torch, name) and hasattr(openreg, name), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert str(openreg.get_autocast_cpu_dtype()).split(".")[1] == str(torch.get_autocast_cpu_dtype()).split(".")[1]
        assert str(openreg.get_autocast_gpu_dtype()).split(".")[1] == str(torch.get_autocast_gpu_dtype()).split(".")[1]
        assert str(openreg.get_autocast_ipu_dtype()).split(".")[1] == str(torch.get_autocast_ipu_dtype()).split(".")[1]
    for name in ["is_available", "device_count", "current_device", "synchronize", "Stream", "Event", "stream",
                 "current_stream", "set_device", "StreamContext"]:
        assert hasattr(torch.cpu, name) and hasattr(openreg.cpu, name), name
    assert openreg.cpu.current_device() == torch.cpu.current_device()
    assert openreg.backends.mkldnn.VERBOSE_ON_CREATION == torch.backends.mkldnn.VERBOSE_ON_CREATION
