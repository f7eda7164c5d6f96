"""``binary_cross_entropy_with_logits`` as PyTorch's one operator (float32/float64): values and gradients against
torch 2.13, the graph node, the refusal of a weight requiring grad, and the 16-bit composite path."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg

F = openreg.nn.functional
RNG = np.random.default_rng(7)
X, T = RNG.normal(size=(6, 5)) * 6, RNG.random((6, 5))
W, PW = RNG.random(5) + 0.1, RNG.random((1, 5)) * 3


def _run(lib, dtype, device, reduction, weight, pos_weight):
    d = getattr(lib, dtype)
    x = lib.tensor(X, dtype=d, device=device, requires_grad=True)
    t = lib.tensor(T, dtype=d, device=device, requires_grad=True)
    kw = {}
    if weight:
        kw["weight"] = lib.tensor(W, dtype=d, device=device)
    if pos_weight:
        kw["pos_weight"] = lib.tensor(PW, dtype=d, device=device)
    loss = F_of(lib).binary_cross_entropy_with_logits(x, t, reduction=reduction, **kw)
    (loss * lib.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape)), dtype=d,
                       device=device)).sum().backward()
    return [v.detach().cpu().numpy() for v in (loss, x.grad, t.grad)], loss.grad_fn.name()


def F_of(lib):
    return lib.nn.functional


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("weight", "pos_weight"), [(False, False), (True, False), (False, True), (True, True)])
def test_matches_torch(device, dtype, reduction, weight, pos_weight):
    torch = pytest.importorskip("torch")
    got, name = _run(openreg, dtype, device, reduction, weight, pos_weight)
    want, want_name = _run(torch, dtype, "cpu", reduction, weight, pos_weight)
    assert name == want_name == "BinaryCrossEntropyWithLogitsBackward0"
    tol = 2e-6 if dtype == "float32" else 1e-14
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_one_node_and_stable_values():
    x = openreg.tensor([-200.0, 0.0, 200.0], requires_grad=True)
    t = openreg.tensor([1.0, 0.5, 0.0])
    loss = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    assert loss.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    np.testing.assert_allclose(loss.detach().numpy(), [200.0, np.log(2.0), 200.0], rtol=1e-6)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, 0.0, 1.0], atol=1e-7)


@pytest.mark.parametrize("name", ["weight", "pos_weight"])
def test_weight_requiring_grad_is_refused(name):
    x, t = openreg.zeros(2, 3, requires_grad=True), openreg.ones(2, 3)
    w = openreg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"not differentiable with respect to argument '{name}'"):
        F.binary_cross_entropy_with_logits(x, t, **{name: w})
    with openreg.no_grad():
        F.binary_cross_entropy_with_logits(x, t, **{name: w})


def test_bad_reduction_and_sizes():
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.binary_cross_entropy_with_logits(openreg.zeros(3), openreg.zeros(3), reduction="avg")
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(openreg.zeros(3), openreg.zeros(2))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_inputs_keep_their_dtype(dtype):
    d = getattr(openreg, dtype)
    x = openreg.tensor(X, dtype=d, requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, openreg.tensor(T, dtype=d))
    loss.backward()
    assert loss.dtype is d and x.grad.dtype is d
    ref = F.binary_cross_entropy_with_logits(openreg.tensor(X), openreg.tensor(T)).item()
    assert abs(loss.item() - ref) < 0.05 * abs(ref)
