"""The device under the name ``cuda`` (rename / OPENREG_DEVICE_NAME) and ``openreg.cuda`` as a CPU-only build's."""
import os
import subprocess
import sys
import warnings

import pytest
from device_params import needs_device, needs_two_devices

import openreg
from openreg import _cuda_unavailable
from openreg.utils import backend_registration as br

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")


@pytest.fixture(autouse=True)
def _restore_name():
    br._reset_privateuse1_backend_for_tests()
    yield
    br._reset_privateuse1_backend_for_tests()
    _cuda_unavailable._seed_calls.clear()
    _cuda_unavailable._queued.clear()


def _run(code: str, **env) -> str:
    full_env = {**os.environ, **env}
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                         env=full_env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


# -- without the rename: a CPU-only PyTorch build's torch.cuda ----------------------------------------------
def test_cuda_module_without_rename_is_a_cpu_build():
    cuda = openreg.cuda
    assert cuda is _cuda_unavailable
    assert cuda.is_available() is False and cuda.device_count() == 0 and cuda.is_initialized() is False
    assert cuda.is_bf16_supported() is False
    assert cuda.manual_seed(1) is None and cuda.manual_seed_all(2) is None and cuda.seed() is None
    assert cuda.memory_allocated() == 0 and cuda.max_memory_allocated() == 0 and cuda.memory_reserved() == 0
    assert cuda.memory_stats() == {}
    assert cuda.empty_cache() is None
    assert cuda.get_rng_state_all() == [] and cuda.default_generators == ()
    for call in (cuda.current_device, cuda.synchronize, cuda.initial_seed, cuda.get_rng_state, cuda.mem_get_info,
                 cuda.current_stream, cuda.get_device_name, cuda.get_device_properties, cuda.init,
                 cuda.get_device_capability, lambda: cuda.set_device(0)):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled.*OPENREG_DEVICE_NAME=cuda"):
            call()
    with pytest.raises(RuntimeError, match="torch.cuda.Stream requires CUDA support"):
        cuda.Stream()
    with pytest.raises(RuntimeError, match="dummy base class Event"):
        cuda.Event()
    with cuda.device(None), cuda.stream(None):
        pass
    with pytest.raises(RuntimeError, match="compiled without CUDA support"), cuda.device(0):
        pass
    import openreg.cuda as imported
    assert imported is cuda


def test_cuda_tensors_without_rename_raise_as_cpu_build():
    d = openreg.device("cuda:7")            # a device object is fine, as on a CPU build
    assert (d.type, d.index) == ("cuda", 7)
    t = openreg.ones(2)
    assert t.is_cuda is False
    for call in (lambda: openreg.zeros(2, device="cuda"), t.cuda, lambda: t.to("cuda"),
                 lambda: openreg.empty(1, device=d), lambda: openreg.nn.Linear(2, 2).cuda()):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            call()
    assert t.tolist() == [1.0, 1.0]


@needs_torch
def test_cpu_build_matches_torch():
    for name in ("is_available", "device_count", "is_initialized", "is_bf16_supported", "memory_allocated",
                 "max_memory_allocated", "memory_reserved", "get_rng_state_all"):
        assert getattr(openreg.cuda, name)() == getattr(torch.cuda, name)(), name
    assert dict(openreg.cuda.memory_stats()) == dict(torch.cuda.memory_stats())
    for name in ("current_device", "synchronize", "initial_seed", "mem_get_info", "get_device_name", "init"):
        with pytest.raises(AssertionError) as ours:
            getattr(openreg.cuda, name)()
        with pytest.raises(AssertionError) as theirs:
            getattr(torch.cuda, name)()
        assert str(ours.value).startswith(str(theirs.value)), name
    with pytest.raises(AssertionError) as theirs:
        torch.zeros(1, device="cuda")
    with pytest.raises(AssertionError) as ours:
        openreg.zeros(1, device="cuda")
    assert str(ours.value).startswith(str(theirs.value))


@needs_device
def test_deferred_seeds_run_on_rename():
    openreg.cuda.manual_seed_all(11)
    openreg.cuda.manual_seed(7)            # the later call wins on the current device, as PyTorch's tracker
    openreg.utils.rename_privateuse1_backend("cuda")
    assert openreg.cuda.initial_seed() == 7


@needs_two_devices
def test_deferred_seed_all_reaches_the_other_devices():
    openreg.cuda.manual_seed_all(11)
    openreg.cuda.manual_seed(7)            # the current device only
    openreg.utils.rename_privateuse1_backend("cuda")
    assert openreg.cuda.default_generators[1].initial_seed() == 11


