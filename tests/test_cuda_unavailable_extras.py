"""openreg.cuda before the device is named cuda (a CPU-only PyTorch build's torch.cuda): the memory reports, sync
debug mode and CUDA graph names exist and refuse as torch's do; get_arch_list is empty; nvtx raises torch's
"not installed" error."""
import pytest

from openreg import _cuda_unavailable as cuda


def test_cpu_build_extras():
    assert cuda.get_arch_list() == [] and cuda.is_current_stream_capturing() is False
    for name in ("memory_summary", "memory_snapshot", "memory_cached", "max_memory_cached",
                 "reset_max_memory_allocated", "get_per_process_memory_fraction", "set_sync_debug_mode",
                 "get_sync_debug_mode", "make_graphed_callables", "graph_pool_handle"):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            getattr(cuda, name)()
    assert cuda.memory.memory_allocated() == 0 and cuda.random is cuda and cuda.streams is cuda
    with pytest.raises(RuntimeError, match="NVTX functions not installed"):
        cuda.nvtx.range_push("a")
    with pytest.raises(RuntimeError, match="dummy base class CUDAGraph"):
        cuda.CUDAGraph()
