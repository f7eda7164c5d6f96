"""openreg.func (functional_call, stack_module_state, grad, grad_and_value, vjp, jacrev, hessian) and
openreg.nn.utils.stateless.functional_call: closed forms with NumPy, and torch.func when PyTorch is installed."""
import warnings

import numpy as np
import pytest

import openreg
from openreg import func as F_

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

RNG = np.random.default_rng(0)


def _linear():
    m = openreg.nn.Linear(3, 2)
    return m, {"weight": openreg.tensor(RNG.standard_normal((2, 3))).float(),
               "bias": openreg.tensor(RNG.standard_normal(2)).float()}


def test_functional_call_uses_given_tensors_and_restores():
    m, p = _linear()
    w0, b0 = m.weight, m.bias
    x = openreg.tensor(RNG.standard_normal((4, 3))).float()
    out = F_.functional_call(m, p, (x,))
    np.testing.assert_allclose(out.detach().numpy(), x.numpy() @ p["weight"].numpy().T + p["bias"].numpy(), rtol=1e-6)
    assert m.weight is w0 and m.bias is b0 and isinstance(m.weight, openreg.nn.Parameter)
    # a sequence of dicts, a single non-tuple argument, kwargs
    out2 = F_.functional_call(m, ({"weight": p["weight"]}, {"bias": p["bias"]}), x)
    np.testing.assert_array_equal(out.detach().numpy(), out2.detach().numpy())
    # a partial dict keeps the module's other tensors
    out3 = F_.functional_call(m, {"bias": p["bias"]}, x)
    np.testing.assert_allclose(out3.detach().numpy(), x.numpy() @ w0.detach().numpy().T + p["bias"].numpy(), rtol=1e-6)


def test_functional_call_restores_after_an_error_and_buffers():
    bn = openreg.nn.BatchNorm1d(3)
    bn.eval()
    mean = openreg.tensor([1.0, 2.0, 3.0])
    out = F_.functional_call(bn, {"running_mean": mean}, openreg.tensor([[1.0, 2.0, 3.0]]))
    np.testing.assert_allclose(out.detach().numpy(), np.zeros((1, 3)), atol=1e-6)
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0]
    m, p = _linear()
    w0 = m.weight
    with pytest.raises(RuntimeError):
        F_.functional_call(m, p, openreg.ones(4, 5))
    assert m.weight is w0 and m.bias is not p["bias"]


def test_functional_call_errors_and_tied_weights():
    m, p = _linear()
    with pytest.raises(RuntimeError, match=r"Error\(s\) in reparametrizing for Linear:\n\tMissing key\(s\): 'bias'"):
        F_.functional_call(m, {"weight": p["weight"]}, openreg.ones(1, 3), strict=True)
    with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'other'"):
        F_.functional_call(m, dict(p, other=openreg.ones(1)), openreg.ones(1, 3), strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        F_.functional_call(m, (p, {"bias": p["bias"]}), openreg.ones(1, 3))
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict"):
        F_.functional_call(m, 3, openreg.ones(1, 3))
    # tied: one Linear used twice under two names
    lin = openreg.nn.Linear(2, 2, bias=False)
    net = openreg.nn.Sequential(lin, lin)
    w = openreg.eye(2) * 2
    out = F_.functional_call(net, {"0.weight": w}, openreg.ones(1, 2))
    assert out.tolist() == [[4.0, 4.0]]
    with pytest.raises(ValueError, match="which are tied"):
        F_.functional_call(net, {"0.weight": w, "1.weight": w * 3}, openreg.ones(1, 2))
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        openreg.nn.utils.stateless.functional_call(m, p, openreg.ones(1, 3))
    assert any(issubclass(x.category, FutureWarning) and "torch.func.functional_call" in str(x.message) for x in ws)


def test_grad_with_functional_call_and_closed_forms():
    m, p = _linear()
    x = openreg.tensor(RNG.standard_normal((4, 3))).float()

    def loss(params, x):
        return F_.functional_call(m, params, (x,)).pow(2).sum()

    g = F_.grad(loss)(p, x)
    y = x.numpy() @ p["weight"].numpy().T + p["bias"].numpy()
    np.testing.assert_allclose(g["weight"].numpy(), 2 * y.T @ x.numpy(), rtol=1e-5)
    np.testing.assert_allclose(g["bias"].numpy(), 2 * y.sum(0), rtol=1e-5)
    assert not g["weight"].requires_grad and m.weight.grad is None
    gv, (val, aux) = F_.grad_and_value(lambda a, b: ((a * b).sum(), a.sum()), argnums=(0, 1), has_aux=True)(
        openreg.tensor([1.0, 2.0]), openreg.tensor([3.0, 4.0]))
    assert gv[0].tolist() == [3.0, 4.0] and gv[1].tolist() == [1.0, 2.0] and val.item() == 11.0 and aux.item() == 3
    # nesting: the third derivative of x**4 at 2 is 48
    assert F_.grad(F_.grad(F_.grad(lambda t: t ** 4)))(openreg.tensor(2.0)).item() == 48.0
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        F_.grad(lambda t: t * 2)(openreg.ones(2))


def test_vjp_jacrev_hessian_and_stack_module_state():
    x = openreg.tensor(RNG.standard_normal(3))
    out, fn = F_.vjp(lambda t: t.sin(), x)
    np.testing.assert_allclose(out.numpy(), np.sin(x.numpy()))
    (g,) = fn(openreg.ones(3))
    np.testing.assert_allclose(g.numpy(), np.cos(x.numpy()))
    np.testing.assert_allclose(F_.jacrev(lambda t: t.sin())(x).numpy(), np.diag(np.cos(x.numpy())))
    np.testing.assert_allclose(F_.hessian(lambda t: t.sin().sum())(x).numpy(), np.diag(-np.sin(x.numpy())))
    models = [openreg.nn.Linear(3, 2) for _ in range(3)]
    params, buffers = F_.stack_module_state(models)
    assert tuple(params["bias"].shape) == (3, 2) and params["bias"].requires_grad and buffers == {}
    np.testing.assert_array_equal(params["weight"][1].detach().numpy(), models[1].weight.detach().numpy())


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_against_torch_func():
    w_np, x_np = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))
    res = {}
    for fw in (openreg, torch):
        m = fw.nn.Linear(3, 2).double()
        params = {"weight": fw.tensor(w_np), "bias": fw.zeros(2, dtype=fw.float64)}
        x = fw.tensor(x_np)

        def loss(p, x, fw=fw, m=m):
            return fw.func.functional_call(m, p, (x,)).tanh().pow(2).sum()

        g = fw.func.grad(loss)(params, x)
        jac = fw.func.jacrev(lambda p, x, fw=fw, m=m: fw.func.functional_call(m, p, (x,)), argnums=1)(params, x)
        hes = fw.func.hessian(lambda t, fw=fw: (t.sin() * t.sum()).sum())(x[0])
        res[fw] = [g["weight"], g["bias"], jac, hes]
    for a, b in zip(res[openreg], res[torch]):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
