"""GPU benchmark of the device's raw CUDA kernels against CuPy, run by ``ci/gpu-check`` on the cuda driver.

For each case it times openreg's device op and CuPy's own equivalent with CUDA events on the same stream
(median over repeats of the mean time per call), checks that both computed the same values, and prints one
table: times, the ratio openreg / CuPy (lower is better), and the achieved GB/s or TFLOP/s next to the H100 SXM
bound from ``cuda_kernels/README.md`` (3.35 TB/s HBM3; 67 TFLOP/s FP32, which also bounds float16 inputs with
float32 accumulation on the FMA pipe).

Cases: ``abs`` (contiguous; strided input and output), ``copy_`` (contiguous, transposing, float32->float16),
``inductor._mm_plus_mm`` (256, 1024, 4096 float32 and 4096 float16, K1 = K2 = N) against two GEMMs
(``cupy.cublas.gemm`` with beta=1 for float32, ``cupy.matmul`` + ``+=`` for float16, which cuBLAS has no
beta path for in CuPy). Where openreg sends a float32 shape to cuBLAS (``launchers.CUBLAS_CROSSOVER_FLOPS``)
the fused kernel is timed too ("fused (forced)"), so the crossover constant can be checked against a measurement.

Without the cuda driver (no GPU or no CuPy) it prints one line saying so and exits 0; ``ci/bench`` runs it too.
Exit status 1 if openreg and CuPy disagree or a case fails.

    python benchmarks/bench_gpu.py            # full sizes (an H100 has room for them)
    python benchmarks/bench_gpu.py --small    # 16x smaller element counts, mm up to 1024
"""
from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

import openreg

HBM_BYTES_PER_S = 3.35e12          # H100 SXM HBM3
FP32_FLOPS_PER_S = 67e12           # H100 SXM FP32 (non-tensor-core) peak
BOUND_LABEL = {"GB/s": ("HBM", HBM_BYTES_PER_S / 1e9), "TFLOP/s": ("FP32", FP32_FLOPS_PER_S / 1e12)}


@dataclass
class Sizes:
    """Problem sizes: elementwise element count, square matrix side for copies, GEMM sides."""

    elements: int = 1 << 26                  # 64 Mi elements: 512 MB of float32 traffic per abs
    strided_rows: int = 8192                 # abs strided: (rows, 2 * cols)[:, ::2]
    strided_cols: int = 8192
    transpose: int = 8192                    # copy_ of an (n, n).t()
    mm_float32: Sequence[int] = (256, 1024, 4096)
    mm_float16: Sequence[int] = (4096,)
    min_time_ms: float = 30.0                # per repeat
    repeats: int = 5

    @classmethod
    def small(cls) -> Sizes:
        return cls(elements=1 << 22, strided_rows=2048, strided_cols=2048, transpose=2048,
                   mm_float32=(256, 1024), mm_float16=(1024,), min_time_ms=10.0, repeats=3)


@dataclass
class Row:
    """One line of the table; ``work`` is bytes (unit "GB/s") or FLOPs (unit "TFLOP/s")."""

    case: str
    unit: str
    work: float
    openreg_ms: float | None = None
    cupy_ms: float | None = None
    path: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)

    def rate(self, ms: float | None) -> float | None:
        if ms is None or ms <= 0:
            return None
        scale = 1e9 if self.unit == "GB/s" else 1e12
        return self.work / (ms * 1e-3) / scale


# -- timing ------------------------------------------------------------------------------------------------
def time_ms(fn: Callable[[], object], *, min_time_ms: float, repeats: int, warmup: int = 2) -> float:
    """Median over ``repeats`` of the mean milliseconds per call, measured with CUDA events (openreg's
    device ``Event``s on the current stream, i.e. CuPy events on the stream both libraries launch on)."""
    pu = openreg.privateuseone
    for _ in range(warmup):
        fn()
    start, end = pu.Event(enable_timing=True), pu.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    once = max(start.elapsed_time(end), 1e-3)
    number = max(1, min(1000, math.ceil(min_time_ms / once)))
    times = []
    for _ in range(repeats):
        start.record()
        for _ in range(number):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / number)
    return statistics.median(times)