# -- after the rename ------------------------------------------------------------------------------------------
@needs_device
def test_rename_to_cuda_in_process():
    openreg.utils.rename_privateuse1_backend("cuda")
    assert openreg.cuda is openreg.privateuseone
    import openreg.cuda as imported
    assert imported is openreg.privateuseone
    assert openreg.cuda.is_available() and openreg.cuda.device_count() >= 1
    t = openreg.tensor([1.0, -2.0])
    c = t.cuda()
    assert c.is_cuda and not t.is_cuda and c.device == openreg.device("cuda:0")
    assert c.type() == "openreg.cuda.FloatTensor"
    assert c.abs().cpu().tolist() == [1.0, 2.0]
    assert openreg.zeros(2, device="cuda").device.type == "cuda"
    m = openreg.nn.Linear(2, 3).cuda()
    assert all(p.is_cuda for p in m.parameters())
    openreg.utils.generate_methods_for_privateuse1_backend()   # the cuda methods are built in: no clash
    assert openreg.accelerator.current_accelerator() == openreg.device("cuda")


@needs_two_devices
def test_cuda_module_functions_after_rename():
    openreg.utils.rename_privateuse1_backend("cuda")
    cuda = openreg.cuda
    t = openreg.ones(3).cuda(1)
    assert t.device == openreg.device("cuda", 1)
    with cuda.device(1):
        assert cuda.current_device() == 1
        assert openreg.empty(1, device="cuda").device.index == 1
    cuda.synchronize()
    cuda.manual_seed(5)
    assert cuda.initial_seed() == 5
    state = cuda.get_rng_state()
    a = openreg.rand(3, device="cuda")
    cuda.set_rng_state(state)
    assert openreg.rand(3, device="cuda").tolist() == a.tolist()
    cuda.reset_peak_memory_stats()
    assert cuda.max_memory_allocated() >= cuda.memory_allocated() > 0
    free, total = cuda.mem_get_info()
    assert 0 <= free <= total
    assert "allocated_bytes.all.current" in cuda.memory_stats()
    s = cuda.Stream()
    with cuda.stream(s):
        assert cuda.current_stream() == s
    e = cuda.Event()
    e.record()
    e.synchronize()
    props = cuda.get_device_properties(0)
    assert props.total_memory == total and props.multi_processor_count >= 1
    assert cuda.get_device_capability() == (props.major, props.minor)
    if cuda.driver() == "emulated":
        assert props.name == "openreg emulated device" == cuda.get_device_name()
        assert cuda.is_bf16_supported()
    assert cuda.is_initialized()
    cuda.init()
    cuda.empty_cache()


# -- bad input: PyTorch's error types, nothing changed -----------------------------------------------------
@needs_device
def test_cuda_index_beyond_device_count():
    openreg.utils.rename_privateuse1_backend("cuda")
    n = openreg.cuda.device_count()
    before = openreg.cuda.current_device()
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        openreg.zeros(1, device=f"cuda:{n + 5}")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        openreg.cuda.set_device(n + 5)
    with pytest.raises(AssertionError, match="Invalid device id"):
        openreg.cuda.get_device_properties(n + 5)
    assert openreg.cuda.current_device() == before


@needs_device
def test_rename_after_use_refused():
    openreg.empty(1, device="privateuseone")
    with pytest.raises(RuntimeError, match="already used"):
        openreg.utils.rename_privateuse1_backend("cuda")
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"
    assert openreg.cuda is _cuda_unavailable


@pytest.mark.parametrize("name", ["cpu", "meta"])
def test_rename_to_taken_name_refused(name):
    with pytest.raises(RuntimeError, match="in-tree device name"):
        openreg.utils.rename_privateuse1_backend(name)
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"


def test_rename_to_openreg_attribute_refused():
    with pytest.raises(RuntimeError, match="openreg.nn is already taken"):
        openreg.utils.rename_privateuse1_backend("nn")
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"
    assert isinstance(openreg.nn.Module, type)


# -- OPENREG_DEVICE_NAME, read once at import ----------------------------------------------------------------
def test_env_var_names_the_device_cuda():
    out = _run("import openreg as torch\n"
               "assert torch.cuda.is_available()\n"
               "x = torch.ones(2).cuda(); m = torch.nn.Linear(2, 2).cuda()\n"
               "print(x.device, x.is_cuda, m.weight.device, torch.accelerator.current_accelerator(), "
               "torch.device('cuda', 1))",
               OPENREG_DEVICE_NAME="cuda", OPENREG_DRIVER="emulated")
    assert out == "cuda:0 True cuda:0 cuda cuda:1"


def test_env_var_read_once():
    out = _run("import os, openreg as torch\n"
               "os.environ['OPENREG_DEVICE_NAME'] = 'privateuseone'\n"
               "print(torch.utils.get_privateuse1_backend_name())",
               OPENREG_DEVICE_NAME="cuda", OPENREG_DRIVER="emulated")
    assert out == "cuda"


def test_no_warnings_at_import():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _run("import openreg", OPENREG_DEVICE_NAME="cuda", OPENREG_DRIVER="emulated")
