"""The activation functions and modules added for real programs (hardtanh, relu6, hardsigmoid, hardswish, mish,
selu, celu, logsigmoid, softsign, tanhshrink, softshrink, hardshrink, threshold, glu, prelu, rrelu, softmax2d
and the in-place ``*_`` forms) compared with PyTorch: outputs and input gradients on the CPU and the device,
reprs, errors."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

tc = pytest.importorskip("torch_compare")
torch = tc.torch
TF = torch.nn.functional

CALLS = {
    "hardtanh": lambda f, x: f.hardtanh(x, -0.5, 0.7),
    "relu6": lambda f, x: f.relu6(x * 4),
    "hardsigmoid": lambda f, x: f.hardsigmoid(x * 4),
    "hardswish": lambda f, x: f.hardswish(x * 4),
    "mish": lambda f, x: f.mish(x),
    "selu": lambda f, x: f.selu(x),
    "celu": lambda f, x: f.celu(x, 1.5),
    "logsigmoid": lambda f, x: f.logsigmoid(x * 10),
    "softsign": lambda f, x: f.softsign(x),
    "tanhshrink": lambda f, x: f.tanhshrink(x),
    "softshrink": lambda f, x: f.softshrink(x, 0.3),
    "hardshrink": lambda f, x: f.hardshrink(x, 0.3),
    "threshold": lambda f, x: f.threshold(x, 0.1, -2.0),
    "glu": lambda f, x: f.glu(x, 1),
    "rrelu_eval": lambda f, x: f.rrelu(x, 0.1, 0.3),
    "leaky_relu_": lambda f, x: f.leaky_relu_(x * 1, 0.2),
    "elu_": lambda f, x: f.elu_(x * 1),
    "relu_": lambda f, x: f.relu_(x * 1),
    "hardtanh_": lambda f, x: f.hardtanh_(x * 1),
    "threshold_": lambda f, x: f.threshold_(x * 1, 0.2, 5.0),
    "selu_": lambda f, x: f.selu_(x * 1),
    "celu_": lambda f, x: f.celu_(x * 1, 0.5),
    # in place on a tensor autograd records: mobilenet_v3's nn.Hardswish(inplace=True) in training
    "hardswish_inplace": lambda f, x: f.hardswish(x * 4, inplace=True),
    "mish_inplace": lambda f, x: f.mish(x * 1, inplace=True),
    "hardsigmoid_inplace": lambda f, x: f.hardsigmoid(x * 4, inplace=True),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_activation_matches_torch(device, name):
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype("float32")
    tc.compare(lambda t: CALLS[name](F, t), lambda t: CALLS[name](TF, t), [x], device, grad=(0,), rtol=1e-5,
               atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("channels", [1, 4])
def test_prelu_matches_torch(device, channels):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 4, 3)).astype("float32"), rng.standard_normal(channels).astype("float32")
    tc.compare(F.prelu, TF.prelu, [x, w], device, grad=(0, 1))


def test_rrelu_training_draws_slopes_in_range():
    x = -openreg.ones(1000)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    assert float(y.max()) <= -0.1 and float(y.min()) >= -0.3 and float(y.std()) > 0.01
    assert F.rrelu(openreg.ones(3), training=True).tolist() == [1.0, 1.0, 1.0]


def test_activation_modules_repr_and_parameters_match_torch():
    pairs = [("Hardtanh", ()), ("ReLU6", (True,)), ("Threshold", (0.1, 20)), ("CELU", ()), ("SELU", ()),
             ("GLU", ()), ("Hardshrink", ()), ("Softshrink", (0.2,)), ("PReLU", (3,)), ("RReLU", ()),
             ("Hardswish", ()), ("Hardsigmoid", ()), ("Mish", ()), ("Softmax2d", ()), ("LogSigmoid", ()),
             ("Softsign", ()), ("Tanhshrink", ())]
    for name, args in pairs:
        ours, theirs = getattr(openreg.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(ours) == repr(theirs)
        assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    assert openreg.nn.PReLU(2, init=0.1).weight.tolist() == pytest.approx([0.1, 0.1])


@pytest.mark.parametrize("device", DEVICES)
def test_activation_modules_match_torch(device):
    x = np.random.default_rng(2).standard_normal((2, 4, 3, 3)).astype("float32")
    for name, args in [("Softmax2d", ()), ("Hardswish", ()), ("PReLU", (4,)), ("GLU", (1,)), ("Threshold", (0.0, 1.0))]:
        tc.compare(getattr(openreg.nn, name)(*args).to(device), getattr(torch.nn, name)(*args), [x], device,
                   grad=(0,))


def test_activation_errors_match_torch():
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        F.glu(openreg.ones(3))
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(openreg.tensor(1.0))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(openreg.ones(2, 3), openreg.ones(2))
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(openreg.ones(2), -1.0)
    with pytest.raises(AssertionError, match=r"max_val \(1\) must be greater than min_val \(2\)"):
        openreg.nn.Hardtanh(2, 1)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(openreg.ones(2), 0.5, 0.1, training=True)
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(openreg.ones(2), 0.0)


BOUNDARY_CALLS = {
    "hardtanh": lambda f, x: f.hardtanh(x, -1.0, 1.0),
    "hardtanh_": lambda f, x: f.hardtanh_(x * 1, -1.0, 1.0),
    "relu6": lambda f, x: f.relu6(x + 1.0),
    "relu6_inplace": lambda f, x: f.relu6(x + 1.0, inplace=True),
    "hardsigmoid": lambda f, x: f.hardsigmoid(x * 3),
    "hardswish": lambda f, x: f.hardswish(x * 3),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BOUNDARY_CALLS))
def test_activation_gradient_at_the_bounds_matches_torch(device, dtype, name):
    # exact bound values (e.g. a ReLU6 fed zeros from a dead channel): PyTorch's hardtanh/relu6/hardsigmoid
    # gradients are zero there, where clamp's pass; hardswish's is 0 at -3 and 1 at 3
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dtype=dtype)
    tc.compare(lambda t: BOUNDARY_CALLS[name](F, t), lambda t: BOUNDARY_CALLS[name](TF, t), [x], device, grad=(0,),
               rtol=1e-6, atol=1e-7)


def test_hardtanh_records_hardtanh_backward_and_rejects_bool():
    x = openreg.tensor([0.0, 6.0], requires_grad=True)
    assert F.relu6(x).grad_fn.name() == TF.relu6(torch.zeros(2, requires_grad=True)).grad_fn.name()
    assert F.hardtanh(openreg.tensor([1, 2, 3]), 0, 2).tolist() == [1, 2, 2]
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.hardtanh(openreg.tensor([True]))
