"""optim.LBFGS: convergence on known problems, PyTorch's errors, and step-for-step agreement with torch.optim.LBFGS
(with and without the strong-Wolfe line search) from the same initial weights."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _rosenbrock_closure(opt, x):
    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_minimises_rosenbrock(device, line_search):
    x = openreg.nn.Parameter(openreg.tensor([-1.5, 2.0], dtype=openreg.float64, device=device))
    opt = openreg.optim.LBFGS([x], lr=1 if line_search else 0.1, max_iter=200, history_size=10,
                              line_search_fn=line_search, tolerance_grad=1e-12, tolerance_change=1e-14)
    for _ in range(5 if line_search else 60):
        opt.step(_rosenbrock_closure(opt, x))
    np.testing.assert_allclose(x.detach().cpu().numpy(), [1.0, 1.0], atol=1e-4)
    assert opt.state[x]["func_evals"] > 1 and opt.state[x]["n_iter"] > 1


def test_lbfgs_errors_match_pytorch():
    a, b = openreg.nn.Parameter(openreg.ones(2)), openreg.nn.Parameter(openreg.ones(2))
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        openreg.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        openreg.optim.LBFGS([a], lr=-1)
    opt = openreg.optim.LBFGS([a])
    assert opt.param_groups[0]["max_eval"] == 25  # max_iter * 5 // 4
    with pytest.raises(TypeError):
        opt.step()  # the closure is required


def test_lbfgs_returns_the_first_loss_and_stops_at_a_minimum():
    x = openreg.nn.Parameter(openreg.zeros(3))
    opt = openreg.optim.LBFGS([x])
    calls = []

    def closure():
        opt.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        calls.append(1)
        return loss
    assert opt.step(closure).item() == 0.0
    assert len(calls) == 1  # the gradient is already below tolerance_grad: no iteration
    assert x.tolist() == [0.0, 0.0, 0.0]


@needs_torch
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
def test_lbfgs_matches_pytorch_step_for_step(line_search, device):
    rng = np.random.default_rng(0)
    w1, b1 = rng.standard_normal((8, 3)), rng.standard_normal(8)
    w2, b2 = rng.standard_normal((1, 8)), rng.standard_normal(1)
    xs, ys = rng.standard_normal((32, 3)), rng.standard_normal((32, 1))

    def model(lib, params, x):
        h = lib.tanh(x @ params[0].T + params[1])
        return h @ params[2].T + params[3]

    def run(lib, dev):
        params = [lib.nn.Parameter(lib.tensor(a, dtype=lib.float64, device=dev)) for a in (w1, b1, w2, b2)]
        x, y = lib.tensor(xs, device=dev), lib.tensor(ys, device=dev)
        opt = lib.optim.LBFGS(params, lr=0.5, max_iter=7, history_size=4, line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = ((model(lib, params, x) - y) ** 2).mean()
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(4)]
        state = opt.state[params[0]]
        return losses, [p.detach().cpu().numpy() for p in params], state["func_evals"], state["n_iter"]

    results = [run(openreg, device), run(torch, "cpu")]
    (ours, our_params, our_evals, our_iters), (theirs, their_params, their_evals, their_iters) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)
    for a, b in zip(our_params, their_params):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    assert (our_evals, our_iters) == (their_evals, their_iters)