# -- the cases ---------------------------------------------------------------------------------------------
@dataclass
class Case:
    row: Row
    run_openreg: Callable[[], object]
    run_cupy: Callable[[], object]
    results: Callable[[], tuple[np.ndarray, np.ndarray]]   # (openreg's, CuPy's) on the host, after a run
    rtol: float = 0.0
    path: Callable[[], str] = lambda: "kernel"


def _launcher():
    from openreg.backends.privateuseone import kernels
    return kernels.launcher()


def _host(t: openreg.Tensor) -> np.ndarray:
    return np.asarray(t.cpu().numpy())


def _kernels_since(before: dict) -> str:
    counts = _launcher().launch_counts
    names = sorted(k for k in counts if counts[k] != before.get(k, 0))
    return ", ".join(names) if names else "no raw kernel (driver memcpy or CuPy)"


def _traced(fn: Callable[[], object]) -> Callable[[], str]:
    def path() -> str:
        before = dict(_launcher().launch_counts)
        fn()
        return _kernels_since(before)
    return path


def elementwise_cases(cp, sizes: Sizes, rng: np.random.Generator) -> Iterator[Case]:
    dev = "privateuseone"
    n = sizes.elements
    host = rng.standard_normal(n, dtype=np.float32)
    x, y = openreg.from_numpy(host).to(dev), openreg.empty(n, device=dev)
    cx, cy = cp.asarray(host), cp.empty(n, np.float32)
    yield Case(Row("abs contiguous f32", "GB/s", 8.0 * n), lambda: openreg.abs(x, out=y),
               lambda: cp.abs(cx, out=cy), lambda: (_host(y), cp.asnumpy(cy)),
               path=_traced(lambda: openreg.abs(x, out=y)))

    r, c = sizes.strided_rows, sizes.strided_cols
    host2 = rng.standard_normal((r, 2 * c), dtype=np.float32)
    xs_base, ys_base = openreg.from_numpy(host2).to(dev), openreg.zeros(r, 3 * c, device=dev)
    xs, ys = xs_base[:, ::2], ys_base[:, ::3]
    cxs_base, cys_base = cp.asarray(host2), cp.zeros((r, 3 * c), np.float32)
    cxs, cys = cxs_base[:, ::2], cys_base[:, ::3]
    yield Case(Row("abs strided f32 [:, ::2] -> [:, ::3]", "GB/s", 8.0 * r * c),
               lambda: openreg.abs(xs, out=ys), lambda: cp.abs(cxs, out=cys),
               lambda: (_host(ys), cp.asnumpy(cys)), path=_traced(lambda: openreg.abs(xs, out=ys)))

    z = openreg.empty(n, device=dev)
    cz = cp.empty(n, np.float32)
    yield Case(Row("copy_ contiguous f32", "GB/s", 8.0 * n), lambda: z.copy_(x), lambda: cp.copyto(cz, cx),
               lambda: (_host(z), cp.asnumpy(cz)), path=_traced(lambda: z.copy_(x)))

    m = sizes.transpose
    host3 = rng.standard_normal((m, m), dtype=np.float32)
    sq, sq_out = openreg.from_numpy(host3).to(dev), openreg.empty(m, m, device=dev)
    csq, csq_out = cp.asarray(host3), cp.empty((m, m), np.float32)
    yield Case(Row("copy_ transposing f32 (n x n).t()", "GB/s", 8.0 * m * m), lambda: sq_out.copy_(sq.t()),
               lambda: cp.copyto(csq_out, csq.T), lambda: (_host(sq_out), cp.asnumpy(csq_out)),
               path=_traced(lambda: sq_out.copy_(sq.t())))

    h = openreg.empty(n, dtype=openreg.float16, device=dev)
    ch = cp.empty(n, np.float16)
    yield Case(Row("copy_ f32 -> f16", "GB/s", 6.0 * n), lambda: h.copy_(x),
               lambda: cp.copyto(ch, cx, casting="same_kind"), lambda: (_host(h), cp.asnumpy(ch)),
               path=_traced(lambda: h.copy_(x)))


