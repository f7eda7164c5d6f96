"""channels_last through a CNN, as PyTorch's CPU kernels: a 2-d convolution's result is channels_last when its input
or weight is, and so are BatchNorm2d's, ReLU's and the 2-d poolings' results of a channels_last input; the values
(forward and gradients) are bitwise those of the contiguous layout."""
import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # the comparisons with PyTorch skip; the others run
    torch = None

DEVICES = ["cpu", "privateuseone"]


def _net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(
        lib.nn.Conv2d(3, 8, 3, padding=1), lib.nn.BatchNorm2d(8), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
        lib.nn.Conv2d(8, 8, 3, padding=1, stride=2, groups=2), lib.nn.BatchNorm2d(8), lib.nn.ReLU(),
        lib.nn.AvgPool2d(2), lib.nn.ConvTranspose2d(8, 4, 2, stride=2), lib.nn.AdaptiveAvgPool2d(3),
        lib.nn.AdaptiveAvgPool2d(1), lib.nn.Flatten(), lib.nn.Linear(4, 5))


def _run(lib, x_np, weights, *, input_cl: bool, model_cl: bool, device="cpu"):
    """Per layer output strides, the output, x.grad and the parameters' grads (with their strides)."""
    net = _net(lib)
    with lib.no_grad():
        for p, w in zip(net.parameters(), weights):
            p.copy_(lib.tensor(w))
    net = net.to(device)
    if model_cl:
        net = net.to(memory_format=lib.channels_last)
    strides = []
    for layer in net:
        layer.register_forward_hook(lambda mod, args, out: strides.append(tuple(out.stride())))
    x = lib.tensor(x_np).to(device)
    if input_cl:
        x = x.to(memory_format=lib.channels_last)
    x.requires_grad_()
    y = net(x)
    (y * y).sum().backward()
    grads = [(tuple(p.grad.stride()), p.grad.cpu().numpy()) for p in net.parameters()]
    return strides, y.detach().cpu().numpy(), (tuple(x.grad.stride()), x.grad.cpu().numpy()), grads


RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)
WEIGHTS = [RNG.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3 for p in _net(openreg).parameters()]
LAYOUTS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")
@pytest.mark.parametrize(("input_cl", "model_cl"), LAYOUTS)
def test_strides_match_torch(input_cl, model_cl):
    ours = _run(openreg, X, WEIGHTS, input_cl=input_cl, model_cl=model_cl)
    theirs = _run(torch, X, WEIGHTS, input_cl=input_cl, model_cl=model_cl)
    assert ours[0] == theirs[0]                                    # every layer's output strides
    assert ours[2][0] == theirs[2][0]                              # x.grad's strides
    assert [g[0] for g in ours[3]] == [g[0] for g in theirs[3]]    # the parameters' grads' strides
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[2][1], theirs[2][1], rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("input_cl", "model_cl"), LAYOUTS[1:])
def test_channels_last_is_carried_and_values_are_bitwise_the_contiguous_ones(device, input_cl, model_cl):
    strides, y, (_, gx), grads = _run(openreg, X, WEIGHTS, input_cl=input_cl, model_cl=model_cl, device=device)
    _, y0, (_, gx0), grads0 = _run(openreg, X, WEIGHTS, input_cl=False, model_cl=False, device=device)
    # conv, bn, relu, maxpool, conv, bn, relu, avgpool, conv_transpose, adaptive(3): channels_last 4-d results
    for size, st in zip([(2, 8, 16, 16), (2, 8, 16, 16), (2, 8, 16, 16), (2, 8, 8, 8), (2, 8, 4, 4), (2, 8, 4, 4),
                         (2, 8, 4, 4), (2, 8, 2, 2), (2, 4, 4, 4), (2, 4, 3, 3)], strides):
        cl = openreg.empty_strided(size, st)
        assert cl.is_contiguous(memory_format=openreg.channels_last) and not cl.is_contiguous(), (size, st)
    assert strides[10] == (4, 1, 4, 4)        # the global average pool keeps channels_last strides (as PyTorch)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(gx, gx0)
    for (_, a), (_, b) in zip(grads, grads0):
        np.testing.assert_array_equal(a, b)


def test_meta_strides_follow_the_cpu_kernels():
    F = openreg.nn.functional
    cl = openreg.channels_last
    x = openreg.randn(2, 4, 8, 8).to(memory_format=cl)
    w = openreg.randn(6, 4, 3, 3)
    for f in (lambda t, w: F.conv2d(t, w, padding=1), lambda t, w: F.conv2d(t, w.contiguous(memory_format=cl)),
              lambda t, w: F.max_pool2d(t, 2), lambda t, w: F.avg_pool2d(t, 2),
              lambda t, w: F.adaptive_avg_pool2d(t, 3), lambda t, w: F.conv_transpose2d(t, w.transpose(0, 1))):
        for inp in (x, x.contiguous()):
            cpu = f(inp, w)
            meta = f(inp.to("meta"), w.to("meta"))
            assert meta.stride() == cpu.stride() and meta.shape == cpu.shape
    assert F.max_pool2d_with_indices(x, 2)[1].stride() == F.max_pool2d(x, 2).stride()   # indices as the values


def test_contiguous_inputs_keep_contiguous_results():
    F = openreg.nn.functional
    x, w = openreg.randn(2, 4, 8, 8), openreg.randn(6, 4, 3, 3)
    for y in (F.conv2d(x, w), F.max_pool2d(x, 2), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, 1),
              F.conv2d(openreg.randn(4, 8, 8), w)):
        assert y.is_contiguous()


@pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")
@pytest.mark.parametrize("which", ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"])
def test_pooling_input_gradients_take_the_input_layout_as_torch(which):
    fn = {"max_pool2d": lambda F, t: F.max_pool2d(t, 2), "avg_pool2d": lambda F, t: F.avg_pool2d(t, 2),
          "adaptive_avg_pool2d": lambda F, t: F.adaptive_avg_pool2d(t, 3)}[which]
    seen = []
    for lib in (openreg, torch):
        x = lib.tensor(X[:, :, :8, :8]).to(memory_format=lib.channels_last).requires_grad_()
        y = fn(lib.nn.functional, x)
        g = lib.ones(tuple(y.shape))            # a contiguous incoming gradient
        (gi,) = lib.autograd.grad(y, x, g)
        seen.append((tuple(y.stride()), tuple(gi.stride()), gi.numpy()))
    assert seen[0][:2] == seen[1][:2]
    np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-6)
