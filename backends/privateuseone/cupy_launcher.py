"""Launch the raw CUDA kernels on a GPU through CuPy (used by the ``cuda`` driver only).

Each kernel source is compiled by NVRTC into one ``cupy.RawModule`` per (source, device), cached for the
process (CuPy also caches the binary on disk); the launch configuration and argument packing come from
:mod:`kernel_launch`, exactly as for the host launcher.  CuPy is imported inside the functions, so importing
this module never needs CuPy or a GPU.

For ``mm_plus_mm`` in float32/float64, shapes large enough for cuBLAS to win (see
:data:`CUBLAS_CROSSOVER_FLOPS`) run as two GEMMs instead, the second accumulating into ``out`` with beta=1.

>>> launcher = CupyLauncher()   # no CuPy needed until the first launch
>>> launcher.name, launcher.prefers_blas("float16", 8192, 8192, 8192, 8192)
('cuda', False)
"""
from __future__ import annotations

import collections
import threading
from typing import Any

import numpy as np

from . import kernel_launch
from .kernel_launch import KernelLaunch, Operand

# Work (2*M*N*(K1+K2) FLOPs) above which two cuBLAS GEMMs beat the fused kernel, float32/float64 only.
# Reasoning for an H100 SXM (67 TFLOP/s FP32), to be replaced by a measurement from ci/gpu-check:
#   * the fused kernel (64x64x16 SIMT tiles, 4x4 register blocking, no cp.async, no tensor cores) should
#     reach ~45% of FP32 peak once it has >= 132 tiles; cuBLAS ~88% on large shapes (more with TF32);
#   * fusing saves one launch (~3 us each, ~6 us for the pair including the gap) and a read-modify-write of
#     out (2*M*N*itemsize bytes at 3.35 TB/s -- small next to the launches for these shapes).
#   Break-even: F/(0.45 P) = F/(0.88 P) + 6 us  =>  F = 6e-6 * 67e12 / (1/0.45 - 1/0.88) ~= 3.7e8 FLOPs.
# A FLOP bound (not a size bound) also sends skinny outputs with long K (few tiles: the fused kernel would
# leave most SMs idle, cuBLAS splits K) to cuBLAS.  float16 always stays fused: cupy.cublas.gemm has no
# half path, and the fused kernel accumulates in float32 and rounds once.
CUBLAS_CROSSOVER_FLOPS = 4e8
CUBLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _cupy() -> Any:
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise RuntimeError("the CUDA kernel launcher needs CuPy (pip install 'openreg[cuda12]')") from exc
    return cupy


class CupyLauncher:
    """Kernel launcher for the ``cuda`` driver; counts launches per kernel name (``launch_counts``)."""

    name = "cuda"

    def __init__(self) -> None:
        self.launch_counts: collections.Counter[str] = collections.Counter()
        self._modules: dict[tuple[str, int], Any] = {}
        self._functions: dict[tuple[str, int, str], Any] = {}
        self._lock = threading.Lock()

    # -- arrays ---------------------------------------------------------------------------------------------
    def operand(self, array: Any, *, what: str = "array", writable: bool = False) -> Operand:
        """Describe a CuPy array (or anything with ``__cuda_array_interface__``) for a launch."""
        iface = getattr(array, "__cuda_array_interface__", None)
        if iface is None:
            where = "host memory (NumPy)" if hasattr(array, "__array_interface__") else type(array).__name__
            raise RuntimeError(f"{what}: the CUDA launcher needs a device array (CuPy), got {where}")
        ptr, dtype, shape, strides = kernel_launch.read_array_interface(iface, what=what, writable=writable)
        device = getattr(getattr(array, "device", None), "id", None)
        if device is None:
            device = _cupy().cuda.runtime.pointerGetAttributes(ptr).device if ptr else 0
        return kernel_launch.make_operand(ptr, dtype, shape, strides, device=int(device), what=what)

    # -- modules --------------------------------------------------------------------------------------------
    def _module(self, source: str, device: int) -> Any:
        key = (source, device)
        module = self._modules.get(key)
        if module is None:
            cupy = _cupy()
            with self._lock, cupy.cuda.Device(device):
                module = self._modules.get(key)
                if module is None:
                    text = kernel_launch.load_source(source)
                    module = cupy.RawModule(code=text, options=kernel_launch.nvrtc_options())
                    self._modules[key] = module
        return module

    def function(self, source: str, kernel: str, device: int) -> Any:
        """The compiled ``cupy.RawKernel`` (compiles the module on first use; NVRTC's log on failure)."""
        key = (source, device, kernel)
        fn = self._functions.get(key)
        if fn is None:
            cupy = _cupy()
            try:
                with cupy.cuda.Device(device):
                    fn = self._module(source, device).get_function(kernel)
            except cupy.cuda.compiler.CompileException as exc:
                raise RuntimeError(f"NVRTC failed to compile {source} for device {device}:\n{exc}") from exc
            self._functions[key] = fn
        return fn

    # -- launches -------------------------------------------------------------------------------------------
    def launch(self, launch: KernelLaunch, device: int | None = None) -> None:
        """Run one launch on ``device`` (default: the current CuPy device) on its current stream."""
        cupy = _cupy()
        dev = cupy.cuda.Device(device) if device is not None else cupy.cuda.Device()
        with dev:
            fn = self.function(launch.source, launch.kernel, dev.id)
            fn(launch.grid, launch.block, launch.args, shared_mem=launch.shared_mem)
        self.launch_counts[launch.kernel] += 1

    def prefers_blas(self, dtype: Any, m: int, n: int, k1: int, k2: int) -> bool:
        """Whether ``mm_plus_mm`` of this size should run as two cuBLAS GEMMs (see the constant above)."""
        if np.dtype(dtype) not in CUBLAS_DTYPES or min(m, n, k1, k2) < 1:
            return False
        return 2.0 * m * n * (k1 + k2) >= CUBLAS_CROSSOVER_FLOPS

    def gemm_plus_gemm(self, a: Any, b: Any, c: Any, d: Any, out: Any) -> None:
        """``out = a @ b`` (beta=0) then ``out += c @ d`` (beta=1), both by cuBLAS through CuPy."""
        cupy = _cupy()
        from cupy import cublas

        with cupy.cuda.Device(out.device.id):
            cublas.gemm("N", "N", a, b, out=out, alpha=1.0, beta=0.0)
            cublas.gemm("N", "N", c, d, out=out, alpha=1.0, beta=1.0)
        self.launch_counts["cublas_gemm"] += 2
