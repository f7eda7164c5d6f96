"""The device module's torch.cuda extras: memory_summary/memory_snapshot, the deprecated memory aliases, the
memory/random/streams/nvtx/graphs submodules, the sync debug mode, get_arch_list, the refused CUDA graphs."""
import gc
import os
import subprocess
import sys
import warnings

import pytest
from device_params import needs_device

import openreg

pytestmark = needs_device


def _mod():
    return getattr(openreg, openreg.utils.get_privateuse1_backend_name())


def test_summary_and_snapshot_follow_the_allocator():
    mod = _mod()
    gc.collect()
    x = openreg.ones(3000, device=openreg.utils.get_privateuse1_backend_name())
    text = mod.memory_summary()
    assert "PyTorch CUDA memory summary, device ID 0" in text and "from large pool" in text
    assert "from large pool" not in mod.memory_summary(abbreviated=True)
    snap = mod.memory_snapshot()
    mine = [s for s in snap if s["address"] == x.untyped_storage().data_ptr()]
    assert len(mine) == 1 and mine[0]["blocks"][0]["state"] == "active_allocated"
    assert mine[0]["total_size"] == 12288 and mine[0]["allocated_size"] == 12288
    ptr = x.untyped_storage().data_ptr()
    del x
    gc.collect()
    mod.memory_allocated()       # the statistics read takes the released block
    states = [s["blocks"][0]["state"] for s in mod.memory_snapshot() if s["address"] == ptr]
    assert states == ["inactive"]
    mod.empty_cache()
    assert not [s for s in mod.memory_snapshot() if s["address"] == ptr]


def test_deprecated_aliases_warn_and_answer():
    mod = _mod()
    with pytest.warns(FutureWarning, match="renamed to .*memory_reserved"):
        assert mod.memory_cached() == mod.memory_reserved()
    with pytest.warns(FutureWarning, match="renamed to .*max_memory_reserved"):
        assert mod.max_memory_cached() == mod.max_memory_reserved()
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):
        mod.reset_max_memory_allocated()
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):
        mod.reset_max_memory_cached()
    assert mod.max_memory_allocated() == mod.memory_allocated()
    assert mod.get_per_process_memory_fraction() == 1.0
    mod.set_per_process_memory_fraction(0.5)
    try:
        assert mod.get_per_process_memory_fraction() == 0.5
    finally:
        mod.set_per_process_memory_fraction(1.0)
    mod.ipc_collect()
    assert mod.get_arch_list() == ["sm_80", "sm_90"]


def test_submodules():
    mod = _mod()
    assert mod.memory.memory_allocated is mod.memory_allocated and callable(mod.memory.memory_snapshot)
    assert mod.random.manual_seed is mod.manual_seed and mod.streams.Stream is mod.Stream
    with openreg.profiler.profile() as prof:
        assert mod.nvtx.range_push("outer") == 0
        mod.nvtx.mark("here")
        with mod.nvtx.range("inner {}", 1):
            openreg.ones(2, device=openreg.utils.get_privateuse1_backend_name()) * 2
        assert mod.nvtx.range_pop() == 0
        rid = mod.nvtx.range_start("async")
        mod.nvtx.range_end(rid)
    names = [e.name for e in prof.events()]
    assert {"outer", "here", "inner 1", "async"} <= set(names)
    assert mod.nvtx.range_pop() == -1


def test_sync_debug_mode():
    mod = _mod()
    x = openreg.ones(4, device=openreg.utils.get_privateuse1_backend_name())
    assert mod.get_sync_debug_mode() == 0
    mod.set_sync_debug_mode("error")
    try:
        for call in (lambda: x.sum().item(), lambda: x.cpu(), lambda: x.tolist()):
            with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
                call()
        y = x * 2        # no host synchronization
        mod.synchronize()
        mod.set_sync_debug_mode(1)
        with pytest.warns(UserWarning, match="synchronizing"):
            y.sum().item()
    finally:
        mod.set_sync_debug_mode("default")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.sum().item()
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        mod.set_sync_debug_mode("loud")


def test_cuda_graphs_refused():
    mod = _mod()
    for call in (mod.CUDAGraph, lambda: mod.graph(None), lambda: mod.make_graphed_callables(lambda x: x, ()),
                 mod.graph_pool_handle):
        with pytest.raises(NotImplementedError, match="CUDA graphs"):
            call()
    assert mod.is_current_stream_capturing() is False


def test_names_as_torch_cuda():
    torch = pytest.importorskip("torch")
    names = ["memory", "memory_summary", "memory_snapshot", "reset_max_memory_allocated", "reset_max_memory_cached",
             "max_memory_cached", "memory_cached", "ipc_collect", "get_arch_list", "get_per_process_memory_fraction",
             "set_sync_debug_mode", "get_sync_debug_mode", "random", "streams", "nvtx", "CUDAGraph", "graph",
             "make_graphed_callables", "graph_pool_handle", "is_current_stream_capturing"]
    for name in names:
        assert hasattr(torch.cuda, name) and hasattr(_mod(), name), name
    for name in ["range_push", "range_pop", "range", "mark", "range_start", "range_end"]:
        assert hasattr(torch.cuda.nvtx, name) and hasattr(_mod().nvtx, name)


def test_import_as_cuda_submodules():
    code = ("import openreg, openreg.cuda.nvtx, openreg.cuda.memory\n"
            "from openreg.cuda import nvtx, random, streams\n"
            "print(openreg.cuda.nvtx.range_push('a'), openreg.cuda.memory.memory_allocated())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         env={**os.environ, "OPENREG_DEVICE_NAME": "cuda"}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "0"]
