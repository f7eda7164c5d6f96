"""A backward pass without create_graph computes some gradients on the arrays (operators/_host_path.py: the bias
gradient's sum, ReLU's threshold_backward, mm): the bits must be those of the operators, which create_graph uses,
and a CPU kernel registered over one of those operators must still be the one called."""
import warnings

import numpy as np
import pytest

import openreg
from openreg.autograd import _ops as autograd_ops
from openreg.operators import unary


def N(t):
    return t.detach().numpy()


def _grads(build, create_graph):
    openreg.manual_seed(0)
    params, loss = build()
    loss.backward(create_graph=create_graph)
    return [N(p.grad).copy() for p in params]


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("rows,width", [(4, 6), (64, 256), (600, 256)])   # the last splits sum across threads
def test_mlp_backward_on_arrays_has_the_operators_bits(dtype, rows, width):
    def build():
        model = openreg.nn.Sequential(openreg.nn.Linear(width, width, dtype=dtype), openreg.nn.ReLU(),
                                      openreg.nn.Linear(width, 10, dtype=dtype))
        x = openreg.randn(rows, width, dtype=dtype)
        y = openreg.randint(0, 10, (rows,))
        loss = openreg.nn.functional.cross_entropy(model(x), y) + model(x.t().contiguous().t()).relu().sum()
        return list(model.parameters()), loss
    taken = {"sum": [], "relu": []}
    spies = {}
    for name, module in (("sum", autograd_ops), ("relu", unary)):
        real = module.plain_cpu_arrays

        def spy(overload, *tensors, _real=real, _name=name):
            out = _real(overload, *tensors)
            taken[_name].append(out is not None)
            return out
        spies[name] = (module, real)
        module.plain_cpu_arrays = spy
    try:
        fast_grads, slow_grads = _grads(build, False), _grads(build, True)
    finally:
        for module, real in spies.values():
            module.plain_cpu_arrays = real
    for name, flags in taken.items():      # the shortcut without create_graph, the operators with it
        assert any(flags) and not all(flags), name
    for fast, slow in zip(fast_grads, slow_grads):
        assert fast.dtype == slow.dtype and fast.tobytes() == slow.tobytes()


def test_relu_gradient_passes_nan_inputs_and_zeroes_the_rest():
    x = openreg.tensor([-1.0, 0.0, 2.0, float("nan")], requires_grad=True)
    x.relu().backward(openreg.tensor([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(N(x.grad), [0.0, 0.0, 3.0, 4.0])


@pytest.mark.parametrize("op,kernel_args", [("sum.dim_IntList", "self, dim, keepdim=False, *, dtype=None"),
                                            ("threshold_backward", "grad_output, self, threshold")])
def test_backward_calls_a_registered_cpu_kernel(op, kernel_args):
    """A CPU kernel registered over the operator (openreg.library) runs in the backward pass, not the arrays."""
    from openreg.library import Library
    calls = []
    if op == "sum.dim_IntList":
        def kernel(self, dim, keepdim=False, *, dtype=None):
            calls.append(op)
            return openreg.from_numpy(N(self).sum(axis=tuple(dim), keepdims=keepdim))
    else:
        def kernel(grad_output, self, threshold):
            calls.append(op)
            return openreg.from_numpy(np.where(N(self) <= threshold, 0, N(grad_output)).astype(np.float32))
    lib = Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # "overriding a previously registered kernel"
            lib.impl(op, kernel, "CPU")
        lin = openreg.nn.Linear(4, 3)
        x = openreg.randn(5, 4)
        calls.clear()
        lin(x).relu().sum().backward()
    finally:
        lib._destroy()
    assert op in calls
    assert lin.bias.grad.shape == (3,) and lin.weight.grad.shape == (3, 4)


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("fn", ["sigmoid", "tanh"])
def test_sigmoid_tanh_backward_on_arrays_has_the_operators_bits(dtype, fn):
    """sigmoid/tanh backward on the arrays (a scalar loss's broadcast gradient, a row-major one) against the
    fused operator create_graph calls; a transposed result takes the operator in both."""
    def build():
        x = openreg.randn(6, 9, dtype=dtype, requires_grad=True)
        w = openreg.randn(6, 9, dtype=dtype)
        f = getattr(openreg, fn)
        loss = f(x).sum() + (f(x * 3) * w).sum() + (f(x.t()) * w.t()).sum()
        return [x], loss
    taken = []
    real = unary.plain_cpu_arrays

    def spy(overload, *tensors):
        out = real(overload, *tensors)
        taken.append(out is not None and out[1].flags.c_contiguous)
        return out
    unary.plain_cpu_arrays = spy
    try:
        fast, slow = _grads(build, False), _grads(build, True)
    finally:
        unary.plain_cpu_arrays = real
    assert taken.count(True) == 2 and not all(taken)
    assert fast[0].tobytes() == slow[0].tobytes()


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_accumulating_into_grad_on_arrays_has_add_s_bits_and_version(dtype):
    """A second backward adds into the existing .grad in place (on the arrays without create_graph): the same
    tensor, its version bumped once as add_ bumps it, the bits of create_graph's out-of-place add."""
    from openreg.autograd import accumulate_grad
    x = openreg.randn(5, 7, dtype=dtype, requires_grad=True)
    w = openreg.randn(5, 7, dtype=dtype)
    (x * w).sigmoid().sum().backward()
    first = x.grad
    version = first._version
    taken = []
    real = accumulate_grad.plain_cpu_arrays

    def spy(overload, *tensors):
        out = real(overload, *tensors)
        taken.append(out is not None)
        return out
    accumulate_grad.plain_cpu_arrays = spy
    try:
        (x * w * 3).tanh().sum().backward()
    finally:
        accumulate_grad.plain_cpu_arrays = real
    assert taken == [True]
    assert x.grad is first and first._version == version + 1
    y = openreg.tensor(x.detach().numpy(), requires_grad=True)
    (y * w).sigmoid().sum().backward(create_graph=True)
    (y * w * 3).tanh().sum().backward(create_graph=True)
    assert N(x.grad).tobytes() == N(y.grad).tobytes()
