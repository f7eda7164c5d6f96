"""openreg.func.vmap, jvp, jacfwd, linearize (and forward over reverse / reverse over forward): values against
NumPy closed forms and finite differences, PyTorch's errors, and torch.func when PyTorch is installed."""
import numpy as np
import pytest

import openreg
from openreg import func as F_

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)


def t(a, **kw):
    return openreg.tensor(np.asarray(a, dtype=np.float64), **kw)


def f_np(x):       # f(x) = sin(x) * sum(x), with its Jacobian and the Hessian of its sum
    return np.sin(x) * x.sum()


def jac_np(x):
    return np.diag(np.cos(x) * x.sum()) + np.sin(x)[:, None]


def hess_sum_np(x):
    s, c = np.sin(x), np.cos(x)
    return np.diag(-s * x.sum() + 2 * c) + c[:, None] + c[None, :] - 2 * np.diag(c)


def f(x):
    return x.sin() * x.sum()


# -- vmap ------------------------------------------------------------------------------------------------------

def test_vmap_in_dims_out_dims_and_trees():
    x, w = t(X), t(V)
    np.testing.assert_allclose(F_.vmap(openreg.dot, in_dims=(0, None))(x, w).numpy(), X @ V)
    np.testing.assert_allclose(F_.vmap(lambda c: c * 2, in_dims=1, out_dims=1)(x).numpy(), X * 2)
    np.testing.assert_allclose(F_.vmap(lambda c: c.sum(), in_dims=-1)(x).numpy(), X.sum(0))
    np.testing.assert_allclose(F_.vmap(f)(x).numpy(), np.stack([f_np(r) for r in X]))
    out = F_.vmap(lambda d, s: {"a": d["x"] * s, "b": (d["y"].sum(), d["x"])}, in_dims=({"x": 1, "y": 0}, None),
                  out_dims={"a": 0, "b": (0, 1)})({"x": x, "y": x.T}, 3.0)
    np.testing.assert_allclose(out["a"].numpy(), X.T * 3)
    np.testing.assert_allclose(out["b"][0].numpy(), X.sum(0))
    np.testing.assert_allclose(out["b"][1].numpy(), X)
    # tuples of outputs, out_dims None for an unbatched output, keyword arguments passed whole
    a, b = F_.vmap(lambda r, k=1.0: (r * k, w), out_dims=(0, None))(x, k=2.0)
    np.testing.assert_allclose(a.numpy(), 2 * X)
    assert b is w
    # nested vmap is an outer product here; chunk_size does not change values
    np.testing.assert_allclose(F_.vmap(F_.vmap(openreg.mul, in_dims=(None, 0)), in_dims=(0, None))(t(V), t(V)).numpy(),
                               np.outer(V, V))
    np.testing.assert_allclose(F_.vmap(f, chunk_size=2)(x).numpy(), F_.vmap(f)(x).numpy())
    assert openreg.vmap is F_.vmap
    # an empty batch keeps the shapes
    assert tuple(F_.vmap(lambda r: r.sum(0))(openreg.zeros(0, 3, 2)).shape) == (0, 2)


def test_vmap_gradients_reach_batched_and_captured_tensors():
    x, w = t(X, requires_grad=True), t(V, requires_grad=True)
    y = F_.vmap(lambda r: (r * w).tanh().sum())(x)
    (y ** 2).sum().backward()
    th = np.tanh(X * V)
    s = th.sum(1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), 2 * s * (1 - th ** 2) * V, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), (2 * s * (1 - th ** 2) * X).sum(0), rtol=1e-12)
    # func may modify its slice of a batched input in place (the slices are single views)
    leaf = t(X, requires_grad=True)
    y = leaf * 1
    z = F_.vmap(lambda r: r.mul_(2))(y)
    np.testing.assert_allclose(y.detach().numpy(), 2 * X)
    z.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.full((3, 4), 2.0))


