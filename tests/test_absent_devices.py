"""openreg.xpu, openreg.mps and openreg.mtia: the device modules of a PyTorch build without those devices."""
import warnings

import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")

# (module, call, args): what a program calls; PyTorch's CPU build answers or raises
CALLS = [
    ("xpu", "is_available", ()), ("xpu", "device_count", ()), ("xpu", "is_initialized", ()),
    ("xpu", "current_device", ()), ("xpu", "synchronize", ()), ("xpu", "set_device", (0,)),
    ("xpu", "manual_seed", (1,)), ("xpu", "manual_seed_all", (1,)), ("xpu", "seed", ()), ("xpu", "seed_all", ()),
    ("xpu", "initial_seed", ()), ("xpu", "get_rng_state", ()), ("xpu", "get_rng_state_all", ()),
    ("xpu", "empty_cache", ()), ("xpu", "memory_allocated", ()), ("xpu", "max_memory_allocated", ()),
    ("xpu", "memory_reserved", ()), ("xpu", "max_memory_reserved", ()), ("xpu", "memory_stats", ()),
    ("xpu", "get_device_name", ()), ("xpu", "get_device_properties", ()), ("xpu", "get_device_capability", ()),
    ("xpu", "is_bf16_supported", ()), ("xpu", "init", ()), ("xpu", "mem_get_info", ()),
    ("xpu", "current_stream", ()), ("xpu", "get_arch_list", ()), ("xpu", "set_per_process_memory_fraction", (0.5,)),
    ("xpu", "Stream", ()),
    ("mps", "is_available", ()), ("mps", "device_count", ()), ("mps", "synchronize", ()), ("mps", "manual_seed", (1,)),
    ("mps", "seed", ()), ("mps", "empty_cache", ()), ("mps", "current_allocated_memory", ()),
    ("mps", "driver_allocated_memory", ()), ("mps", "get_rng_state", ()), ("mps", "recommended_max_memory", ()),
    ("mps", "set_per_process_memory_fraction", (0.5,)),
    ("mtia", "is_available", ()), ("mtia", "device_count", ()), ("mtia", "is_initialized", ()),
    ("mtia", "current_device", ()), ("mtia", "synchronize", ()), ("mtia", "manual_seed", (1,)),
    ("mtia", "manual_seed_all", (1,)), ("mtia", "seed", ()), ("mtia", "seed_all", ()), ("mtia", "initial_seed", ()),
    ("mtia", "empty_cache", ()), ("mtia", "memory_allocated", ()), ("mtia", "max_memory_allocated", ()),
    ("mtia", "memory_stats", ()), ("mtia", "get_rng_state", ()), ("mtia", "init", ()), ("mtia", "set_device", (0,)),
    ("mtia", "reset_peak_memory_stats", ()), ("mtia", "get_device_capability", ()), ("mtia", "current_stream", ()),
]


def _outcome(lib, mod: str, name: str, args: tuple):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = getattr(getattr(lib, mod), name)(*args)
        except Exception as exc:  # noqa: BLE001
            return type(exc).__name__, str(exc).split(" (openreg")[0].split(". Ensure")[0]
    return "ok", result


@pytest.mark.parametrize(("mod", "name", "args"), CALLS, ids=[f"{m}.{n}" for m, n, _ in CALLS])
def test_absent_device_call(mod, name, args):
    kind, value = _outcome(openreg, mod, name, args)
    if name in ("is_available", "is_initialized", "is_bf16_supported"):
        assert (kind, value) == ("ok", False)
    elif name in ("device_count", "memory_allocated", "max_memory_allocated", "memory_reserved",
                  "max_memory_reserved"):
        assert (kind, value) == ("ok", 0)
    elif kind == "ok":
        assert value in (None, [], {}), (name, value)
    else:
        assert kind in ("AssertionError", "RuntimeError") and ("not compiled with" in value or "without" in value
                                                               or "dummy base class" in value)


@needs_torch
@pytest.mark.parametrize(("mod", "name", "args"), CALLS, ids=[f"{m}.{n}" for m, n, _ in CALLS])
def test_absent_device_call_matches_torch(mod, name, args):
    ours, theirs = _outcome(openreg, mod, name, args), _outcome(torch, mod, name, args)
    if mod == "xpu" and name == "reset_peak_memory_stats":      # PyTorch fails with an internal AttributeError
        return
    if mod == "mtia" and name == "is_bf16_supported":
        return
    assert ours == theirs


def test_consistent_with_backends_and_accelerator():
    assert openreg.mps.is_available() is openreg.backends.mps.is_available() is False
    acc = openreg.accelerator.current_accelerator()
    assert acc.type not in ("xpu", "mps", "mtia")
    with pytest.raises(ValueError, match="must be an integer|invalid literal"):
        openreg.xpu.manual_seed("x")


def test_device_context_managers():
    with openreg.xpu.device(-1):
        pass
    with pytest.raises(AssertionError, match="Torch not compiled with XPU enabled"), openreg.xpu.device(0):
        pass
    with pytest.raises(RuntimeError, match="without MTIA backend"), openreg.mtia.device(0):
        pass
    with pytest.raises(RuntimeError, match="acquireEvent"):
        openreg.mps.Event()
    with openreg.xpu.device_of(openreg.ones(1)):     # a CPU tensor selects no XPU device
        pass
