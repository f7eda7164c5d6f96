"""Per-call time of small ops and of the fused mm-plus-mm: openreg vs NumPy vs PyTorch, as one table.

Run with ``ci/bench`` (or ``python benchmarks/bench_ops.py``). Each figure is the median over several
repeats of the mean time per call; ratios are openreg / other (lower is better). Targets: small ops at most
3x PyTorch eager (median), and ``_mm_plus_mm`` at 1024^2 at least 0.9x the speed of PyTorch's
``mm`` + ``addmm_`` (a time ratio of at most 1.11).

PyTorch is timed in a separate process: its OpenMP pool and NumPy's OpenBLAS pool, both spinning in one
process on a small machine, slow each other down and make both columns meaningless.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import timeit

MM_SIZES = (256, 1024)


def per_call_us(fn, *, repeats: int = 7) -> float:
    """Median over ``repeats`` of the mean per-call time in microseconds (each repeat >= ~0.2 s)."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return statistics.median(t / number * 1e6 for t in timer.repeat(repeats, number))


def _matrices(n: int):
    import numpy as np
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n, n), dtype=np.float32) for _ in range(4)]


def openreg_and_numpy_cases():
    import numpy as np

    import openreg
    x, y = openreg.ones(16), openreg.ones(16)
    a, b = np.ones(16, np.float32), np.ones(16, np.float32)
    yield "abs (16 x f32)", (lambda: x.abs()), (lambda: np.abs(a))
    yield "add (16 x f32)", (lambda: x + y), (lambda: a + b)
    yield "mul (16 x f32)", (lambda: x * y), (lambda: a * b)
    yield "view (16 -> 4x4)", (lambda: x.view(4, 4)), (lambda: a.reshape(4, 4))
    op = openreg.ops.inductor._mm_plus_mm.default
    for n in MM_SIZES:
        na, nb, nc, nd = _matrices(n)
        ta, tb, tc, td = (openreg.from_numpy(m) for m in (na, nb, nc, nd))
        out = openreg.empty(n, n)
        nout = np.empty((n, n), np.float32)

        def numpy_fused(na=na, nb=nb, nc=nc, nd=nd, nout=nout):
            np.matmul(na, nb, out=nout)
            nout += nc @ nd
        yield f"_mm_plus_mm ({n}^2 f32)", (lambda ta=ta, tb=tb, tc=tc, td=td, out=out: op(ta, tb, tc, td, out)), \
            numpy_fused


def torch_cases():
    import torch
    x, y = torch.ones(16), torch.ones(16)
    yield "abs (16 x f32)", lambda: x.abs()
    yield "add (16 x f32)", lambda: x + y
    yield "mul (16 x f32)", lambda: x * y
    yield "view (16 -> 4x4)", lambda: x.view(4, 4)
    for n in MM_SIZES:
        ta, tb, tc, td = (torch.from_numpy(m) for m in _matrices(n))
        out = torch.empty(n, n)

        def fused(ta=ta, tb=tb, tc=tc, td=td, out=out):
            torch.mm(ta, tb, out=out)
            out.addmm_(tc, td)
        yield f"_mm_plus_mm ({n}^2 f32)", fused


def measure_torch() -> tuple[dict, str]:
    """Run this file with --torch in a child process; ({case: us}, version) or ({}, reason)."""
    proc = subprocess.run([sys.executable, __file__, "--torch"], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {}, "not installed" if "No module named 'torch'" in proc.stderr else proc.stderr.strip()[-200:]
    data = json.loads(proc.stdout)
    return data["times"], data["version"]


def main() -> None:
    import numpy as np

    import openreg
    torch_times, torch_version = measure_torch()
    rows = [(name, per_call_us(ours), per_call_us(numpy_fn), torch_times.get(name))
            for name, ours, numpy_fn in openreg_and_numpy_cases()]
    print(f"openreg {openreg.__version__} | numpy {np.__version__} | torch {torch_version}")
    header = f"{'case':24} {'openreg us':>12} {'numpy us':>10} {'torch us':>10} {'vs numpy':>9} {'vs torch':>9}"
    print(header)
    print("-" * len(header))
    for name, ours, t_np, t_torch in rows:
        torch_col = f"{t_torch:10.2f}" if t_torch else "       n/a"
        vs_torch = f"{ours / t_torch:8.2f}x" if t_torch else "      n/a"
        print(f"{name:24} {ours:12.2f} {t_np:10.2f} {torch_col} {ours / t_np:8.2f}x {vs_torch}")
    small = [ours / t for name, ours, _, t in rows if t and "mm_plus_mm" not in name]
    if small:
        print(f"median small-op time vs torch: {statistics.median(small):.2f}x (target <= 3x)")
    big = [(name, ours / t) for name, ours, _, t in rows if t and "1024" in name]
    for name, ratio in big:
        print(f"{name} speed vs torch mm+addmm_: {1 / ratio:.2f}x (target >= 0.9x)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--torch"]:
        import torch
        print(json.dumps({"version": torch.__version__,
                          "times": {name: per_call_us(fn) for name, fn in torch_cases()}}))
    else:
        main()
