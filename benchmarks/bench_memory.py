"""Memory of the example programs' training steps: peak resident memory a step adds (RSS, each library in a
fresh process of its own) against PyTorch, and growth over many steps (RSS, and tracemalloc for openreg, whose
arrays NumPy reports to tracemalloc).

    python benchmarks/bench_memory.py [--steps 200] [--quick]

Targets (#15 item 7): peak at most 1.5x PyTorch's; no growth from step 20 to the last step.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = ("gpt", "cnn", "lstm")


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(lib_name: str, model: str, device: str, steps: int) -> dict:
    """Run in a fresh process: build the model, run ``steps`` steps, report memory figures (bytes)."""
    import tracemalloc
    sys.path.insert(0, str(HERE))
    lib = __import__(lib_name)
    import bench_models as bm  # imports openreg (for its loader); the figures of torch runs exclude it
    build = {"gpt": bm.gpt_step, "cnn": bm.cnn_step, "lstm": bm.lstm_step}[model]
    step = build(lib, device, False)
    base_rss = _rss()     # model, optimizer and data built; no step run yet (activations, gradients, state)
    base_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # e.g. import-time transients
    for _ in range(3):
        step()
    traced = lib_name == "openreg"
    if traced:
        tracemalloc.start()
    rss, traced_now = [], []
    traced_peak = 0
    for i in range(steps):
        if traced:
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
        step()
        if traced:
            cur, peak = tracemalloc.get_traced_memory()
            traced_peak = max(traced_peak, peak - before)
            traced_now.append(cur)
        rss.append(_rss())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    k = min(20, steps - 1)
    # The process peak tells about the steps only when they raised it above the peak before them.
    return {"step_peak_rss": max(peak - base_rss if peak > base_peak else 0, max(rss) - base_rss, 0),
            "rss_growth": rss[-1] - rss[k], "traced_peak": traced_peak if traced else None,
            "traced_growth": traced_now[-1] - traced_now[k] if traced else None}


def run_child(lib: str, model: str, device: str, steps: int) -> dict | None:
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    out = subprocess.run([sys.executable, __file__, "--child", lib, model, device, str(steps)], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"  ({lib} {model} {device} failed: {out.stderr.strip().splitlines()[-1:]})")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def mib(n) -> str:
    return "n/a" if n is None else f"{n / 2 ** 20:.1f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="60 steps")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        lib, model, device, steps = args.child
        print(json.dumps(child(lib, model, device, int(steps))))
        return
    steps = 60 if args.quick else args.steps
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
        print("(PyTorch not installed: no PyTorch column)")
    print(f"Memory per training step ({steps} steps; MiB; each run in a fresh process)")
    print("step peak RSS: peak resident memory above the built model (activations, gradients, optimizer state)")
    print(f"{'model':6} {'impl':20} {'step peak RSS':>14} {'vs torch':>9} {'RSS growth':>11} {'traced peak':>12} "
          f"{'traced growth':>14}")
    for model in MODELS:
        torch_res = run_child("torch", model, "cpu", steps) if have_torch else None
        rows = [("openreg cpu", run_child("openreg", model, "cpu", steps)),
                ("openreg privateuseone", run_child("openreg", model, "privateuseone", steps))]
        if torch_res:
            rows.append(("pytorch cpu", torch_res))
        for name, r in rows:
            if r is None:
                continue
            ratio = (f"{r['step_peak_rss'] / torch_res['step_peak_rss']:8.2f}x"
                     if torch_res and torch_res["step_peak_rss"] else f"{'n/a':>9}")
            print(f"{model:6} {name:20} {mib(r['step_peak_rss']):>14} {ratio} {mib(r['rss_growth']):>11} "
                  f"{mib(r['traced_peak']):>12} {mib(r['traced_growth']):>14}", flush=True)


if __name__ == "__main__":
    main()
