"""The dispatcher: key priority, alias keys, fallthrough, fallbacks, TLS guards, caching, modes, binding."""
import itertools

import pytest

import openreg
from openreg._dispatch import dispatcher, tls
from openreg._dispatch.keys import (
    AFTER_AUTOGRAD_MASK,
    AUTOGRAD_MASK,
    highest_key,
    keys_of,
    keyset,
)
from openreg._dispatch.keys import (
    DispatchKey as K,
)
from openreg.library import Library, fallthrough_kernel
from openreg.utils.dispatch_mode import DispatchMode

_counter = itertools.count()


@pytest.fixture
def ns():
    """A fresh namespace with one op ``f(Tensor x) -> Tensor`` defined; torn down after the test."""
    name = f"dispatch_test_{next(_counter)}"
    lib = Library(name, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("g(Tensor x, int n=2, *, float scale=1.0) -> Tensor")
    yield name, lib
    lib._destroy()


def op_of(name, op="f"):
    return getattr(getattr(openreg.ops, name), op).default


def test_key_priority_matches_pytorch():
    order = [K.CPU, K.PrivateUse1, K.Meta, K.BackendSelect, K.Python, K.ADInplaceOrView, K.AutogradOther,
             K.AutogradCPU, K.AutogradPrivateUse1, K.AutogradMeta]
    assert sorted(order) == order
    assert highest_key(keyset(K.CPU, K.AutogradCPU, K.ADInplaceOrView)) == K.AutogradCPU
    assert keys_of(keyset(K.CPU, K.Python)) == [K.Python, K.CPU]


def test_tensor_keysets():
    t = openreg.zeros(1)
    # A tensor carries its autocast key too, as in PyTorch (excluded by the thread until autocast is on). The
    # autograd key only where autograd has work (#15): requires grad, a grad_fn, autograd metadata, or a view;
    # the others carry AutogradNotNeeded instead (their calls skip openreg's own autograd kernels).
    assert t._ks == keyset(K.CPU, K.ADInplaceOrView, K.AutocastCPU, K.AutogradNotNeeded)
    t.requires_grad_()
    assert t._ks == keyset(K.CPU, K.ADInplaceOrView, K.AutogradCPU, K.AutocastCPU)
    assert (t * 2)._ks == t._ks
    assert openreg.zeros(2).view(2, 1)._ks & (1 << K.AutogradCPU)
    m = openreg.zeros(1, device="meta")
    assert m._ks & (1 << K.Meta)


def test_direct_kernel_beats_composite_explicit_beats_implicit(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    x = openreg.zeros(2)
    impl.impl("f", lambda x: "implicit", "CompositeImplicitAutograd")
    assert op_of(name)(x) == "implicit"
    impl.impl("f", lambda x: "explicit", "CompositeExplicitAutograd")
    assert op_of(name)(x) == "explicit"
    impl.impl("f", lambda x: "cpu", "CPU")
    assert op_of(name)(x) == "cpu"
    # meta still gets the CompositeExplicit kernel
    assert op_of(name)(openreg.zeros(2, device="meta")) == "explicit"
    impl._destroy()


def test_implicit_fills_autograd_slot_only_without_backend_kernel(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    calls = []
    impl.impl("f", lambda x: calls.append("implicit") or "implicit", "CompositeImplicitAutograd")
    op_of(name)(openreg.zeros(1))
    assert calls == ["implicit"]
    assert "CompositeImplicitAutograd" in dispatcher.dump_table(f"{name}::f")
    impl._destroy()


def test_autograd_alias_fills_every_autograd_key(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    seen = []

    def autograd_kernel(ks, x):
        seen.append(highest_key(ks))
        return op_of(name).redispatch(ks & AFTER_AUTOGRAD_MASK, x)
    impl.impl("f", autograd_kernel, "Autograd", with_keyset=True)
    impl.impl("f", lambda x: "backend", "CPU")
    impl.impl("f", lambda x: "meta", "Meta")
    assert op_of(name)(openreg.zeros(1)) == "backend"
    assert op_of(name)(openreg.zeros(1, device="meta")) == "meta"
    assert seen == [K.AutogradCPU, K.AutogradMeta]
    impl._destroy()


def test_fallthrough_skips_to_next_key(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    impl.impl("f", fallthrough_kernel, "AutogradCPU")
    impl.impl("f", lambda x: "cpu", "CPU")
    assert op_of(name)(openreg.zeros(1)) == "cpu"
    with pytest.raises(NotImplementedError):
        fallthrough_kernel()
    impl._destroy()


def test_backend_fallback_is_boxed_and_used_when_no_kernel(ns):
    name, _ = ns
    seen = []

    def boxed(op, *args, **kwargs):  # torch.library's fallback convention
        seen.append((op.name(), len(args)))
        return "fallback"
    fb = Library("_", "IMPL")
    fb.fallback(boxed, "Meta")
    try:
        assert op_of(name)(openreg.zeros(1, device="meta")) == "fallback"
        assert seen == [(f"{name}::f", 1)]
    finally:
        fb._destroy()
    with pytest.raises(NotImplementedError):
        op_of(name)(openreg.zeros(1, device="meta"))


def test_missing_kernel_error_names_op_backend_and_available_keys(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    impl.impl("f", lambda x: x, "CPU")
    with pytest.raises(NotImplementedError) as info:
        op_of(name)(openreg.zeros(1, device="meta"))
    msg = str(info.value)
    assert f"Could not run '{name}::f' with arguments from the 'Meta' backend" in msg
    assert "[CPU]" in msg
    impl._destroy()


def test_tls_exclude_and_include_guards(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    impl.impl("f", lambda x: "autograd", "AutogradCPU")
    impl.impl("f", lambda x: "cpu", "CPU")
    x = openreg.zeros(1)
    assert op_of(name)(x) == "autograd"
    with tls.exclude_keys(AUTOGRAD_MASK):
        assert op_of(name)(x) == "cpu"
    assert op_of(name)(x) == "autograd"
    impl._destroy()


def test_cache_invalidated_on_registration_and_removal(ns):
    name, _ = ns
    x = openreg.zeros(1)
    first = Library(name, "IMPL")
    first.impl("f", lambda x: 1, "CPU")
    assert op_of(name)(x) == 1
    second = Library(name, "IMPL")
    with pytest.warns(UserWarning):
        second.impl("f", lambda x: 2, "CPU")
    assert op_of(name)(x) == 2
    second._destroy()
    assert op_of(name)(x) == 1   # the shadowed kernel is restored
    first._destroy()
    with pytest.raises(NotImplementedError):
        op_of(name)(x)


def test_dispatch_mode_sees_ops_and_can_count():
    class Counter(DispatchMode):
        def __init__(self):
            self.names = []

        def __torch_dispatch__(self, func, types, args, kwargs=None):
            self.names.append(func.name())
            return func(*args, **(kwargs or {}))
    x = openreg.tensor([-1.0, 2.0])
    with Counter() as c:
        y = x.abs()
        z = y + y
    assert c.names == ["aten::abs", "aten::add.Tensor"]
    assert z.tolist() == [2.0, 4.0]
    assert not (tls.state.include & (1 << K.Python))


def test_nested_modes_run_outer_after_inner_disables_itself():
    order = []

    class Tag(DispatchMode):
        def __init__(self, label):
            self.label = label

        def __torch_dispatch__(self, func, types, args, kwargs=None):
            order.append(self.label)
            return func(*args, **(kwargs or {}))
    with Tag("outer"), Tag("inner"):
        openreg.zeros(1).abs()
    assert order[:2] == ["inner", "outer"]


def test_overload_api():
    op = openreg.ops.aten.abs.out
    assert op.name() == "aten::abs.out"
    assert str(op._schema) == "aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
    assert openreg.Tag.pointwise in openreg.ops.aten.abs.default.tags
    assert set(openreg.ops.aten.abs.overloads()) >= {"default", "out"}
    with pytest.raises(AttributeError):
        _ = openreg.ops.aten.definitely_not_an_op
    with pytest.raises(AttributeError):
        _ = openreg.ops.aten.abs.no_such_overload


def test_binding_defaults_keywords_and_type_errors(ns):
    name, _ = ns
    impl = Library(name, "IMPL")
    impl.impl("g", lambda x, n=2, *, scale=1.0: (n, scale), "CPU")
    g = op_of(name, "g")
    x = openreg.zeros(1)
    assert g(x) == (2, 1.0)
    assert g(x, 3, scale=2) == (3, 2.0)
    with pytest.raises(TypeError, match="argument 'x' \\(position 1\\) must be Tensor, not int"):
        g(3)
    with pytest.raises(TypeError, match="argument 'n' \\(position 2\\) must be int, not str"):
        g(x, "3")
    with pytest.raises(TypeError, match="scale"):
        g(x, scale="big")
    with pytest.raises(TypeError):
        g(x, nope=1)
    impl._destroy()


def test_packet_call_picks_matching_overload():
    x = openreg.tensor([1.0, 2.0])
    assert openreg.ops.aten.add(x, x).tolist() == [2.0, 4.0]
    assert openreg.ops.aten.add(x, 1).tolist() == [2.0, 3.0]


def test_plain_tensors_skip_openregs_autograd_kernel_but_not_a_librarys():
    from openreg._dispatch import dispatcher
    x = openreg.ones(3)
    entry = dispatcher.find("aten::mul.Tensor")
    ks = (x._ks | tls.state.include) & ~tls.state.exclude
    assert dispatcher.resolve(entry, ks)[2] == K.CPU       # straight to the backend
    y = openreg.ones(3, requires_grad=True)
    ks = ((x._ks | y._ks) | tls.state.include) & ~tls.state.exclude
    assert dispatcher.resolve(entry, ks)[2] == K.AutogradCPU
    assert (x * y).grad_fn is not None


def test_keyword_defaults_reach_user_kernels_and_are_omitted_only_for_kernels_that_declare_them(ns):
    # A call with a keyword-only argument at its schema default may leave it out (a keyword call costs a dict
    # and a longer cache key), but only for a kernel that names where its keywords go, with the same defaults.
    name, _ = ns
    impl = Library(name, "IMPL")
    seen = []

    def kernel(x, n, *, scale):        # no Python defaults: a call that left ``scale`` out would raise
        seen.append((n, scale))
        return x
    impl.impl("g", kernel, "CPU")
    x = openreg.zeros(2)
    op_of(name, "g")(x)
    op_of(name, "g")(x, 3, scale=0.5)
    assert seen == [(2, 1.0), (3, 0.5)]
    impl._destroy()


def test_omits_defaults_needs_every_source_to_declare_the_schema_default():
    from openreg._dispatch.binding import omits_defaults
    from openreg._dispatch.ops import A
    schema = A.add__Tensor._schema

    def kernel():
        pass
    assert not omits_defaults(schema, kernel)           # declares nothing
    kernel._openreg_default_sources = (lambda self, other, alpha=1: None,)
    assert omits_defaults(schema, kernel)
    kernel._openreg_default_sources = (lambda self, other, alpha=1: None, lambda spec, self, other, alpha=1.0: None)
    assert not omits_defaults(schema, kernel)           # 1.0 promotes differently from 1
    kernel._openreg_default_sources = (lambda self, other, **kwargs: None,)
    assert not omits_defaults(schema, kernel)
    assert not omits_defaults(A.mul__Tensor._schema, kernel)   # no keyword-only default to leave out
    # the CPU add kernel qualifies, and a call at the default and one away from it both compute
    x, y = openreg.tensor([1.0, 2.0]), openreg.tensor([3.0, 4.0])
    assert (x + y).tolist() == [4.0, 6.0]
    assert openreg.add(x, y, alpha=2).tolist() == [7.0, 10.0]
    assert openreg.add(x, y, alpha=1.5).tolist() == [5.5, 8.0]
    lean = [fn for fn, wk, _ in A.add__Tensor._entry.cache.values() if wk is None]
    assert lean and all(omits_defaults(schema, fn) for fn in lean)