@contextlib.contextmanager
def fused_only() -> Iterator[None]:
    """Make the launcher run the fused mm_plus_mm kernel whatever the size (for the crossover rows)."""
    launcher = _launcher()
    launcher.prefers_blas = lambda *args: False
    try:
        yield
    finally:
        del launcher.prefers_blas


def mm_cases(cp, sizes: Sizes, rng: np.random.Generator) -> Iterator[Case]:
    dev = "privateuseone"
    mm = openreg.ops.inductor._mm_plus_mm
    shapes = [(s, np.float32) for s in sizes.mm_float32] + [(s, np.float16) for s in sizes.mm_float16]
    for s, dtype in shapes:
        hosts = [(rng.standard_normal((s, s), dtype=np.float32) / math.sqrt(s)).astype(dtype) for _ in range(4)]
        a, b, c, d = (openreg.from_numpy(m).to(dev) for m in hosts)
        out = openreg.empty(s, s, dtype=openreg.dtypes.from_numpy(np.dtype(dtype)), device=dev)
        ca, cb, cc, cd = (cp.asarray(m) for m in hosts)
        cout = cp.empty((s, s), dtype)

        if dtype == np.float32:
            from cupy import cublas

            def two_gemms(ca=ca, cb=cb, cc=cc, cd=cd, cout=cout, cublas=cublas):
                cublas.gemm("N", "N", ca, cb, out=cout, alpha=1.0, beta=0.0)
                cublas.gemm("N", "N", cc, cd, out=cout, alpha=1.0, beta=1.0)
        else:
            def two_gemms(ca=ca, cb=cb, cc=cc, cd=cd, cout=cout):
                cp.matmul(ca, cb, out=cout)
                cout += cp.matmul(cc, cd)

        def run(a=a, b=b, c=c, d=d, out=out):
            return mm(a, b, c, d, out)

        name = f"mm_plus_mm {s}^3 x2 {np.dtype(dtype).name}"
        flops = 2.0 * s * s * (s + s)
        rtol = 2e-3 if dtype == np.float32 else 2e-2
        results = (lambda out=out, cout=cout: (_host(out), cp.asnumpy(cout)))
        case = Case(Row(name, "TFLOP/s", flops), run, two_gemms, results, rtol=rtol, path=_traced(run))
        yield case
        if dtype == np.float32 and _launcher().prefers_blas(dtype, s, s, s, s):
            def fused(run=run):
                with fused_only():
                    return run()
            yield Case(Row(name + " fused (forced)", "TFLOP/s", flops), fused, two_gemms, results, rtol=rtol,
                       path=_traced(fused))


