"""openreg.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp): closed forms with NumPy, and the same
calls through torch.autograd.functional when PyTorch is installed."""
import numpy as np
import pytest

import openreg
from openreg.autograd import functional as AF

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

RNG = np.random.default_rng(0)
X = RNG.standard_normal(3)
Y = RNG.standard_normal((2, 3))


def test_jacobian_closed_form():
    x = openreg.tensor(X)
    j = AF.jacobian(lambda t: t.sin() * 2, x)
    np.testing.assert_allclose(j.numpy(), np.diag(2 * np.cos(X)))
    assert not j.requires_grad
    # matrix input, matrix output: out.shape + in.shape
    w = openreg.tensor(Y)
    j = AF.jacobian(lambda m: m @ x, w)
    expected = np.zeros((2, 2, 3))
    for i in range(2):
        expected[i, i] = X
    np.testing.assert_allclose(j.numpy(), expected)


def test_hessian_closed_form_and_tuple_inputs():
    x = openreg.tensor(X)
    h = AF.hessian(lambda t: (t ** 3).sum(), x)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * X))
    a, b = openreg.tensor(X), openreg.tensor(X[::-1].copy())
    h = AF.hessian(lambda p, q: (p * q * q).sum(), (a, b))
    np.testing.assert_allclose(h[0][0].numpy(), np.zeros((3, 3)))
    np.testing.assert_allclose(h[0][1].numpy(), np.diag(2 * X[::-1]))
    np.testing.assert_allclose(h[1][1].numpy(), np.diag(2 * X))


def test_products_closed_form():
    x, v = openreg.tensor(X), openreg.tensor(X[::-1].copy())
    out, g = AF.vjp(lambda t: t ** 2, x, v)
    np.testing.assert_allclose(out.numpy(), X ** 2)
    np.testing.assert_allclose(g.numpy(), 2 * X * X[::-1])
    _, t = AF.jvp(lambda t: t ** 2, x, v)
    np.testing.assert_allclose(t.numpy(), 2 * X * X[::-1])
    for fn in (AF.vhp, AF.hvp):
        _, r = fn(lambda t: (t ** 3).sum(), x, v)
        np.testing.assert_allclose(r.numpy(), 6 * X * X[::-1])


def test_create_graph_keeps_the_graph_and_unrelated_inputs_give_zeros():
    x = openreg.tensor(X, requires_grad=True)
    j = AF.jacobian(lambda t: t ** 3, x, create_graph=True)
    j.trace().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X)
    z = openreg.tensor(X)
    j = AF.jacobian(lambda p, q: p * 2, (x.detach(), z))
    np.testing.assert_allclose(j[1].numpy(), np.zeros((3, 3)))


def test_errors():
    x = openreg.tensor(X)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent of input 1"):
        AF.jacobian(lambda p, q: p * 2, (x, x.clone()), strict=True)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        AF.hessian(lambda t: t * 2, x)
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        AF.jacobian(lambda t: t, [x])
    with pytest.raises(RuntimeError, match="v has invalid size"):
        AF.vjp(lambda t: t * 2, x, openreg.ones(2))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.jacobian(lambda t: t, x, strategy="forward-mode")


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"])
def test_against_torch(name):
    def f(fw):
        return lambda a, b: ((a.tanh() @ b).exp() * a.sum()).sum() if name in ("hessian", "vhp", "hvp") else \
            (a.tanh() @ b, b.sin() * 3)

    a_np, b_np = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))
    ins = {fw: (fw.tensor(a_np), fw.tensor(b_np)) for fw in (openreg, torch)}
    extra = {}
    if name == "vjp":
        v = (RNG.standard_normal((2, 2)), RNG.standard_normal((3, 2)))
        extra = {fw: (tuple(fw.tensor(t) for t in v),) for fw in (openreg, torch)}
    elif name in ("jvp", "vhp", "hvp"):
        extra = {fw: (tuple(fw.tensor(t) for t in (a_np[::-1].copy(), b_np[::-1].copy())),) for fw in (openreg, torch)}
    else:
        extra = {openreg: (), torch: ()}
    ours = getattr(AF, name)(f(openreg), ins[openreg], *extra[openreg])
    theirs = getattr(torch.autograd.functional, name)(f(torch), ins[torch], *extra[torch])

    def flat(r):
        return [x for t in r for x in flat(t)] if isinstance(r, tuple) else [r]

    o, t = flat(ours), flat(theirs)
    assert len(o) == len(t)
    for a, b in zip(o, t):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
