"""Convolution and normalization layers under ``create_graph``: their backward is itself differentiable
(gradient penalties through convolutional critics with LayerNorm/GroupNorm/BatchNorm/InstanceNorm, second-order
meta-learning), as PyTorch's double backwards; and the single-call backward kernels agree with NumPy."""
import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:     # the comparisons with PyTorch skip; the gradchecks and NumPy ones run
    torch = None

F = openreg.nn.functional


def _leaf(*shape, seed=0):
    rng = np.random.default_rng(seed + len(shape))
    return openreg.tensor(rng.standard_normal(shape) + 0.5, dtype=openreg.float64).requires_grad_()


NORMS = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (3, 4), w, b), (2, 3, 4), (3, 4)),
    "layer_norm_plain": (lambda x, w, b: F.layer_norm(x, (4,)), (3, 4), None),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), (2, 4, 3), (4,)),
    "group_norm_plain": (lambda x, w, b: F.group_norm(x, 2), (2, 4, 3), None),
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (4, 3, 2), (3,)),
    "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, openreg.tensor([0.1, -0.2, 0.3], dtype=openreg.float64),
                                                     openreg.tensor([1.5, 0.5, 2.0], dtype=openreg.float64), w, b,
                                                     training=False), (4, 3), (3,)),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (2, 3, 4), (3,)),
}
CONVS = {
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, padding=1), (2, 2, 5), (3, 2, 3), (3,)),
    "conv2d_stride_dilation": (lambda x, w, b: F.conv2d(x, w, b, stride=2, dilation=(1, 2), padding=1),
                               (1, 2, 5, 6), (2, 2, 2, 2), (2,)),
    "conv2d_groups": (lambda x, w, b: F.conv2d(x, w, b, groups=2), (1, 4, 4, 4), (2, 2, 3, 3), (2,)),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         (1, 2, 3, 3), (2, 3, 2, 2), (3,)),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_convolution_gradgradcheck(name):
    fn, xs, ws, bs = CONVS[name]
    inputs = (_leaf(*xs), _leaf(*ws, seed=1), _leaf(*bs, seed=2))
    assert openreg.autograd.gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name", sorted(NORMS))
def test_norm_gradgradcheck(name):
    fn, shape, pshape = NORMS[name]
    inputs = (_leaf(*shape),) + ((_leaf(*pshape, seed=1), _leaf(*pshape, seed=2)) if pshape else ())
    f = fn if pshape else (lambda x: fn(x, None, None))
    assert openreg.autograd.gradcheck(f, inputs)
    assert openreg.autograd.gradgradcheck(f, inputs)


def test_second_order_keeps_first_order_values():
    # the differentiable path gives the same first-order gradient as the kernel path (to rounding)
    x, w, b = _leaf(2, 4, 3), _leaf(4, seed=1), _leaf(4, seed=2)
    y = F.group_norm(x, 2, w, b)
    gout = openreg.ones_like(y) * openreg.arange(24, dtype=openreg.float64).reshape(2, 4, 3)
    plain = openreg.autograd.grad(y, (x, w, b), gout, retain_graph=True)
    graph = openreg.autograd.grad(y, (x, w, b), gout, create_graph=True)
    for p, q in zip(plain, graph):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert graph[0].grad_fn is not None


def test_group_norm_backward_matches_numpy_float64():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 6, 5)) + 4.0
    w, b, g = rng.standard_normal(6), rng.standard_normal(6), rng.standard_normal((3, 6, 5))
    xt = openreg.tensor(x).requires_grad_()
    wt, bt = openreg.tensor(w).requires_grad_(), openreg.tensor(b).requires_grad_()
    F.group_norm(xt, 3, wt, bt).backward(openreg.tensor(g))
    # reference: autodiff-free formulas in float64
    xg = x.reshape(3, 3, -1)
    mu, var = xg.mean(-1, keepdims=True), xg.var(-1, keepdims=True)
    r = 1 / np.sqrt(var + 1e-5)
    xhat = ((xg - mu) * r).reshape(3, 6, 5)
    gx = (g * w[None, :, None]).reshape(3, 3, -1)
    xh = xhat.reshape(3, 3, -1)
    gi = r * (gx - gx.mean(-1, keepdims=True) - xh * (gx * xh).mean(-1, keepdims=True))
    np.testing.assert_allclose(xt.grad.numpy(), gi.reshape(3, 6, 5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wt.grad.numpy(), (g * xhat).sum((0, 2)), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(bt.grad.numpy(), g.sum((0, 2)), rtol=1e-12)


def test_group_norm_backward_rejects_mismatched_statistics():
    x = openreg.randn(2, 4, 3)
    with pytest.raises(RuntimeError, match="Expect mean to have 4 elements"):
        openreg.ops.aten.native_group_norm_backward(x, x, openreg.zeros(3), openreg.ones(4), None, 2, 4, 3, 2,
                                                    [True, False, False])


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("layer", ["LayerNorm", "GroupNorm", "BatchNorm1d", "InstanceNorm1d"])
def test_gradient_penalty_matches_torch(layer):
    """A WGAN-GP style penalty through a critic with a normalization layer: parameter gradients as torch's."""
    rng = np.random.default_rng(5)
    xa = rng.standard_normal((4, 6, 8)).astype(np.float64)
    results = []
    for lib in (openreg, torch):
        lib.manual_seed(0)
        nn = lib.nn
        norm = {"LayerNorm": nn.LayerNorm(8), "GroupNorm": nn.GroupNorm(3, 6), "BatchNorm1d": nn.BatchNorm1d(6),
                "InstanceNorm1d": nn.InstanceNorm1d(6, affine=True)}[layer]
        critic = lib.nn.Sequential(lib.nn.Conv1d(6, 6, 3, padding=1), norm, lib.nn.Tanh(),
                                   lib.nn.Flatten(), lib.nn.Linear(48, 1)).double()
        with lib.no_grad():
            for k, p in enumerate(critic.parameters()):
                p.copy_(lib.tensor(np.sin(np.arange(p.numel()) + k).reshape(tuple(p.shape))))
        x = lib.tensor(xa).requires_grad_()
        out = critic(x)
        (gx,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        penalty = ((gx.flatten(1).norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        results.append([None if p.grad is None else p.grad.detach().numpy() for p in critic.parameters()])
    assert [a is None for a in results[0]] == [b is None for b in results[1]]   # the last bias: no gradient
    for a, b in zip(*results):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
