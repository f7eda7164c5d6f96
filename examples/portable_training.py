"""Plain PyTorch-style training code, written for ``cuda``, that openreg runs anywhere.

The script below is what people write for PyTorch: it picks ``cuda`` when available, trains a small regression
MLP under bfloat16 autocast with a GradScaler, and reports the loss. Only the import differs. Run it

    python examples/portable_training.py                          # CPU (openreg's device is not named cuda)
    OPENREG_DEVICE_NAME=cuda python examples/portable_training.py # on the device, as "cuda" (emulated w/o GPU)

With ``import torch`` instead of ``import openreg as torch`` it runs unchanged on PyTorch. Exit status 1 when
the final loss is not below a tenth of the first one.
"""
from __future__ import annotations

import sys

import openreg as torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def make_data(n: int = 256):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    w_true = torch.randn(8, 1, generator=g)
    y = (x @ w_true).tanh() + 0.05 * torch.randn(n, 1, generator=g)
    return x.to(device), y.to(device)


def train(steps: int = 150) -> tuple[float, float]:
    torch.manual_seed(0)
    if device == "cuda":
        torch.cuda.manual_seed_all(0)
    x, y = make_data()
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler(device)
    first = last = None
    for _ in range(steps):
        opt.zero_grad()
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            pred = model(x)
        assert pred.dtype == torch.bfloat16          # the matmuls ran in bfloat16
        loss = torch.nn.functional.mse_loss(pred.float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        last = loss.item()
        first = last if first is None else first
    return first, last


def main() -> int:
    first, last = train()
    print(f"device {device} ({torch.cuda.get_device_name() if device == 'cuda' else 'host'}): "
          f"loss {first:.4f} -> {last:.4f}")
    return 0 if last < first / 10 else 1


if __name__ == "__main__":
    sys.exit(main())
