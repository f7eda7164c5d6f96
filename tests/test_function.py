"""Custom autograd Functions (``openreg.autograd.Function``) and library-registered autograd."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
import openreg.autograd.forward_ad as fwAD
from openreg.autograd import Function, gradcheck


def t(data, dev, requires_grad=False, dtype=openreg.float32):
    return openreg.tensor(np.asarray(data).tolist(), dtype=dtype, device=dev, requires_grad=requires_grad)


def npy(x):
    return np.asarray(x.detach().cpu())


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


class ScaleSetup(Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

    @staticmethod
    def jvp(ctx, tx, tk):
        return tx * ctx.k


def test_forward_backward_and_name(devices):
    x = t([1.0, 2.0], devices, True)
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    np.testing.assert_allclose(npy(x.grad), [3.0, 12.0])
    assert gradcheck(Cube.apply, (t([0.5, -1.0], devices, True, openreg.float64),))


def test_setup_context_and_jvp(devices):
    x = t([1.0, 2.0], devices, True)
    y = ScaleSetup.apply(x, 3.0)
    y.sum().backward()
    np.testing.assert_allclose(npy(x.grad), [3.0, 3.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(t([1.0, 2.0], devices), t([1.0, -1.0], devices))
        out = ScaleSetup.apply(d, 2.0)
        np.testing.assert_allclose(npy(fwAD.unpack_dual(out).tangent), [2.0, -2.0])


def test_needs_input_grad_and_non_tensor_args(devices):
    seen = {}

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            ctx.save_for_backward(a, b)
            seen["needs"] = ctx.needs_input_grad
            return a * b * scale

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return (g * b if ctx.needs_input_grad[0] else None), (g * a if ctx.needs_input_grad[1] else None), None

    a = t([2.0], devices, True)
    b = t([5.0], devices)
    Mul.apply(a, b, 1.0).sum().backward()
    assert seen["needs"] == (True, False, False)
    np.testing.assert_allclose(npy(a.grad), [5.0])


def test_saved_tensor_version_check(devices):
    x = t([1.0, 2.0], devices, True)
    h = x * 1
    y = Cube.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_tensors_freed_after_backward(devices):
    x = t([1.0], devices, True)
    y = Cube.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = y.grad_fn.saved_tensors


def test_mark_dirty_inplace(devices):
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = t([1.0, 2.0], devices, True)
    h = x * 1
    out = AddOneInplace.apply(h)
    assert out is h and h.grad_fn.name() == "AddOneInplaceBackward"
    np.testing.assert_allclose(npy(h), [2.0, 3.0])
    out.sum().backward()
    np.testing.assert_allclose(npy(x.grad), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInplace.apply(t([1.0], devices, True))


def test_mark_non_differentiable(devices):
    class SortLike(Function):
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).to(openreg.float32)
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gidx):
            assert gidx is None or float(gidx.abs().sum()) == 0.0
            return g * 2

    x = t([1.0, -1.0], devices, True)
    y, idx = SortLike.apply(x)
    assert y.requires_grad and not idx.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(npy(x.grad), [2.0, 2.0])


def test_set_materialize_grads(devices):
    got = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            got.append(g2)
            return g1 + (0 if g2 is None else g2), None

    x = t([1.0], devices, True)
    a, _b = Two.apply(x, True)
    a.sum().backward()
    assert got[-1] is not None and float(got[-1].sum()) == 0.0
    a, _b = Two.apply(x, False)
    a.sum().backward()
    assert got[-1] is None


def test_return_input_or_view_of_input(devices):
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    class FirstRow(Function):
        @staticmethod
        def forward(ctx, x):
            return x[0]

        @staticmethod
        def backward(ctx, g):
            out = openreg.zeros(2, 2, device=g.device)
            out[0] = g * 7
            return out

    x = t([1.0, 2.0], devices, True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf
    y.sum().backward()
    np.testing.assert_allclose(npy(x.grad), [5.0, 5.0])
    m = t([[1.0, 2.0], [3.0, 4.0]], devices, True)
    r = FirstRow.apply(m)
    assert r.grad_fn.name() == "FirstRowBackward"
    r.sum().backward()
    np.testing.assert_allclose(npy(m.grad), [[7.0, 7.0], [0.0, 0.0]])


def test_inplace_on_custom_function_view_output_raises(devices):
    class AsIs(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    class Flat(Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.reshape(2, 2) * 5

    for fn in (AsIs, Flat):
        for leaf in (True, False):
            x = t([[1.0, 2.0], [3.0, 4.0]], devices, True)
            y = fn.apply(x if leaf else x * 1)
            with pytest.raises(RuntimeError, match=f"Output 0 of {fn.__name__} is a view and is being modified "
                                                   "inplace. This view was created inside a custom Function"):
                y.mul_(2)
            with openreg.no_grad():
                y.mul_(2)      # allowed, but the custom backward no longer describes y: backward raises
            with pytest.raises(RuntimeError, match="its base or another view of its base has been modified inplace"):
                y.sum().backward()
            assert x.grad is None
    y = Flat.apply(t([[1.0, 2.0], [3.0, 4.0]], devices, True)).clone()
    y.mul_(2)          # the fix the message suggests
    assert y.grad_fn.name() == "MulBackward0"


def test_wrong_number_of_gradients(devices):
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    x = t([1.0], devices, True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(x, x).sum().backward()


def test_once_differentiable(devices):
    class Sq(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @openreg.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = t([3.0], devices, True)
    go = t([1.0], devices, True)
    (g,) = openreg.autograd.grad(Sq.apply(x), x, go, create_graph=True)
    np.testing.assert_allclose(npy(g), [6.0])
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_double_backward_through_function(devices):
    x = t([2.0], devices, True, openreg.float64)
    (g,) = openreg.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = openreg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(npy(gg), [12.0])


def test_library_register_autograd(devices):
    lib = openreg.library.Library("fn_test_ra", "DEF")
    lib.define("mysin(Tensor x) -> Tensor")
    lib.impl("mysin", lambda x: x.sin(), "CompositeExplicitAutograd")

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()
    try:
        openreg.library.register_autograd("fn_test_ra::mysin", backward, setup_context=setup_context, lib=lib)
        x = t([0.5, 1.0], devices, True)
        openreg.ops.fn_test_ra.mysin(x).sum().backward()
        np.testing.assert_allclose(npy(x.grad), np.cos([0.5, 1.0]), rtol=1e-6)
    finally:
        lib._destroy()


def test_library_impl_at_autograd_key(devices):
    lib = openreg.library.Library("fn_test_ak", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            from openreg._dispatch.keys import AUTOGRAD_MASK
            from openreg._dispatch.tls import exclude_keys
            with exclude_keys(AUTOGRAD_MASK):  # run below autograd (PyTorch's AutoDispatchBelowAutograd)
                return openreg.ops.fn_test_ak.twice(x)

        @staticmethod
        def backward(ctx, g):
            return g * 2
    try:
        lib.impl("twice", Twice.apply, "Autograd")
        x = t([1.0, 3.0], devices, True)
        y = openreg.ops.fn_test_ak.twice(x)
        assert y.grad_fn.name() == "TwiceBackward"
        y.sum().backward()
        np.testing.assert_allclose(npy(x.grad), [2.0, 2.0])
    finally:
        lib._destroy()
