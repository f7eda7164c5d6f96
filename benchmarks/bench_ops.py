"""Per-call time of small ops and of the fused mm-plus-mm: openreg vs NumPy vs PyTorch, as one table.

Run with ``ci/bench`` (or ``python benchmarks/bench_ops.py``). Ratios are openreg / other (lower is better).
Targets: small ops at most 1.5x PyTorch eager (#15; was 3x) (median over abs/add/mul/view), and ``_mm_plus_mm`` at 1024^2 at
least 0.9x the speed of PyTorch's ``mm`` + ``addmm_`` (a time ratio of at most 1.11).

How it measures, so that the ratios mean something on a small shared machine:
* every library runs single-threaded (BLAS and OpenMP): two spinning thread pools in one process on two cores
  slow each other down by an order of magnitude, and a loaded machine makes multi-threaded GEMM timings noise;
* the implementations of a case are timed in interleaved rounds (openreg, NumPy, PyTorch, openreg, ...) and
  each figure is the median over the rounds, so a burst of load hits all columns alike.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")   # before NumPy / PyTorch are imported

import statistics
import timeit

import numpy as np

import openreg

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # PyTorch is optional
    torch = None

ROUNDS = 9
MM_SIZES = (256, 1024)


def _matrices(n: int):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n, n), dtype=np.float32) for _ in range(4)]


def cases():
    """(name, openreg fn, NumPy fn, PyTorch fn or None) for every benchmarked case."""
    x, y = openreg.ones(16), openreg.ones(16)
    a, b = np.ones(16, np.float32), np.ones(16, np.float32)
    tx = ty = None
    if torch is not None:
        tx, ty = torch.ones(16), torch.ones(16)
    yield "abs (16 x f32)", (lambda: x.abs()), (lambda: np.abs(a)), tx is not None and (lambda: tx.abs())
    yield "add (16 x f32)", (lambda: x + y), (lambda: a + b), tx is not None and (lambda: tx + ty)
    yield "mul (16 x f32)", (lambda: x * y), (lambda: a * b), tx is not None and (lambda: tx * ty)
    yield "view (16 -> 4x4)", (lambda: x.view(4, 4)), (lambda: a.reshape(4, 4)), \
        tx is not None and (lambda: tx.view(4, 4))
    op = openreg.ops.inductor._mm_plus_mm.default
    for n in MM_SIZES:
        na, nb, nc, nd = _matrices(n)
        oa, ob, oc, od = (openreg.from_numpy(m) for m in (na, nb, nc, nd))
        out = openreg.empty(n, n)
        nout = np.empty((n, n), np.float32)

        def numpy_fused(na=na, nb=nb, nc=nc, nd=nd, nout=nout):
            np.matmul(na, nb, out=nout)
            nout += nc @ nd
        torch_fn = None
        if torch is not None:
            ta, tb, tc, td = (torch.from_numpy(m) for m in (na, nb, nc, nd))
            tout = torch.empty(n, n)

            def torch_fn(ta=ta, tb=tb, tc=tc, td=td, tout=tout):
                torch.mm(ta, tb, out=tout)
                tout.addmm_(tc, td)
        yield f"_mm_plus_mm ({n}^2 f32)", (lambda oa=oa, ob=ob, oc=oc, od=od, out=out: op(oa, ob, oc, od, out)), \
            numpy_fused, torch_fn


def interleaved_us(fns: list) -> list:
    """Median per-call time (us) of each function, timed in interleaved rounds of ~0.1 s each."""
    timers = [timeit.Timer(f) for f in fns]
    numbers = [max(1, t.autorange()[0] // 2) for t in timers]
    samples = [[] for _ in fns]
    for _ in range(ROUNDS):
        for i, (timer, number) in enumerate(zip(timers, numbers)):
            samples[i].append(timer.timeit(number) / number * 1e6)
    return [statistics.median(s) for s in samples]


def main() -> None:
    print(f"openreg {openreg.__version__} | numpy {np.__version__} | "
          f"torch {torch.__version__ if torch is not None else 'not installed'} | single-threaded, "
          f"{ROUNDS} interleaved rounds")
    header = f"{'case':24} {'openreg us':>12} {'numpy us':>10} {'torch us':>10} {'vs numpy':>9} {'vs torch':>9}"
    print(header)
    print("-" * len(header))
    rows = []
    for name, ours, numpy_fn, torch_fn in cases():
        times = interleaved_us([ours, numpy_fn] + ([torch_fn] if torch_fn else []))
        t_torch = times[2] if torch_fn else None
        rows.append((name, times[0], times[1], t_torch))
        torch_col = f"{t_torch:10.2f}" if t_torch else "       n/a"
        vs_torch = f"{times[0] / t_torch:8.2f}x" if t_torch else "      n/a"
        print(f"{name:24} {times[0]:12.2f} {times[1]:10.2f} {torch_col} {times[0] / times[1]:8.2f}x {vs_torch}",
              flush=True)
    small = [ours / t for name, ours, _, t in rows if t and "mm_plus_mm" not in name]
    if small:
        print(f"median small-op time vs torch: {statistics.median(small):.2f}x (target <= 1.5x, #15)")
    for name, ours, _, t in rows:
        if t and "1024" in name:
            print(f"{name} speed vs torch mm+addmm_: {t / ours:.2f}x (target >= 0.9x)")


if __name__ == "__main__":
    main()
