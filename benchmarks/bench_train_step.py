"""One training step of a 3-layer MLP (batch 64, width 256): forward + cross-entropy + backward + SGD step.

Prints openreg's time per step on the CPU (and on the PrivateUse1 device when available), PyTorch's CPU time
when PyTorch is installed, and the ratio openreg/PyTorch (the target is at most 2x on the CPU). Both run
single-threaded (BLAS and intra-op threads) so that the numbers are comparable on busy CI machines.

    python benchmarks/bench_train_step.py [--steps 30]
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before NumPy is imported
os.environ.setdefault("OMP_NUM_THREADS", "1")


def _median_step(step, steps: int) -> float:
    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


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
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args(argv)
    import openreg
    rows = [("openreg cpu", _median_step(openreg_step("cpu"), args.steps))]
    mod = getattr(openreg, "privateuseone", None)
    if mod is not None and mod.is_available():
        rows.append((f"openreg privateuseone ({mod.driver()})", _median_step(openreg_step("privateuseone"),
                                                                             args.steps)))
    ts = torch_step()
    torch_time = _median_step(ts, args.steps) if ts is not None else None
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
