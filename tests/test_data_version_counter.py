"""``x.data`` is a detached alias with a version counter of its own, as PyTorch's: writes through it are invisible
to autograd's "modified by an inplace operation" check. torchdiffeq's Runge-Kutta solvers fill their stage
scratch tensor through ``scratch.data[index] = value`` inside a custom Function and stopped at that check."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg


@pytest.mark.parametrize("lib_name", ["openreg", "torch"])
def test_writes_through_data_do_not_bump_the_version(lib_name):
    lib = openreg if lib_name == "openreg" else pytest.importorskip("torch")
    x = lib.zeros(4)
    v = x._version
    x.data[0] = 1.0
    x.data.add_(1.0)
    y = x[1:]
    y.data[0] = 5.0
    assert x._version == v and y._version == v
    assert x.tolist() == [2.0, 5.0, 1.0, 1.0]
    x.add_(1.0)                       # the tensor's own in-place ops still count
    assert x._version == v + 1
    d = x.data
    d.mul_(2.0)
    assert d._version == 1 and x._version == v + 1


def _stages(lib, device, a_np):
    """Fill a scratch tensor stage by stage through ``.data`` inside a custom Function (an explicit RK scheme's
    pattern), reading earlier stages in between; the gradient flows through the Function's backward."""
    class Assign(lib.autograd.Function):
        @staticmethod
        def forward(ctx, scratch, value, index):
            ctx.index = index
            scratch.data[index] = value
            return scratch

        @staticmethod
        def backward(ctx, grad):
            return grad, grad[ctx.index], None

    a = lib.tensor(a_np, requires_grad=True, device=device) if lib is openreg else lib.tensor(a_np, requires_grad=True)
    c = lib.tensor(0.5, dtype=a.dtype, device=a.device, requires_grad=True)   # mul then saves the stage slice
    k = lib.empty(3, 4, dtype=a.dtype, device=a.device)
    k = Assign.apply(k, a, (..., 0))
    for i in range(1, 4):
        y = a + (k[..., :i] * c).sum(-1)
        k = Assign.apply(k, lib.tanh(y), (..., i))
    (k * k).sum().backward()
    return k.detach().cpu().numpy(), a.grad.cpu().numpy(), c.grad.cpu().numpy()


@pytest.mark.parametrize("device", DEVICES)
def test_a_custom_function_filling_scratch_through_data_backpropagates_as_pytorch(device):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal(3)
    ours, theirs = _stages(openreg, device, a), _stages(torch, "cpu", a)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-14)
