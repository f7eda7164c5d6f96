"""``hardsigmoid``/``hardswish`` as PyTorch's operators against torch 2.13: values and gradients bit for bit in
float32/float64/float16/bfloat16 (exactly +-3 included; float64's hardsigmoid gradient uses a float32 1/6, as
PyTorch's CPU kernel), double backward in float64, the in-place forms under autograd and the integer error, on
the CPU and the device."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

_X = np.concatenate([[-3.5, -3.0, -2.9, 0.0, 1.7, 2.9, 3.0, 3.1, -0.0],
                     np.random.default_rng(0).uniform(-4.5, 4.5, 200)])


def _np(t):
    return np.array(t.detach().cpu().float().tolist() if hasattr(t, "tolist") else t)


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_values_and_gradients_match_torch(devices, name, dtype):
    g = np.random.default_rng(1).standard_normal(_X.size)
    res = []
    for lib, dev in ((torch, "cpu"), (openreg, devices)):
        dt = getattr(lib, dtype)
        x = lib.tensor(_X, dtype=dt, device=dev, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x)
        y.backward(lib.tensor(g, dtype=dt, device=dev))
        assert y.dtype == dt and x.grad.dtype == dt
        res.append((_np(y), _np(x.grad), y.grad_fn.name()))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])
    assert res[1][2] == res[0][2]


def test_hardsigmoid_double_backward_through_self_raises_as_torch():
    for lib in (torch, openreg):
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        (gx,) = lib.autograd.grad(lib.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
            gx.sum().backward()


@pytest.mark.parametrize("name", ["hardswish"])
def test_double_backward_matches_torch(devices, name):
    res = []
    for lib, dev in ((torch, "cpu"), (openreg, devices)):
        x = lib.tensor(_X[:40], dtype=lib.float64, device=dev, requires_grad=True)
        g = lib.tensor(np.linspace(-1, 1, 40), dtype=lib.float64, device=dev, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x)
        (gx,) = lib.autograd.grad(y, x, g, create_graph=True)
        (gx * gx).sum().backward()
        res.append((_np(gx), _np(x.grad), _np(g.grad)))
    for o, t in zip(res[1], res[0]):
        np.testing.assert_allclose(o, t, rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
def test_inplace_under_autograd_matches_torch(devices, name):
    res = []
    for lib, dev in ((torch, "cpu"), (openreg, devices)):
        x = lib.tensor(_X[:20], device=dev, requires_grad=True)
        y = x * 1.5
        out = getattr(lib.nn.functional, name)(y, inplace=True)
        assert out is y
        (out * out).sum().backward()
        res.append((_np(out), _np(x.grad)))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
def test_integer_input_raises_as_torch(name):
    msgs = []
    for lib in (torch, openreg):
        with pytest.raises(NotImplementedError) as info:
            getattr(lib.nn.functional, name)(lib.tensor([1, 2]))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
