"""Reverse-mode autograd: engine, AccumulateGrad, hooks, saved tensors, in-place, views (CPU and device)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import openreg
from openreg.autograd import grad


def t(data, dev, requires_grad=False, dtype=openreg.float32):
    return openreg.tensor(np.asarray(data), dtype=dtype, device=dev, requires_grad=requires_grad)


def npy(x):
    return np.asarray(x.detach().cpu())


def test_simple_chain_matches_numpy(devices):
    a = np.array([[1.0, -2.0], [3.0, 0.5]], dtype=np.float32)
    x = t(a, devices, True)
    y = ((x * x).exp() * 0.1 + x.sin()).sum()
    y.backward()
    expected = 2 * a * np.exp(a * a) * 0.1 + np.cos(a)
    np.testing.assert_allclose(npy(x.grad), expected, rtol=1e-5)
    assert x.grad.device == x.device


def test_graph_structure_names_and_sequence(devices):
    x = t([1.0, 2.0], devices, True)
    y = (x * 2).sum()
    fn = y.grad_fn
    assert fn.name() == "SumBackward0"
    mul = fn.next_functions[0][0]
    assert mul.name() == "MulBackward1" or mul.name() == "MulBackward0"
    acc = mul.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x
    assert fn._sequence_nr > mul._sequence_nr
    assert x.is_leaf and not y.is_leaf and y.requires_grad


def test_retain_graph_and_second_backward_error(devices):
    x = t([1.0, 2.0], devices, True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(npy(x.grad), [4.0, 8.0])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_non_scalar_needs_gradient_and_grad_tensors(devices):
    x = t([1.0, 2.0, 3.0], devices, True)
    y = x * 3
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(t([1.0, 0.0, 2.0], devices))
    np.testing.assert_allclose(npy(x.grad), [3.0, 0.0, 6.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(t([1.0, 2.0], devices))


def test_backward_on_tensor_without_grad(devices):
    x = t([1.0], devices)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        (x * 2).sum().backward()


def test_grad_does_not_touch_dot_grad_and_allow_unused(devices):
    x = t([1.0, 2.0], devices, True)
    z = t([5.0], devices, True)
    y = (x ** 2).sum()
    (gx,) = grad(y, x, retain_graph=True)
    np.testing.assert_allclose(npy(gx), [2.0, 4.0])
    assert x.grad is None
    with pytest.raises(RuntimeError, match="Tensor at index 1 appears to not have been used in the graph"):
        grad(y, [x, z], retain_graph=True)
    gx, gz = grad(y, [x, z], allow_unused=True)
    assert gz is None


def test_create_graph_double_and_triple_backward(devices):
    x = t([2.0, -1.0], devices, True)
    y = (x * x * x).sum()
    (g1,) = grad(y, x, create_graph=True)
    (g2,) = grad(g1.sum(), x, create_graph=True)
    (g3,) = grad(g2.sum(), x)
    np.testing.assert_allclose(npy(g1), [12.0, 3.0])
    np.testing.assert_allclose(npy(g2), [12.0, -6.0])
    np.testing.assert_allclose(npy(g3), [6.0, 6.0])


def test_backward_create_graph_accumulates_with_history(devices):
    x = t([3.0], devices, True)
    (x * x).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    np.testing.assert_allclose(npy(x.grad), [6.0])


def test_inputs_argument_limits_accumulation(devices):
    x = t([1.0], devices, True)
    w = t([2.0], devices, True)
    y = (x * w).sum()
    y.backward(inputs=[w])
    assert x.grad is None
    np.testing.assert_allclose(npy(w.grad), [1.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * w).sum().backward(inputs=[])


def test_broadcast_and_dtype_reduction(devices):
    a = t(np.ones((2, 3)), devices, True)
    b = t([1.0, 2.0, 3.0], devices, True, dtype=openreg.float64)
    (a * b).sum().backward()
    assert b.grad.dtype == openreg.float64 and tuple(b.grad.shape) == (3,)
    np.testing.assert_allclose(npy(b.grad), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(npy(a.grad), np.tile([1.0, 2.0, 3.0], (2, 1)))


def test_no_grad_enable_grad_set_grad_enabled_inference_mode(devices):
    x = t([1.0], devices, True)
    with openreg.no_grad():
        assert not (x * 2).requires_grad
        with openreg.enable_grad():
            assert (x * 2).requires_grad
    with openreg.set_grad_enabled(False):
        assert not openreg.is_grad_enabled()
    assert openreg.is_grad_enabled()
    with openreg.inference_mode():
        assert not (x * 2).requires_grad

    @openreg.no_grad()
    def f(v):
        return v * 2
    assert not f(x).requires_grad

    @openreg.enable_grad()
    def g(v):
        return v * 2
    with openreg.no_grad():
        assert g(x).requires_grad


def test_accumulate_grad_semantics(devices):
    x = t([1.0, 2.0], devices, True)
    (x * 2).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first  # accumulated in place under no create_graph
    np.testing.assert_allclose(npy(x.grad), [5.0, 5.0])
    # layout: gradient of a non-contiguous (transposed) leaf keeps its strides
    w = openreg.ones(2, 3, device=devices).t().detach().requires_grad_()
    (w * 2).sum().backward()
    assert w.grad.stride() == w.stride()


def test_leaf_moved_into_graph_interior(devices):
    x = t([1.0], devices, True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    x._grad_fn = y.grad_fn  # simulate misuse
    with pytest.raises(RuntimeError, match="leaf variable has been moved into the graph interior"):
        acc([t([1.0], devices)])
    x._grad_fn = None


def test_concurrent_backward_exact_sum(devices):
    x = t(np.ones(4), devices, True)
    n, per = 4, 25

    def work():
        for _ in range(per):
            (x * 2).sum().backward()
    threads = [threading.Thread(target=work) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    np.testing.assert_allclose(npy(x.grad), np.full(4, 2.0 * n * per))


def test_inductor_accumulate_grad_op(devices):
    v = t([1.0, 1.0], devices)
    openreg.ops.inductor.accumulate_grad_(v, t([1.0, 2.0], devices))
    openreg.ops.inductor.accumulate_grad_(v, t([1.0, 2.0], devices))
    np.testing.assert_allclose(npy(v.grad), [2.0, 4.0])
    m = openreg.empty(2, device="meta")
    g = openreg.empty(2, device="meta")
    openreg.ops.inductor.accumulate_grad_(m, g)
    assert m.grad is g
    openreg.ops.inductor.accumulate_grad_(m, openreg.empty(3, device="meta"))
    assert m.grad is g


def test_saved_tensor_modified_inplace_error(devices):
    x = t([1.0, 2.0], devices, True)
    y = x * 1
    z = (y * y).sum()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*version 1; expected version 0"):
        z.backward()
    assert x.grad is None


def test_inplace_on_leaf_errors(devices):
    x = t([1.0], devices, True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0:1].mul_(2)
    with openreg.no_grad():
        x.add_(1)  # allowed without grad mode
    np.testing.assert_allclose(npy(x), [2.0])


def test_inplace_on_view_rebases_history(devices):
    x = t([1.0, 2.0, 3.0, 4.0], devices, True)
    base = x * 1
    v = base[1:3]
    v.mul_(t([10.0, 100.0], devices))
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    (base * t([1.0, 2.0, 3.0, 4.0], devices)).sum().backward()
    np.testing.assert_allclose(npy(x.grad), [1.0, 20.0, 300.0, 4.0])


def test_inplace_copy_into_view_gives_source_grad(devices):
    src = t([5.0, 6.0], devices, True)
    buf = openreg.zeros(4, device=devices)
    buf[1:3].copy_(src)
    assert buf.requires_grad
    (buf * t([1.0, 2.0, 3.0, 4.0], devices)).sum().backward()
    np.testing.assert_allclose(npy(src.grad), [2.0, 3.0])


def test_stale_view_regenerates_grad_fn(devices):
    x = t([1.0, 2.0, 3.0], devices, True)
    base = x * 1
    v = base[0:2]
    base.mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    np.testing.assert_allclose(npy(x.grad), [2.0, 2.0, 0.0])


def test_inplace_updates_grad_chain(devices):
    x = t([1.0, 2.0], devices, True)
    y = x * 2
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(npy(x.grad), 2 * np.exp(2 * np.array([1.0, 2.0])), rtol=1e-5)


def test_hooks_replace_and_validate(devices):
    x = t([1.0, 2.0], devices, True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(npy(g).tolist()))
    h = x.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[1.0, 1.0]]
    np.testing.assert_allclose(npy(x.grad), [20.0, 20.0])
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    np.testing.assert_allclose(npy(x.grad), [2.0, 2.0])
    z = x * 3
    z.register_hook(lambda g: openreg.ones(3, device=devices))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        z.sum().backward()
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        t([1.0], devices).register_hook(lambda g: g)


def test_failed_backward_leaves_grad_unchanged(devices):
    x = t([1.0, 2.0], devices, True)
    (x * 1).sum().backward()
    w = x * 1
    z = (w * w).sum() + (x * 3).sum()
    w.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        z.backward()
    np.testing.assert_allclose(npy(x.grad), [1.0, 1.0])


def test_retain_grad_and_post_accumulate_hook(devices):
    x = t([1.0, 2.0], devices, True)
    y = x * x
    y.retain_grad()
    assert y.retains_grad
    order = []
    x.register_post_accumulate_grad_hook(lambda p: order.append(npy(p.grad).tolist()))
    y.sum().backward()
    np.testing.assert_allclose(npy(y.grad), [1.0, 1.0])
    assert order == [[2.0, 4.0]]


def test_node_hooks(devices):
    x = t([1.0, 2.0], devices, True)
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_detach_and_requires_grad_(devices):
    x = t([1.0], devices, True)
    d = x.detach()
    assert not d.requires_grad and d.untyped_storage() is x.untyped_storage()
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match="floating point"):
        openreg.tensor([1]).requires_grad_()


def test_not_implemented_derivative_raises_at_backward(devices):
    lib = openreg.library.Library("ag_test_ni", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x.detach() * 2, "CompositeExplicitAutograd")
    try:
        x = t([1.0], devices, True)
        y = openreg.ops.ag_test_ni.twice(x)
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="the derivative for 'ag_test_ni::twice' is not implemented"):
            y.sum().backward()
        assert not openreg.ops.ag_test_ni.twice(t([1.0], devices)).requires_grad
    finally:
        lib._destroy()


def test_out_variant_with_grad_raises(devices):
    x = t([1.0, -1.0], devices, True)
    out = openreg.empty(2, device=devices)
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic differentiation"):
        openreg.ops.aten.abs.out(x, out=out)


def test_no_grad_view_of_tensor_requiring_grad_requires_grad(devices):
    # PyTorch: a view's requires_grad is requires_grad_ || grad_fn || (is_view && base.requires_grad()); the view
    # made under no_grad is a leaf without its own accumulator, so backward runs and stores no gradient anywhere.
    x = t([1.0, 2.0, 3.0], devices, True)
    for base in (x, x * 2):
        with openreg.no_grad():
            v = base[:2]
            w = v[:1]
        assert v.requires_grad and w.requires_grad
        assert v.is_leaf and v.grad_fn is None
        r = v * 2
        assert r.requires_grad and r.grad_fn is not None
        r.sum().backward()
        assert v.grad is None and x.grad is None
    plain = t([1.0, 2.0], devices)
    with openreg.no_grad():
        p = plain[:1]
    assert not p.requires_grad


def test_multi_output_view_inplace_error(devices):
    x = t([1.0, 2.0], devices, True)
    a, _b = (x * 1).unbind(0)
    with pytest.raises(RuntimeError, match="This view is the output of a function that returns multiple views"):
        a.mul_(2)


def test_no_grad_view_inplace_with_grad_mode_raises(devices):
    x = t([[1.0, 2.0], [3.0, 4.0]], devices, True)
    for base in (x, x * 1):
        with openreg.no_grad():
            v = base[0]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace "
                                               "with grad mode enabled"):
            v.mul_(2)
        with openreg.no_grad():
            v.mul_(2)      # view and in-place both under no_grad: allowed
    np.testing.assert_allclose(npy(x), [[2.0, 4.0], [3.0, 4.0]])
    plain = t([1.0, 2.0], devices)
    with openreg.no_grad():
        w = plain[:1]
    w.add_(1)              # the base does not require grad: allowed
    np.testing.assert_allclose(npy(plain), [2.0, 2.0])


def test_device_grad_roundtrip():
    if not openreg.privateuseone.is_available():
        pytest.skip("no device")
    x = t([1.0, 2.0], "cpu", True)
    y = x.to("privateuseone") * 3
    y.sum().backward()
    assert x.grad.device.type == "cpu"
    np.testing.assert_allclose(npy(x.grad), [3.0, 3.0])


def test_accumulate_grad_steals_only_unshared_gradients(devices):
    x = t([1.0, 2.0], devices, True)
    seen = []
    x.register_hook(lambda g: seen.append(g))
    (x * 2).sum().backward()
    # the hook kept a reference: the leaf's .grad must be a copy, not the hook's tensor
    assert x.grad.data_ptr() != seen[0].data_ptr()
    x.grad.add_(1)
    np.testing.assert_allclose(npy(seen[0]), [2.0, 2.0])
    a = t([1.0], devices, True)
    b = t([1.0], devices, True)
    (a + b).sum().backward()  # AddBackward routes one gradient to both leaves
    assert a.grad.data_ptr() != b.grad.data_ptr()
    a.grad.add_(5)
    np.testing.assert_allclose(npy(b.grad), [1.0])


def test_root_gradient_device_and_dtype(devices):
    x = t([1.0, 2.0], devices, True)
    y = x * 2
    if devices != "cpu":
        with pytest.raises(RuntimeError, match="expected device"):
            y.backward(t([1.0, 1.0], "cpu"))
    y.backward(t([1.0, 1.0], devices, dtype=openreg.float64))
    assert x.grad.dtype == openreg.float32


def test_bare_decorators(devices):
    x = t([1.0], devices, True)

    @openreg.no_grad
    def f(v):
        return v * 2

    @openreg.inference_mode
    def g(v):
        return v * 2
    assert not f(x).requires_grad and not g(x).requires_grad
    with openreg.inference_mode(False):
        assert openreg.is_grad_enabled()


def test_no_grad_decorator_restores_the_mode():
    """The ``no_grad`` decorator turns grad mode off for the call and restores what was on before, also when the
    function raises; it keeps the function's name and refuses classes (PyTorch's error)."""
    seen = []

    @openreg.no_grad()
    def f(fail):
        seen.append(openreg.is_grad_enabled())
        if fail:
            raise ValueError("boom")
        return 1
    assert f(False) == 1 and openreg.is_grad_enabled() and f.__name__ == "f"
    with pytest.raises(ValueError, match="boom"):
        f(True)
    assert openreg.is_grad_enabled()
    with openreg.no_grad():
        f(False)
        assert not openreg.is_grad_enabled()
    assert seen == [False, False, False] and openreg.is_grad_enabled()
    with pytest.raises(RuntimeError, match="Decorating classes is not supported"):
        openreg.no_grad()(type("C", (), {}))


def test_non_leaf_grad_access_warns(devices):
    x = t([1.0], devices, True)
    y = x * 2
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert y.grad is None


def test_inference_tensors_match_pytorch(devices):
    # PyTorch: tensors made inside inference_mode (and their views) are inference tensors; outside it an in-place
    # update raises after applying, saving one for backward raises, and requires_grad_(True) raises.
    with openreg.inference_mode():
        i = t([1.0, 1.0], devices)
        r = openreg.ones(2, requires_grad=True, device=devices)
    assert i.is_inference() and i[:1].is_inference() and r.is_inference() and r.requires_grad
    assert not (i * 2).is_inference() and not i.clone().is_inference() and not t([1.0], devices).is_inference()
    inplace = "Inplace update to inference tensor outside InferenceMode is not allowed"
    with pytest.raises(RuntimeError, match=inplace):
        i.add_(1)
    with pytest.raises(RuntimeError, match=inplace):
        i[:1].mul_(2)
    with openreg.no_grad(), pytest.raises(RuntimeError, match=inplace):
        i.add_(1)
    np.testing.assert_allclose(npy(i), [5.0, 3.0])   # PyTorch applies the update before the version check
    with openreg.inference_mode():
        i.add_(1)
    np.testing.assert_allclose(npy(i), [6.0, 4.0])
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        i.requires_grad_(True)
    x = t([2.0, 3.0], devices, True)
    assert (x + i).requires_grad           # nothing saved: allowed
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * i
    (x * i.clone()).sum().backward()
    np.testing.assert_allclose(npy(x.grad), [6.0, 4.0])


def test_views_of_special_views_inherit_their_kind(devices):
    # PyTorch propagates CreationMeta: a view of a multi-output view or of a no_grad view refuses in-place changes
    # with the original view's error, naming the view's own node (without its "Backward0" suffix).
    x = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], devices, True)
    y = x * 1
    a, _ = y.unbind(0)
    c, _ = y.split(1)
    multi = "is a view and is being modified inplace. This view is the output of a function that returns multiple"
    with pytest.raises(RuntimeError, match="Output 0 of Unbind " + multi):
        a.mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of View " + multi):
        a.view(3).mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of Slice " + multi):
        a.view(3)[:2].mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of T " + multi):
        c.t().mul_(2)
    with openreg.no_grad():
        v = y[0]
        vx = x[0]
        vv = v.view(3)
    nograd = "which was created in no_grad mode and is being modified inplace with grad mode enabled"
    for make, name in ((lambda: v.view(3), "View"), (lambda: vx.view(3), "View"),
                       (lambda: v[1:].unsqueeze(0), "Unsqueeze")):
        with pytest.raises(RuntimeError, match=f"Output 0 of {name} is a view of a view {nograd}"):
            make().mul_(2)
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace"):
        vv.mul_(2)
    np.testing.assert_allclose(npy(x), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with openreg.no_grad():
        v.view(3).mul_(2)    # view and in-place both under no_grad: allowed
    np.testing.assert_allclose(npy(y), [[2.0, 4.0, 6.0], [4.0, 5.0, 6.0]])


def test_saved_output_alias_matches_the_constructor(devices):
    """``saved._alias`` builds the saved output's tensor field by field; it must agree with ``Tensor._make``
    (a field added there must be added here)."""
    from openreg.autograd.saved import _alias
    from openreg.tensor import TensorBase
    x = t([[1.0, 2.0], [3.0, 4.0]], devices, True)
    for src in (x * 2, (x * 2)[1], (x * 2).t()):
        fast = _alias(src)
        slow = openreg.Tensor._make(src._storage, src._size, src._stride, src._offset, src._dtype, src._vc,
                                    src._base)
        for name in TensorBase.__slots__:
            if name not in ("__dict__", "__weakref__", "_arr", "_arr_src"):
                assert getattr(fast, name) is getattr(slow, name) or getattr(fast, name) == getattr(slow, name), name
        assert fast.__dict__ == slow.__dict__ and type(fast) is type(slow)
        assert fast._vc is src._vc and fast._grad_fn is None and fast.tolist() == src.tolist()


def test_implicit_scalar_gradient(devices):
    # the ones of a scalar output's implicit gradient: its dtype and device, every time, and seen by a dispatch
    # mode as PyTorch's ones_like call
    from openreg.utils.dispatch_mode import DispatchMode
    for dtype in (openreg.float32, openreg.float64, openreg.float16, openreg.bfloat16):
        x = t([1.0, 2.0], devices, True, dtype)
        for _ in range(3):
            (x * 3).sum().backward()
        assert x.grad.dtype is dtype and x.grad.device == x.device and npy(x.grad.float()).tolist() == [9.0, 9.0]
    x = t([1.0, 2.0], devices, True)
    loss = (x * 2).sum()
    (g,) = grad(loss, x, retain_graph=True)
    assert npy(g).tolist() == [2.0, 2.0]

    class Names(DispatchMode):
        def __init__(self):
            self.names = []

        def __torch_dispatch__(self, func, types, args, kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))
    with Names() as mode:
        loss.backward()
    assert any("ones_like" in n for n in mode.names), mode.names
    assert npy(x.grad).tolist() == [2.0, 2.0]


def test_as_subclass_aliases_into_the_graph_and_make_subclass_makes_a_leaf():
    class Tagged(openreg.Tensor):
        pass
    x = openreg.ones(3, requires_grad=True)
    y = x.as_subclass(Tagged)
    assert type(y) is Tagged and y.grad_fn.name() == "AliasBackward0" and not y.is_leaf
    assert y.data_ptr() == x.data_ptr()
    (y * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    plain = openreg.zeros(2).as_subclass(Tagged)
    assert type(plain) is Tagged and not plain.requires_grad and plain.grad_fn is None
    leaf = openreg.Tensor._make_subclass(Tagged, openreg.zeros(2), True)
    assert type(leaf) is Tagged and leaf.requires_grad and leaf.is_leaf
    for bad in (int, 3):
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            x.as_subclass(bad)


def test_grad_mode_decorators_wrap_generator_functions():
    """A decorated generator function runs its body under the mode at every resumption, and the caller's mode
    holds between yields (PyTorch's decorators); values sent and returned pass through."""
    for deco, inside in ((openreg.no_grad(), False), (openreg.enable_grad(), True), (openreg.inference_mode(), False)):
        @deco
        def gen(start):
            got = yield (start, openreg.is_grad_enabled())
            yield (got, openreg.is_grad_enabled())
            return "done"
        outer = openreg.enable_grad() if not inside else openreg.no_grad()
        with outer:
            g = gen(1)
            assert next(g) == (1, inside)
            assert openreg.is_grad_enabled() is not inside
            assert g.send(5) == (5, inside)
            with pytest.raises(StopIteration) as stop:
                next(g)
            assert stop.value.value == "done"
