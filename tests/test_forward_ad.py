"""Forward-mode AD: dual tensors, per-level tangents, layout checks, views and in-place (PyTorch's five cases)."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
import openreg.autograd.forward_ad as fwAD


def t(data, dev, dtype=openreg.float32):
    return openreg.tensor(np.asarray(data).tolist(), dtype=dtype, device=dev)


def npy(x):
    return np.asarray(x.detach().cpu())


def test_jvp_matches_numpy(devices):
    a = np.array([0.5, -1.0, 2.0])
    ta = np.array([1.0, 2.0, -1.0])
    with fwAD.dual_level():
        x = fwAD.make_dual(t(a, devices), t(ta, devices))
        y = (x * x).sin() + x.exp()
        p, tan = fwAD.unpack_dual(y)
    np.testing.assert_allclose(npy(p), np.sin(a * a) + np.exp(a), rtol=1e-5)
    np.testing.assert_allclose(npy(tan), np.cos(a * a) * 2 * a * ta + np.exp(a) * ta, rtol=1e-5)


def test_symbolic_zero_and_level_exit(devices):
    with fwAD.dual_level():
        x = fwAD.make_dual(t([1.0], devices), t([1.0], devices))
        c = t([2.0], devices)
        assert fwAD.unpack_dual(c * 3).tangent is None  # no tangent in, none out (nothing allocated)
        y = x * c
        np.testing.assert_allclose(npy(fwAD.unpack_dual(y).tangent), [2.0])
    assert fwAD.unpack_dual(y).tangent is None


def test_make_dual_errors(devices):
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(t([1.0], devices), t([1.0], devices))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="different size than that of the original Tensor"):
            fwAD.make_dual(t([1.0, 2.0], devices), t([1.0], devices))
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fwAD.make_dual(t([1.0], devices), openreg.tensor([1], device=devices))
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(openreg.tensor([1], device=devices), t([1.0], devices))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()


def test_tangent_used_as_is_when_layout_matches(devices):
    primal, tangent = openreg.zeros(2, 2, device=devices), openreg.ones(2, 2, device=devices)
    with fwAD.dual_level():
        assert fwAD.unpack_dual(fwAD.make_dual(primal, tangent)).tangent is tangent
        assert fwAD.unpack_dual(fwAD.make_dual(primal, tangent.t())).tangent is not tangent


def test_tangent_layout_matches_primal(devices):
    primal = openreg.zeros(2, 3, device=devices).t()
    tangent = openreg.ones(3, 2, device=devices)
    with fwAD.dual_level():
        d = fwAD.make_dual(primal, tangent)
        tan = fwAD.unpack_dual(d).tangent
        assert tan.stride() == primal.stride()
        np.testing.assert_allclose(npy(tan), np.ones((3, 2)))
        # dtype is converted to the primal's
        d2 = fwAD.make_dual(t([1.0], devices), t([1.0], devices, dtype=openreg.float64))
        assert fwAD.unpack_dual(d2).tangent.dtype == openreg.float32


def test_view_tangent_is_view_of_base_tangent(devices):
    with fwAD.dual_level():
        x = fwAD.make_dual(t([1.0, 2.0, 3.0], devices), t([10.0, 20.0, 30.0], devices))
        v = x[1:]
        tv = fwAD.unpack_dual(v).tangent
        np.testing.assert_allclose(npy(tv), [20.0, 30.0])
        tx = fwAD.unpack_dual(x).tangent
        assert tv.untyped_storage() is tx.untyped_storage()


def test_case1_inplace_no_view(devices):
    with fwAD.dual_level():
        foo = fwAD.make_dual(t([1.0, 2.0], devices), t([1.0, 1.0], devices))
        bar = fwAD.make_dual(t([5.0, 6.0], devices), t([7.0, 8.0], devices))
        foo.copy_(bar)
        np.testing.assert_allclose(npy(fwAD.unpack_dual(foo).tangent), [7.0, 8.0])
        foo.mul_(bar)
        # d(foo*bar) = dfoo*bar + foo*dbar with foo=bar=[5,6], dfoo=dbar=[7,8]
        np.testing.assert_allclose(npy(fwAD.unpack_dual(foo).tangent), [70.0, 96.0])


def test_case2_and_case4_view_to_base(devices):
    with fwAD.dual_level():
        # case 4: regular base, in-place on its view with a dual gives both tangents
        foo = openreg.zeros(2, 2, device=devices)
        view = foo[0]
        bar = fwAD.make_dual(t([1.0, 2.0], devices), t([3.0, 4.0], devices))
        view.copy_(bar)
        np.testing.assert_allclose(npy(fwAD.unpack_dual(view).tangent), [3.0, 4.0])
        np.testing.assert_allclose(npy(fwAD.unpack_dual(foo).tangent), [[3.0, 4.0], [0.0, 0.0]])
        # case 2: dual base, in-place through a view updates the base's tangent
        base = fwAD.make_dual(openreg.zeros(2, 2, device=devices), openreg.ones(2, 2, device=devices))
        base[1].copy_(bar)
        np.testing.assert_allclose(npy(fwAD.unpack_dual(base).tangent), [[1.0, 1.0], [3.0, 4.0]])


def test_case3_and_case5_base_to_view(devices):
    with fwAD.dual_level():
        foo = openreg.zeros(2, 2, device=devices)
        view = foo[1]
        bar = fwAD.make_dual(openreg.ones(2, 2, device=devices), t([[1.0, 2.0], [3.0, 4.0]], devices))
        foo.copy_(bar)  # case 5: the view created before sees the base's new tangent
        np.testing.assert_allclose(npy(fwAD.unpack_dual(view).tangent), [3.0, 4.0])


def test_forward_ad_through_matmul_and_softmax(devices):
    a = np.array([[1.0, 2.0], [0.5, -1.0]])
    da = np.array([[0.1, 0.0], [0.0, 0.2]])
    w = np.array([[0.3, -0.2], [0.1, 0.4]])
    with fwAD.dual_level():
        x = fwAD.make_dual(t(a, devices, openreg.float64), t(da, devices, openreg.float64))
        y = (x @ t(w, devices, openreg.float64)).softmax(1)
        tan = npy(fwAD.unpack_dual(y).tangent)
    z = a @ w
    s = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    dz = da @ w
    np.testing.assert_allclose(tan, s * (dz - (dz * s).sum(1, keepdims=True)), rtol=1e-6)


def test_forward_ad_with_reverse_mode_requires_grad(devices):
    p = t([1.0, 2.0], devices)
    p.requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(p, t([1.0, 1.0], devices))
        y = (d * d).sum()
        np.testing.assert_allclose(npy(fwAD.unpack_dual(y).tangent), 6.0)
        y.backward()
    np.testing.assert_allclose(npy(p.grad), [2.0, 4.0])


def test_op_without_forward_formula_raises(devices):
    lib = openreg.library.Library("fwad_test", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x.detach() * 2, "CompositeExplicitAutograd")
    try:
        with fwAD.dual_level():
            d = fwAD.make_dual(t([1.0], devices), t([1.0], devices))
            with pytest.raises(RuntimeError, match="Trying to use forward AD with twice"):
                openreg.ops.fwad_test.twice(d)
    finally:
        lib._destroy()


def test_forward_over_reverse_and_reverse_over_forward(devices):
    a = np.array([0.5, -1.0, 2.0])
    v = np.array([1.0, 2.0, -1.0])
    th = np.tanh(a)
    with fwAD.dual_level():
        # the tangent of tanh's saved output reaches its backward formula: d/dv of grad = Hessian-vector product
        x = fwAD.make_dual(t(a, devices, openreg.float64).requires_grad_(True), t(v, devices, openreg.float64))
        (g,) = openreg.autograd.grad(x.tanh().sum(), x, create_graph=True)
        np.testing.assert_allclose(npy(fwAD.unpack_dual(g).tangent), -2 * th * (1 - th ** 2) * v, rtol=1e-12)
        # the tangent is a differentiable function of the primal: reverse mode through it
        leaf = t(a, devices, openreg.float64).requires_grad_(True)
        y = fwAD.make_dual(leaf, t(v, devices, openreg.float64)).tanh()
        tan = fwAD.unpack_dual(y).tangent
        assert tan.requires_grad
        tan.sum().backward()
    np.testing.assert_allclose(npy(leaf.grad), -2 * th * (1 - th ** 2) * v, rtol=1e-12)


def test_binary_cross_entropy_has_forward_mode():
    # jacfwd/hessian of a BCE loss: its custom Function carries a jvp (input and target tangents)
    x = openreg.tensor([[0.2, 0.7], [0.5, 0.9]], dtype=openreg.float64, requires_grad=True)
    y = openreg.tensor([[0.0, 1.0], [0.3, 0.6]], dtype=openreg.float64, requires_grad=True)
    bce = openreg.nn.functional.binary_cross_entropy
    assert openreg.autograd.gradcheck(lambda a, b: bce(a, b), (x, y), check_forward_ad=True)
    xd, yd = x.detach(), y.detach()
    hess = openreg.func.hessian(lambda a: bce(a, yd, reduction="sum"))(xd)
    # d2/dx2 of -(y log x + (1-y) log(1-x)) = y/x^2 + (1-y)/(1-x)^2, on the diagonal
    expected = (yd / xd ** 2 + (1 - yd) / (1 - xd) ** 2).numpy()
    np.testing.assert_allclose(hess.reshape(4, 4).diagonal().numpy(), expected.reshape(-1), rtol=1e-10)


def test_missing_forward_formula_raises_not_implemented_error():
    # PyTorch raises NotImplementedError (a RuntimeError) for ops without forward-mode formulas
    q = openreg.randn(1, 2, 3, 4, dtype=openreg.float64)
    with fwAD.dual_level():
        qd = fwAD.make_dual(q, openreg.ones_like(q))
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with"):
            openreg.nn.functional.scaled_dot_product_attention(qd, qd, qd)
