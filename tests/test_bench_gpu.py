"""benchmarks/bench_gpu.py (run by ci/gpu-check on a GPU): its table arithmetic, the no-GPU exit, and the
whole measuring path end to end on test_cuda_driver's fake CuPy with the raw kernels run by the host
launcher (a C++ compiler is needed, as for test_kernels.py)."""
from __future__ import annotations

import gc
import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import openreg

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_gpu.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module           # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def test_table_reports_ratios_rates_and_bounds(bench):
    rows = [bench.Row("abs contiguous f32", "GB/s", 8 * 2**26, openreg_ms=0.25, cupy_ms=0.2, path="abs_contig_f32"),
            bench.Row("mm_plus_mm 4096", "TFLOP/s", 2.0 * 4096**2 * 8192, openreg_ms=10.0, cupy_ms=4.0,
                      path="cublas_gemm"),
            bench.Row("broken", "GB/s", 1e6, note="FAILED: RuntimeError: boom")]
    text = bench.format_table(rows, "header line")
    lines = text.splitlines()
    assert lines[0] == "header line" and lines[1].startswith("case ") and set(lines[2]) <= {"-", "+"}
    abs_row = [c.strip() for c in lines[3].split("|")]
    # 536.9 MB in 0.25 ms = 2147 GB/s, 64.1% of 3350 GB/s; CuPy 2684 GB/s; ratio 1.25
    assert abs_row == ["abs contiguous f32", "0.250", "0.200", "1.25x", "2147 GB/s", "2684 GB/s", "HBM 3350 GB/s",
                       "64.1%", "abs_contig_f32"]
    mm_row = [c.strip() for c in lines[4].split("|")]
    assert mm_row[3:8] == ["2.50x", "27.49 TFLOP/s", "68.72 TFLOP/s", "FP32 67.00 TFLOP/s", "41.0%"]
    broken = [c.strip() for c in lines[5].split("|")]
    assert broken[1:4] == ["-", "-", "-"] and broken[-1] == "[FAILED: RuntimeError: boom]"
    columns = [i for i, ch in enumerate(lines[1]) if ch == "|"]   # every line has its bars where the header has
    assert [i for i, ch in enumerate(lines[2]) if ch == "+"] == columns
    assert all([i for i, ch in enumerate(line) if ch == "|"][:8] == columns for line in lines[3:])


def test_without_the_cuda_driver_it_says_so_and_exits_0(bench, capsys, monkeypatch):
    from openreg.backends.privateuseone import driver_select

    if openreg.privateuseone.driver() != "emulated":
        pytest.skip("no-GPU behaviour")
    assert bench.main([]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "needs the cuda driver" in out[0] and "'emulated' driver" in out[0]

    def broken():
        raise RuntimeError("The 'cuda' PrivateUse1 driver could not be initialised: no CUDA device")
    monkeypatch.setattr(driver_select, "get_driver", broken)
    assert bench.main(["--small"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "could not start" in out[0] and "no CUDA device" in out[0]


def test_end_to_end_on_fake_cupy_with_host_kernels(bench, capsys, monkeypatch):
    test_cuda_driver = pytest.importorskip("test_cuda_driver")
    from openreg.backends.privateuseone import kernels
    from openreg.backends.privateuseone.cuda_driver import CudaDriver
    from openreg.backends.privateuseone.driver_select import use_driver
    from openreg.backends.privateuseone.launchers import HostLauncher

    try:
        launcher_cls = _fake_gpu_launcher(HostLauncher)
        launcher = launcher_cls()
        launcher.module("abs.cu")
    except RuntimeError as exc:  # no C++ compiler
        pytest.skip(str(exc))
    cp = test_cuda_driver.make_fake_cupy(count=1, memory=256 << 20)
    gemm_betas = []

    def gemm(transa, transb, a, b, out=None, alpha=1.0, beta=0.0):
        gemm_betas.append(beta)
        a, b, host_out = a.get(), b.get(), out._a     # the double's "device memory" is host memory
        host_out[...] = alpha * (a @ b) + (beta * host_out if beta else 0)

    cp.cublas = types.SimpleNamespace(gemm=gemm)
    cp.cuda.runtime.getDeviceProperties = lambda i: {"name": b"Fake H100"}
    monkeypatch.setitem(sys.modules, "cupy", cp)
    test_cuda_driver._current[0] = 0
    monkeypatch.setattr(kernels, "launcher", lambda: launcher)
    sizes = bench.Sizes(elements=1000, strided_rows=6, strided_cols=10, transpose=12, mm_float32=(8, 40),
                        mm_float16=(24,), min_time_ms=0.2, repeats=1)
    with use_driver(CudaDriver()):
        assert bench.main([], sizes=sizes) == 0
        gc.collect()
    out = capsys.readouterr().out
    assert "on Fake H100 (device 0)" in out
    rows = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")] for line in out.splitlines()[3:]}
    paths = {name: cells[-1] for name, cells in rows.items()}
    assert paths["abs contiguous f32"] == "abs_contig_f32"
    assert paths["abs strided f32 [:, ::2] -> [:, ::3]"] == "abs_strided_f32"
    assert paths["copy_ transposing f32 (n x n).t()"] == "copy_strided_f32_from_f32"
    # (today copies.py converts with the array module first, then runs the f16 -> f16 kernel)
    assert paths["copy_ f32 -> f16"] in ("copy_contig_f16_from_f32", "copy_contig_f16_from_f16")
    assert paths["mm_plus_mm 8^3 x2 float32"] == "mm_plus_mm_f32"
    assert paths["mm_plus_mm 40^3 x2 float32"] == "cublas_gemm"          # above this launcher's crossover
    assert paths["mm_plus_mm 40^3 x2 float32 fused (forced)"] == "mm_plus_mm_f32"
    assert paths["mm_plus_mm 24^3 x2 float16"] == "mm_plus_mm_f16"
    assert len(rows) == 9 and not any("MISMATCH" in p or "FAILED" in p for p in paths.values())
    for cells in rows.values():                  # every row has both times, a ratio and a bound
        assert float(cells[1]) > 0 and float(cells[2]) > 0 and cells[3].endswith("x") and cells[6]
    assert gemm_betas[:2] == [0.0, 1.0]          # the CuPy baseline is two GEMMs, the second with beta=1
    assert not hasattr(launcher, "prefers_blas") or "prefers_blas" not in vars(launcher)  # restored


def _fake_gpu_launcher(host_launcher):
    class FakeGpuLauncher(host_launcher):
        """The host launcher with a cuBLAS stand-in, so the benchmark sees both mm_plus_mm paths."""

        name = "cuda"

        def prefers_blas(self, dtype, m, n, k1, k2):
            return np.dtype(dtype) == np.float32 and 2.0 * m * n * (k1 + k2) >= 2e5

        def operand(self, array, **kwargs):
            """The strict CuPy double's device arrays live in host memory: hand the host kernels that."""
            return super().operand(getattr(array, "_a", array), **kwargs)

        def gemm_plus_gemm(self, a, b, c, d, out):
            np.matmul(a._a, b._a, out=out._a)
            out._a[...] += c._a @ d._a
            self.launch_counts["cublas_gemm"] += 2

    return FakeGpuLauncher
