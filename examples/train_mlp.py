"""Train a small MLP on the openreg device (the emulated driver without a GPU; CPU if no device backend).

Task: classify 2-d points by which of three spirals-like sectors they fall in. The script trains a
2-64-64-3 MLP with Adam on ``cross_entropy`` and checks that the final training loss is below
``TARGET_LOSS`` (0.15; an untrained model starts near ln(3) = 1.10). Exit status 1 if not reached.

    python examples/train_mlp.py [--steps 150] [--device privateuseone]
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import openreg
import openreg.nn.functional as F
from openreg import nn

TARGET_LOSS = 0.15


def default_device() -> str:
    mod = getattr(openreg, "privateuseone", None)
    try:
        return "privateuseone" if mod is not None and mod.is_available() else "cpu"
    except Exception:  # noqa: BLE001 - a half-initialised device backend means: use the CPU
        return "cpu"


def make_data(n: int, device: str):
    """Points in the unit disc labelled by angular sector (3 classes)."""
    g = openreg.Generator().manual_seed(0)
    pts = openreg.rand(n, 2, generator=g) * 2 - 1
    angle = [math.atan2(y, x) for x, y in pts.tolist()]
    labels = [int(((a + math.pi) / (2 * math.pi)) * 3) % 3 for a in angle]
    return pts.to(device), openreg.tensor(labels, device=device)


def train(steps: int, device: str) -> float:
    openreg.manual_seed(0)
    x, y = make_data(256, device)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3)).to(device)
    opt = openreg.optim.Adam(model.parameters(), lr=0.02)
    loss = None
    for step in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    final = loss.item()
    with openreg.no_grad():
        acc = (model(x).argmax(1) == y).to(openreg.float32).mean().item()
    print(f"final loss {final:.4f} (target < {TARGET_LOSS}), accuracy {acc:.3f}, device {x.device}")
    return final


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--device", default=None)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    final = train(args.steps, args.device or default_device())
    print(f"trained in {time.perf_counter() - start:.2f}s")
    return 0 if final < TARGET_LOSS else 1


if __name__ == "__main__":
    sys.exit(main())
