"""Per-call time of small ops and of the fused mm-plus-mm: openreg vs NumPy vs PyTorch, as one table.

Run with ``ci/bench`` (or ``python benchmarks/bench_ops.py``). Each figure is the median over several
repeats of the mean time per call; ratios are openreg / PyTorch (lower is better; the Foundation targets
are <= 3x for the small ops and >= 0.9x PyTorch's speed, i.e. a time ratio <= 1.11, for mm_plus_mm at 1024).
"""
from __future__ import annotations

import statistics
import timeit

import numpy as np

import openreg

try:
    import torch
except Exception:  # noqa: BLE001 - PyTorch is optional
    torch = None


def per_call_us(fn, *, min_time: float = 0.2, repeats: int = 7) -> float:
    """Median over ``repeats`` of the mean per-call time in microseconds."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * min_time / 0.2))
    return statistics.median(t / number * 1e6 for t in timer.repeat(repeats, number))


def small_op_cases():
    x = openreg.ones(16)
    y = openreg.ones(16)
    a = np.ones(16, np.float32)
    b = np.ones(16, np.float32)
    tx = ty = None
    if torch is not None:
        tx, ty = torch.ones(16), torch.ones(16)
    yield "abs (16 x f32)", (lambda: x.abs()), (lambda: np.abs(a)), (tx is not None and (lambda: tx.abs()))
    yield "add (16 x f32)", (lambda: x + y), (lambda: a + b), (tx is not None and (lambda: tx + ty))
    yield "mul (16 x f32)", (lambda: x * y), (lambda: a * b), (tx is not None and (lambda: tx * ty))
    yield "view (16 -> 4x4)", (lambda: x.view(4, 4)), (lambda: a.reshape(4, 4)), \
        (tx is not None and (lambda: tx.view(4, 4)))


def mm_plus_mm_cases():
    rng = np.random.default_rng(0)
    for n in (256, 1024):
        arrays = [rng.standard_normal((n, n), dtype=np.float32) for _ in range(4)]
        a, b, c, d = (openreg.from_numpy(m) for m in arrays)
        out = openreg.empty(n, n)
        op = openreg.ops.inductor._mm_plus_mm.default
        na, nb, nc, nd = arrays
        nout = np.empty((n, n), np.float32)

        def numpy_fused():
            np.matmul(na, nb, out=nout)
            nout.__iadd__(nc @ nd)
        torch_fn = False
        if torch is not None:
            ta, tb, tc, td = (torch.from_numpy(m) for m in arrays)
            tout = torch.empty(n, n)

            def torch_fn():
                torch.mm(ta, tb, out=tout)
                tout.addmm_(tc, td)
        yield f"_mm_plus_mm ({n}^2 f32)", (lambda: op(a, b, c, d, out)), numpy_fused, torch_fn


def main() -> None:
    rows = []
    for name, ours, numpy_fn, torch_fn in list(small_op_cases()) + list(mm_plus_mm_cases()):
        t_ours = per_call_us(ours)
        t_np = per_call_us(numpy_fn)
        t_torch = per_call_us(torch_fn) if torch_fn else None
        rows.append((name, t_ours, t_np, t_torch))
    header = f"{'case':24} {'openreg us':>12} {'numpy us':>10} {'torch us':>10} {'vs numpy':>9} {'vs torch':>9}"
    print(f"openreg {getattr(openreg, '__version__', '')} | numpy {np.__version__} | "
          f"torch {torch.__version__ if torch is not None else 'not installed'}")
    print(header)
    print("-" * len(header))
    for name, ours, t_np, t_torch in rows:
        vs_torch = f"{ours / t_torch:8.2f}x" if t_torch else "      n/a"
        t_torch_s = f"{t_torch:10.2f}" if t_torch else "       n/a"
        print(f"{name:24} {ours:12.2f} {t_np:10.2f} {t_torch_s} {ours / t_np:8.2f}x {vs_torch}")
    small = [ours / t for name, ours, _, t in rows if t and "mm_plus_mm" not in name]
    if small:
        print(f"median small-op overhead vs torch: {statistics.median(small):.2f}x (target <= 3x)")


if __name__ == "__main__":
    main()