# -- running and printing ----------------------------------------------------------------------------------
def measure(case: Case, sizes: Sizes) -> Row:
    row = case.row
    try:
        row.path = case.path()
        row.openreg_ms = time_ms(case.run_openreg, min_time_ms=sizes.min_time_ms, repeats=sizes.repeats)
        mine = case.results()[0].astype(np.float64)
        row.cupy_ms = time_ms(case.run_cupy, min_time_ms=sizes.min_time_ms, repeats=sizes.repeats)
        theirs = case.results()[1].astype(np.float64)
        scale = max(float(np.abs(theirs).max(initial=0.0)), 1e-30)
        err = float(np.abs(mine - theirs).max(initial=0.0)) / scale
        if err > case.rtol:
            row.note = f"MISMATCH: max |openreg - cupy| / max|cupy| = {err:.2e} > {case.rtol:.0e}"
    except Exception as exc:  # noqa: BLE001 - one failing case must not hide the others
        row.note = f"FAILED: {type(exc).__name__}: {exc}"
    return row


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def format_table(rows: Sequence[Row], header: str = "") -> str:
    """The rows as an aligned text table (times in ms, ratio openreg / CuPy, rates and % of the H100 bound).

    >>> print(format_table([Row("abs", "GB/s", 8e9, openreg_ms=4.0, cupy_ms=3.2, path="abs_contig_f32")]))
    case | openreg ms | cupy ms | ratio |   openreg |      cupy |    H100 bound | openreg % | path
    -----+------------+---------+-------+-----------+-----------+---------------+-----------+---------------
    abs  |      4.000 |   3.200 | 1.25x | 2000 GB/s | 2500 GB/s | HBM 3350 GB/s |     59.7% | abs_contig_f32
    """
    table = [("case", "openreg ms", "cupy ms", "ratio", "openreg", "cupy", "H100 bound", "openreg %", "path")]
    for r in rows:
        label, bound = BOUND_LABEL[r.unit]
        mine, theirs = r.rate(r.openreg_ms), r.rate(r.cupy_ms)
        ratio = r.openreg_ms / r.cupy_ms if r.openreg_ms and r.cupy_ms else None
        rate_spec = ".0f" if r.unit == "GB/s" else ".2f"
        table.append((
            r.case, _fmt(r.openreg_ms, ".3f"), _fmt(r.cupy_ms, ".3f"), _fmt(ratio, ".2f") + ("x" if ratio else ""),
            f"{_fmt(mine, rate_spec)} {r.unit}" if mine is not None else "-",
            f"{_fmt(theirs, rate_spec)} {r.unit}" if theirs is not None else "-",
            f"{label} {bound:{rate_spec}} {r.unit}",
            f"{100 * mine / bound:.1f}%" if mine is not None else "-",
            r.path + (f"  [{r.note}]" if r.note else ""),
        ))
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]) - 1)]
    lines = []
    for k, line in enumerate(table):
        cells = [line[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(line[1:-1], widths[1:])]
        lines.append(" | ".join([*cells, line[-1]]).rstrip())
        if k == 0:
            lines.append("-+-".join("-" * w for w in widths) + "-+-" + "-" * max(len(t[-1]) for t in table))
    return (header + "\n" if header else "") + "\n".join(lines)


def cuda_driver_or_none() -> str | None:
    """None when the cuda driver runs; otherwise why not (one line)."""
    try:
        from openreg.backends.privateuseone.driver_select import get_driver
        name = get_driver().name
    except Exception as exc:  # noqa: BLE001 - OPENREG_DRIVER=cuda without a GPU raises here
        return f"the cuda driver could not start ({exc})"
    if name != "cuda":
        return f"the PrivateUse1 device runs the '{name}' driver (no usable GPU or no CuPy)"
    return None


def main(argv: Sequence[str] | None = None, sizes: Sizes | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="smaller problems (quicker; less accurate)")
    args = parser.parse_args(argv)
    why = cuda_driver_or_none()
    if why is not None:
        print(f"bench_gpu: skipped, needs the cuda driver (a CUDA GPU with CuPy, e.g. via ci/gpu-check): {why}")
        return 0
    import cupy as cp

    if sizes is None:
        sizes = Sizes.small() if args.small else Sizes()
    rng = np.random.default_rng(0)
    dev = cp.cuda.runtime.getDevice()
    name = cp.cuda.runtime.getDeviceProperties(dev)["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    rows = []
    for make in (elementwise_cases, mm_cases):
        for case in make(cp, sizes, rng):
            rows.append(measure(case, sizes))
            print(f"  measured {rows[-1].case}", file=sys.stderr, flush=True)
    header = (f"openreg raw kernels vs CuPy on {name} (device {dev}); ratio = openreg / CuPy time, lower is "
              f"better; bounds from cuda_kernels/README.md")
    print(format_table(rows, header))
    return 1 if any(r.note for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
