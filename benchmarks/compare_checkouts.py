"""Before/after timings of two openreg checkouts: small ops per call and one MLP training step.

Each checkout runs in its own interpreter (its ``.venv/bin/python``, an editable install of that checkout);
the two are run alternately, several rounds, with the order swapped every round, so load on a shared machine
hits both alike. Each figure is the median over the rounds of each run's best-of-repeats; the ratio is
after / before (lower is better, 1.00 = equal).

    python benchmarks/compare_checkouts.py /work/wt/base /work/wt/ops --rounds 5

Everything runs single-threaded (BLAS/OpenMP), as ``ci/bench`` does.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

# The measuring side: runs inside one checkout's interpreter and prints {case: seconds} as JSON.
MEASURE = r'''
import json, sys, time, timeit
import openreg

x, y = openreg.ones(16), openreg.ones(16)
m = openreg.ones(4, 4)
idx = openreg.tensor([[1], [0], [3], [2]])
sel = openreg.tensor([0, 2])
mask = openreg.tensor([True, False, True, False])
d = openreg.ones(16, device="privateuseone:0")
CASES = {
    "abs (16 f32)": lambda: x.abs(),
    "add (16 f32)": lambda: x + y,
    "mul (16 f32)": lambda: x * y,
    "view (16 -> 4x4)": lambda: x.view(4, 4),
    "gather (4x4)": lambda: m.gather(1, idx),
    "index_select (4x4)": lambda: m.index_select(0, sel),
    "masked_fill (4x4)": lambda: m.masked_fill(mask, 0.0),
    "x[idx] (index.Tensor)": lambda: x[sel],
    "zeros (16)": lambda: openreg.zeros(16),
    "arange (16)": lambda: openreg.arange(16),
    "rand (16)": lambda: openreg.rand(16),
    "add (16 f32, device)": lambda: d + d,
}


def per_call(fn, repeats=5):
    timer = timeit.Timer(fn)
    number = max(1, timer.autorange()[0] // 4)
    return min(timer.repeat(repeats, number)) / number


def train_step(device):
    sys.path.insert(0, "benchmarks")   # the checkout's own training-step benchmark (cwd is the checkout)
    from bench_train_step import openreg_step
    step = openreg_step(device)
    for _ in range(3):
        step()
    times = []
    for _ in range(int(sys.argv[1])):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


out = {name: per_call(fn) for name, fn in CASES.items()}
out["train step (MLP, cpu)"] = train_step("cpu")
out["train step (MLP, device)"] = train_step("privateuseone:0")
print(json.dumps(out))
'''


def run_once(checkout: Path, steps: int) -> dict:
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{checkout}: no .venv/bin/python (run ci/test there once, or pip install -e it)")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([str(python), "-c", MEASURE, str(steps)], cwd=checkout, env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(before: Path, after: Path, rounds: int, steps: int) -> list[tuple[str, float, float]]:
    """``[(case, median before s, median after s)]`` over ``rounds`` alternating runs."""
    samples: dict[str, dict[str, list]] = {"before": {}, "after": {}}
    for r in range(rounds):
        order = [("before", before), ("after", after)]
        for label, checkout in order if r % 2 == 0 else order[::-1]:
            for case, t in run_once(checkout, steps).items():
                samples[label].setdefault(case, []).append(t)
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    return [(case, statistics.median(samples["before"][case]), statistics.median(samples["after"][case]))
            for case in samples["before"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="checkout measured as the baseline")
    parser.add_argument("after", type=Path, help="checkout compared with it")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=30, help="timed training steps per run")
    args = parser.parse_args(argv)
    rows = compare(args.before.resolve(), args.after.resolve(), args.rounds, args.steps)
    print(f"{args.rounds} alternating rounds; medians of per-call best-of-5 (small ops) and of "
          f"{args.steps}-step medians (training)")
    print(f"{'case':28} {'before us':>11} {'after us':>11} {'after/before':>13}")
    for case, b, a in rows:
        print(f"{case:28} {b * 1e6:11.2f} {a * 1e6:11.2f} {a / b:12.2f}x")
    small = [a / b for case, b, a in rows if "train" not in case]
    print(f"median small-op ratio: {statistics.median(small):.2f}x")


if __name__ == "__main__":
    main()
