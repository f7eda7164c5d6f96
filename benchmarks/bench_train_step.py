"""One training step of a 3-layer MLP (batch 64, width 256): forward + cross-entropy + backward + SGD step.

Prints openreg's time per step on the CPU (and on the PrivateUse1 device when available), PyTorch's CPU time
when PyTorch is installed, and the ratio openreg/PyTorch (the target is at most 2x on the CPU). Steps are
timed in interleaved rounds and everything runs single-threaded (BLAS and intra-op threads), so that the
numbers are comparable on busy CI machines.

    python benchmarks/bench_train_step.py [--steps 60]
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before NumPy is imported
os.environ.setdefault("OMP_NUM_THREADS", "1")


def _median_steps(steps_by_name: dict, steps: int) -> dict:
    """Median step time (s) of each step function, timed in interleaved rounds (one step of each per round),
    so that load on a shared machine hits every implementation alike."""
    for step in steps_by_name.values():
        for _ in range(3):
            step()
    times = {name: [] for name in steps_by_name}
    for _ in range(steps):
        for name, step in steps_by_name.items():
            t0 = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - t0)
    return {name: sorted(ts)[len(ts) // 2] for name, ts in times.items()}


def openreg_step(device: str):
    import openreg
    import openreg.nn.functional as F
    from openreg import nn
    openreg.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10)).to(device)
    x = openreg.randn(64, 256, device=device)
    y = openreg.randint(0, 10, (64,), device=device)
    opt = openreg.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def torch_step():
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10))
    x = torch.randn(64, 256)
    y = torch.randint(0, 10, (64,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args(argv)
    import openreg
    steps_by_name = {"openreg cpu": openreg_step("cpu")}
    mod = getattr(openreg, "privateuseone", None)
    if mod is not None and mod.is_available():
        steps_by_name[f"openreg privateuseone ({mod.driver()})"] = openreg_step("privateuseone")
    ts = torch_step()
    if ts is not None:
        steps_by_name["pytorch cpu"] = ts
    medians = _median_steps(steps_by_name, args.steps)
    torch_time = medians.pop("pytorch cpu", None)
    rows = list(medians.items())
    print("MLP train step (3 layers, batch 64, width 256, forward+backward+SGD momentum)")
    print(f"{'implementation':40s} {'ms/step':>10s} {'vs PyTorch CPU':>15s}")
    for name, t in rows:
        ratio = f"{t / torch_time:.1f}x" if torch_time else "n/a"
        print(f"{name:40s} {t * 1e3:10.3f} {ratio:>15s}")
    if torch_time is not None:
        print(f"{'pytorch cpu':40s} {torch_time * 1e3:10.3f} {'1.0x':>15s}")
    else:
        print("(PyTorch not installed: no ratio; `pip install torch==2.13.0` installs a local CPU wheel here)")


if __name__ == "__main__":
    main()