def test_vmap_per_sample_gradients_and_ensembling():
    openreg.manual_seed(0)
    model = openreg.nn.Linear(4, 2).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = t(X), t(RNG.standard_normal((3, 2)))

    def loss(p, xi, yi):
        out = F_.functional_call(model, p, (xi.unsqueeze(0),))
        return ((out - yi.unsqueeze(0)) ** 2).mean()
    per = F_.vmap(F_.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(3):
        one = F_.grad(loss)(params, x[i], y[i])
        np.testing.assert_allclose(per["weight"][i].numpy(), one["weight"].numpy(), rtol=1e-12)
        r = X[i] @ params["weight"].numpy().T + params["bias"].numpy() - y[i].numpy()
        np.testing.assert_allclose(per["bias"][i].numpy(), r, rtol=1e-12)   # d mean(r^2)/db = 2r/2
    models = [openreg.nn.Linear(4, 2).double() for _ in range(5)]
    p, b = F_.stack_module_state(models)
    out = F_.vmap(lambda pp, bb, xx: F_.functional_call(models[0], (pp, bb), (xx,)), in_dims=(0, 0, None))(p, b, x)
    for i, m in enumerate(models):
        np.testing.assert_allclose(out[i].detach().numpy(), m(x).detach().numpy(), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(p["bias"].grad.numpy(), np.full((5, 2), 3.0))


def test_vmap_errors_are_pytorchs():
    x = t(X)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes"):
        F_.vmap(openreg.add)(x, openreg.ones(4))
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure of `inputs`"):
        F_.vmap(openreg.add, in_dims=(0,))(x, x)
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        F_.vmap(f, in_dims=[0])(x)
    with pytest.raises(ValueError, match="so expected in_dim to satisfy -2 <= in_dim < 2"):
        F_.vmap(f, in_dims=2)(x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        F_.vmap(lambda a, b: a * b)(x, 2.0)
    with pytest.raises(ValueError, match="Expected at least one Tensor to vmap over"):
        F_.vmap(f, in_dims=(None,))(x)
    with pytest.raises(ValueError, match="got no inputs"):
        F_.vmap(lambda: 1)()
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        F_.vmap(f, out_dims=None)(x)
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'int'>"):
        F_.vmap(lambda r: 3)(x)
    with pytest.raises(ValueError, match="out_dims is not compatible with the structure of `outputs`"):
        F_.vmap(lambda r: (r, r), out_dims=(0, 0, 0))(x)
    with pytest.raises(ValueError, match="`out_dims` must be an int, None or a python collection of ints"):
        F_.vmap(f, out_dims="0")(x)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F_.vmap(f, out_dims=2)(x)
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        F_.vmap(f, chunk_size=0)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'"):
        F_.vmap(f, randomness="other")


def test_vmap_randomness_modes():
    x = openreg.zeros(4, 3)
    state = openreg.get_rng_state()
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        F_.vmap(lambda r: r + openreg.rand(3))(x)
    assert openreg.get_rng_state().tolist() == state.tolist()      # nothing was drawn
    with pytest.raises(RuntimeError, match="randomness error mode"):   # an inner 'different' inside an outer 'error'
        F_.vmap(F_.vmap(lambda r: r + openreg.rand(()), randomness="different"))(x)
    same = F_.vmap(lambda r: r + openreg.rand(3), randomness="same")(x)
    assert all(np.array_equal(same[0].numpy(), same[i].numpy()) for i in range(4))
    openreg.manual_seed(1)
    same2 = F_.vmap(lambda r: openreg.nn.functional.dropout(r + 1, 0.5), randomness="same")(x)
    assert all(np.array_equal(same2[0].numpy(), same2[i].numpy()) for i in range(4))
    diff = F_.vmap(lambda r: r + openreg.rand(3), randomness="different")(x)
    assert len({tuple(row) for row in diff.numpy().tolist()}) == 4
    # nested: 'same' outside, 'different' inside -> rows equal, columns differ
    nested = F_.vmap(F_.vmap(lambda r: r + openreg.rand(()), randomness="different"), randomness="same")(x)
    assert all(np.array_equal(nested[0].numpy(), nested[i].numpy()) for i in range(4))
    assert len(set(nested[0].numpy().tolist())) == 3
    # 'same' consumes the generator as one element does
    openreg.manual_seed(5)
    F_.vmap(lambda r: r + openreg.rand(3), randomness="same")(x)
    after = openreg.rand(2)
    openreg.manual_seed(5)
    openreg.rand(3)
    np.testing.assert_array_equal(after.numpy(), openreg.rand(2).numpy())


# -- jvp, jacfwd, linearize --------------------------------------------------------------------------------------

def test_jvp_values_aux_and_errors():
    x, v = t(X[0]), t(V)
    out, tan = F_.jvp(f, (x,), (v,))
    np.testing.assert_allclose(out.numpy(), f_np(X[0]))
    np.testing.assert_allclose(tan.numpy(), jac_np(X[0]) @ V, rtol=1e-12)
    eps = 1e-6
    np.testing.assert_allclose(tan.numpy(), (f_np(X[0] + eps * V) - f_np(X[0] - eps * V)) / (2 * eps), rtol=1e-6)
    out, tan, aux = F_.jvp(lambda a, b: ((a * b, a + b), {"n": 1}), (x, x), (v, v), has_aux=True)
    np.testing.assert_allclose(tan[0].numpy(), 2 * X[0] * V)
    np.testing.assert_allclose(tan[1].numpy(), 2 * V)
    assert aux == {"n": 1}
    out, tan = F_.jvp(lambda d: d["a"].exp(), ({"a": x},), ({"a": v},))
    np.testing.assert_allclose(tan.numpy(), np.exp(X[0]) * V)
    _, tan = F_.jvp(lambda a: openreg.ones(2), (x,), (v,))
    assert tan.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="The output of f is independent of the inputs"):
        F_.jvp(lambda a: openreg.ones(2), (x,), (v,), strict=True)
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        F_.jvp(f, x, (v,))
    with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same python structure"):
        F_.jvp(f, (x,), (v, v))
    with pytest.raises(RuntimeError, match="expected f\\(\\*primals\\) to return only tensors"):
        F_.jvp(lambda a: 1.0, (x,), (v,))
    with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
        F_.jvp(f, (x,), (v,), has_aux=True)


def test_jacfwd_hessians_and_transform_compositions():
    x = t(X[0])
    np.testing.assert_allclose(F_.jacfwd(f)(x).numpy(), jac_np(X[0]), rtol=1e-12)
    np.testing.assert_allclose(F_.jacfwd(f)(x).numpy(), F_.jacrev(f)(x).numpy(), rtol=1e-12)
    h = hess_sum_np(X[0])
    s = lambda a: f(a).sum()
    np.testing.assert_allclose(F_.jacfwd(F_.jacrev(s))(x).numpy(), h, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(F_.jacfwd(F_.jacfwd(s))(x).numpy(), h, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(F_.jacrev(F_.jacfwd(s))(x).numpy(), h, rtol=1e-12, atol=1e-14)
    # forward over reverse (hvp), reverse over forward, results detached when nothing required grad
    _, hv = F_.jvp(F_.grad(s), (x,), (t(V),))
    np.testing.assert_allclose(hv.numpy(), h @ V, rtol=1e-12)
    g = F_.grad(lambda a: F_.jvp(s, (a,), (t(V),))[1])(x)
    np.testing.assert_allclose(g.numpy(), h @ V, rtol=1e-12)
    assert not F_.jacfwd(F_.jacrev(s))(x).requires_grad
    # tanh saves its output: the tangent of a saved output reaches the backward formula
    np.testing.assert_allclose(F_.jacfwd(F_.grad(lambda a: a.tanh().sum()))(x).numpy(),
                               np.diag(-2 * np.tanh(X[0]) * (1 - np.tanh(X[0]) ** 2)), rtol=1e-12, atol=1e-15)
    # argnums, trees and has_aux
    (ja, jb), aux = F_.jacfwd(lambda a, b: (a * b.sum(), a.sum()), argnums=(0, 1), has_aux=True)(x, t(V))
    np.testing.assert_allclose(ja.numpy(), np.eye(4) * V.sum())
    np.testing.assert_allclose(jb.numpy(), np.outer(X[0], np.ones(4)))
    np.testing.assert_allclose(aux.numpy(), X[0].sum())
    jd = F_.jacfwd(lambda d: {"y": d["w"] @ d["v"]})({"w": t(X), "v": t(V)})
    assert tuple(jd["y"]["w"].shape) == (3, 3, 4) and tuple(jd["y"]["v"].shape) == (3, 4)
    np.testing.assert_allclose(jd["y"]["v"].numpy(), X)
    # the Jacobian keeps the graph to inputs that require grad
    xr = t(X[0], requires_grad=True)
    F_.jacfwd(f)(xr).trace().backward()
    eps, e = 1e-6, np.eye(4)
    fd = [(np.trace(jac_np(X[0] + eps * e[k])) - np.trace(jac_np(X[0] - eps * e[k]))) / (2 * eps) for k in range(4)]
    np.testing.assert_allclose(xr.grad.numpy(), fd, rtol=1e-6)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        F_.jacfwd(lambda a: a * openreg.rand(4, dtype=openreg.float64))(x)
    np.testing.assert_allclose(F_.vmap(F_.jacfwd(f))(t(X)).numpy(), np.stack([jac_np(r) for r in X]), rtol=1e-12)


def test_linearize():
    x = t(X)
    out, jvp_fn = F_.linearize(lambda a: a.sin() * 3, x)
    np.testing.assert_allclose(out.numpy(), np.sin(X) * 3)
    np.testing.assert_allclose(jvp_fn(t(2 * X)).numpy(), 3 * np.cos(X) * 2 * X, rtol=1e-12)
    with pytest.raises(RuntimeError, match="in flattened pytree doesn't match the shape"):
        jvp_fn(openreg.ones(2, dtype=openreg.float64))
    with pytest.raises(RuntimeError, match="doesn't match the dtype"):
        jvp_fn(openreg.ones(3, 4))
    with pytest.raises(RuntimeError, match="to have the same argspec as the primals"):
        jvp_fn(x, x)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_against_torch_func():
    def run(fw):
        x, v = fw.tensor(X), fw.tensor(V)
        fn = lambda a: (a.sin() * a.sum()).tanh()
        s = lambda a: fn(a).sum()
        model = fw.nn.Sequential(fw.nn.Linear(4, 5), fw.nn.Tanh(), fw.nn.Linear(5, 2)).double()
        with fw.no_grad():
            for k, p in enumerate(model.parameters()):
                p.copy_(fw.tensor(np.random.default_rng(k).standard_normal(tuple(p.shape))))
        params = {k: p.detach() for k, p in model.named_parameters()}
        y = fw.tensor(np.arange(3) % 2)

        def loss(p, xi, yi):
            return fw.nn.functional.cross_entropy(fw.func.functional_call(model, p, (xi.unsqueeze(0),)),
                                                  yi.unsqueeze(0))
        psg = fw.func.vmap(fw.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
        return [
            fw.func.vmap(fn)(x), fw.func.vmap(fn, in_dims=1, out_dims=1)(x),
            fw.func.jvp(fn, (x[0],), (v,))[1], fw.func.jacfwd(fn)(x[0]), fw.func.vmap(fw.func.jacfwd(fn))(x),
            fw.func.jacfwd(fw.func.jacrev(s))(x[0]), fw.func.hessian(s)(x[0]),
            fw.func.jvp(fw.func.grad(s), (x[0],), (v,))[1], fw.func.linearize(fn, x)[1](x * 2),
            fw.func.vmap(fw.func.vjp(fn, x[0])[1])(fw.eye(4, dtype=fw.float64))[0],
            psg["0.weight"], psg["2.bias"],
            fw.func.vmap(lambda a: a.sum(0))(fw.zeros(0, 3, 2)),
        ]
    for a, b in zip(run(openreg), run(torch)):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_gradients_reach_tensors_the_function_captures():
    # a PINN-style loss on input derivatives of a model trains the captured weights (PyTorch keeps that graph)
    W0 = RNG.standard_normal((5, 3))
    xs = RNG.standard_normal((4, 3))

    def loss_np(W):
        th = np.tanh(xs @ W.T)                      # u(x) = sum tanh(W x), du/dx = W^T (1 - tanh^2)
        return (((1 - th ** 2) @ W) ** 2).sum()
    w = t(W0, requires_grad=True)
    u = lambda x: (w @ x).tanh().sum()
    for jac in (F_.jacrev, F_.jacfwd, F_.grad):
        w.grad = None
        du = F_.vmap(jac(u))(t(xs))
        assert du.requires_grad
        (du ** 2).sum().backward()
        eps, fd = 1e-6, np.zeros_like(W0)
        for i in np.ndindex(*W0.shape):
            e = np.zeros_like(W0)
            e[i] = eps
            fd[i] = (loss_np(W0 + e) - loss_np(W0 - e)) / (2 * eps)
        np.testing.assert_allclose(w.grad.numpy(), fd, rtol=1e-6, atol=1e-8)
    assert F_.hessian(u)(t(xs[0])).requires_grad
    assert not F_.grad(lambda x: (x.tanh() * 2).sum())(t(xs[0])).requires_grad   # nothing outside requires grad
