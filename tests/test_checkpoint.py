"""openreg.utils.checkpoint: the function runs once without a graph in forward and again in backward (with the
first run's random state), and the gradients equal those of the plain computation and of PyTorch's checkpoint."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg.utils.checkpoint import checkpoint, checkpoint_sequential

RNG = np.random.default_rng(0)
W1, W2, X = RNG.normal(size=(4, 5)), RNG.normal(size=(5, 3)), RNG.normal(size=(2, 4))


def _run(lib, ck, device=None, p=0.5):
    kw = {"device": device} if device else {}
    w1, w2 = lib.tensor(W1, requires_grad=True, **kw), lib.tensor(W2, requires_grad=True, **kw)
    x = lib.tensor(X, requires_grad=True, **kw)
    calls = []

    def block(a):
        calls.append(1)
        h = (a @ w1).tanh()
        return lib.nn.functional.dropout(h, p, True) @ w2

    lib.manual_seed(0)
    y = ck(block, x) if ck else block(x)
    (y ** 2).sum().backward()
    return [np.asarray(t.detach().cpu().numpy()) for t in (y, x.grad, w1.grad, w2.grad)], len(calls)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_recomputes_in_backward_with_the_same_random_state(use_reentrant, devices):
    plain, plain_calls = _run(openreg, None, devices)
    ours, calls = _run(openreg, lambda f, x: checkpoint(f, x, use_reentrant=use_reentrant), devices)
    assert plain_calls == 1 and calls == 2      # forward, then the recomputation in backward
    for a, b in zip(ours, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_matches_pytorch_checkpoint():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    import torch.utils.checkpoint as tc
    theirs, _ = _run(torch, lambda f, x: tc.checkpoint(f, x, use_reentrant=False), p=0.0)
    ours, _ = _run(openreg, lambda f, x: checkpoint(f, x, use_reentrant=False), p=0.0)
    for a, b in zip(ours, theirs):   # without dropout: the generators differ
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_forward_keeps_no_graph_and_warns_without_use_reentrant():
    x = openreg.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda a: a * 2, x)
    assert y.requires_grad and type(y.grad_fn).__name__ != "MulBackward0"
    with openreg.no_grad():
        assert not checkpoint(lambda a: a * 2, x, use_reentrant=False).requires_grad
    with pytest.raises(NotImplementedError, match="context_fn"):
        checkpoint(lambda a: a, x, use_reentrant=False, context_fn=lambda: None)


def test_checkpoint_sequential_gradients():
    openreg.manual_seed(0)
    model = openreg.nn.Sequential(openreg.nn.Linear(3, 4), openreg.nn.Tanh(), openreg.nn.Linear(4, 4),
                                  openreg.nn.Tanh(), openreg.nn.Linear(4, 1))
    x = openreg.randn(2, 3)
    checkpoint_sequential(model, 2, x, use_reentrant=False).sum().backward()
    checkpointed = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for a, p in zip(checkpointed, model.parameters()):
        np.testing.assert_allclose(a.numpy(), p.grad.numpy(), rtol=1e-6)
