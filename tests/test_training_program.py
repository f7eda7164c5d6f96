"""A small everyday training program — an MLP classifier on synthetic data read through a DataLoader, AdamW with
weight-decay groups, CosineAnnealingLR and clip_grad_norm_ — written once against the PyTorch API and run with
``openreg`` on the CPU and the device and with ``torch`` from the same initial weights: the per-step losses agree to
1e-6 relative (the PyTorch comparison is skipped when it is not installed)."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None

STEPS_PER_EPOCH, EPOCHS, BATCH = 6, 5, 16


class FixedOrderSampler:
    """A different order every epoch, the same for every framework (drawn with NumPy)."""

    def __init__(self, n: int, seed: int) -> None:
        self.n, self.rng = n, np.random.default_rng(seed)

    def __iter__(self):
        return iter(self.rng.permutation(self.n).tolist())

    def __len__(self) -> int:
        return self.n


def make_data():
    rng = np.random.default_rng(0)
    n = STEPS_PER_EPOCH * BATCH
    x = rng.standard_normal((n, 10)).astype(np.float32)
    w = rng.standard_normal((10, 4)).astype(np.float32)
    y = (x @ w + 0.1 * rng.standard_normal((n, 4))).argmax(1).astype(np.int64)
    return x, y


def train(tl, device: str, init: dict[str, np.ndarray]) -> list[float]:
    """The program, with ``tl`` playing ``torch`` (``openreg`` or ``torch``)."""
    nn, F = tl.nn, tl.nn.functional
    data = tl.utils.data

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(10, 32)
            self.fc2 = nn.Linear(32, 32)
            self.head = nn.Linear(32, 4)

        def forward(self, x):
            return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))

    model = MLP()
    model.load_state_dict({k: tl.tensor(v) for k, v in init.items()})
    model.to(device)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = tl.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                         lr=2e-2, betas=(0.9, 0.95))
    sched = tl.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=STEPS_PER_EPOCH * EPOCHS, eta_min=1e-4)
    x, y = make_data()
    loader = data.DataLoader(data.TensorDataset(tl.tensor(x), tl.tensor(y)), batch_size=BATCH,
                             sampler=FixedOrderSampler(len(x), seed=1))
    losses = []
    model.train()
    for _ in range(EPOCHS):
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
    return losses


def initial_weights() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    shapes = {"fc1.weight": (32, 10), "fc1.bias": (32,), "fc2.weight": (32, 32), "fc2.bias": (32,),
              "head.weight": (4, 32), "head.bias": (4,)}
    return {k: (rng.uniform(-1, 1, s) / np.sqrt(s[-1])).astype(np.float32) for k, s in shapes.items()}


def test_training_program_trains_on_cpu_and_device_alike(devices):
    init = initial_weights()
    cpu = train(openreg, "cpu", init)
    first, last = np.mean(cpu[:STEPS_PER_EPOCH]), np.mean(cpu[-STEPS_PER_EPOCH:])
    assert len(cpu) == STEPS_PER_EPOCH * EPOCHS and last < 0.5 * first, (first, last)  # it learns
    if devices != "cpu":
        np.testing.assert_allclose(train(openreg, devices, init), cpu, rtol=1e-6)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_training_program_losses_match_pytorch_step_for_step():
    init = initial_weights()
    with torch.random.fork_rng():
        torch.set_num_threads(1)
        theirs = train(torch, "cpu", init)
    np.testing.assert_allclose(train(openreg, "cpu", init), theirs, rtol=1e-6)
