"""No memory growth per training step (#15 item 7): a tiny model's steady-state steps allocate nothing that
outlives them (tracemalloc sees NumPy's arrays and every Python object; no timing involved)."""
import gc
import tracemalloc

import pytest

import openreg
import openreg.nn.functional as F
from openreg import nn


def _mlp_step(device):
    openreg.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.LayerNorm(32), nn.Linear(32, 4)).to(device)
    opt = openreg.optim.Adam(model.parameters(), lr=1e-3)
    x = openreg.randn(8, 16, device=device)
    y = openreg.randint(0, 4, (8,), device=device)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()
    return step


def _growth(step, warmup=15, steps=60) -> int:
    for _ in range(warmup):
        step()
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(steps):
            step()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("device", ["cpu", "privateuseone"])
def test_training_steps_do_not_grow_memory(device):
    growth = _growth(_mlp_step(device))
    # One leaked gradient-sized tensor per step would be > 60 * 1 KiB; the bound leaves room for interpreter
    # caches that fill once (about 8 KiB).
    assert growth < 32 * 1024, f"{growth} bytes more after 60 steps"


def test_a_step_leaves_no_reference_cycles():
    """The recorded graph is freed by reference counting when the step drops it (no cycle waits for the GC
    while holding the activations)."""
    step = _mlp_step("cpu")
    step()
    gc.collect()
    gc.disable()
    try:
        step()
        assert gc.collect() == 0
    finally:
        gc.enable()
