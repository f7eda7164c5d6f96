"""openreg.library: Library kinds, define, impl, fallthrough/fallbacks, lifetime, fake impls, autograd
registration checks, module-level API (issue 3, items 1-7 and 10)."""
from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import openreg
from openreg import DispatchKey, Tag
from openreg._dispatch import dispatcher
from openreg._library.fake_impl import dynamic_size_bounds, is_dynamic_size
from openreg.devices import privateuse1_name
from openreg.library import (
    Library,
    _scoped_library,
    define,
    dispatch_key_for,
    fallthrough_kernel,
    get_ctx,
    impl,
    impl_abstract,
    register_autograd,
    register_fake,
    register_kernel,
)

_counter = [0]


def fresh_ns() -> str:
    _counter[0] += 1
    return f"tlib{_counter[0]}"


def np_kernel(fn):
    """A CPU kernel computing with NumPy."""
    def kernel(x, *rest):
        return openreg.from_numpy(np.ascontiguousarray(fn(x.numpy(), *rest)))
    return kernel


def t(values):
    return openreg.tensor(values, dtype=openreg.float32)


# -- 1. Library kinds --------------------------------------------------------------------------------
def test_unsupported_kind_and_reserved_namespace():
    with pytest.raises(ValueError, match="Unsupported kind"):
        Library(fresh_ns(), "BOGUS")
    for kind in ("DEF", "FRAGMENT"):
        with pytest.raises(ValueError, match="reserved namespace"):
            Library("prim", kind)
    Library("prim", "IMPL")._destroy()


def test_single_def_library_names_both_sites():
    ns = fresh_ns()
    first = Library(ns, "DEF")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY") as info:
        Library(ns, "DEF")
    msg = str(info.value)
    assert msg.count("test_library.py:") == 2
    frag1, frag2 = Library(ns, "FRAGMENT"), Library(ns, "FRAGMENT")
    frag1._destroy(), frag2._destroy()
    first._destroy()
    Library(ns, "DEF")._destroy()      # the namespace is free again


# -- 2. define -------------------------------------------------------------------------------------
def test_define_returns_name_and_adds_overloads():
    ns = fresh_ns()
    with _scoped_library(ns, "DEF") as lib:
        assert lib.define("foo(Tensor x) -> Tensor") == "foo"
        packet = getattr(openreg.ops, ns).foo
        assert packet.overloads() == ["default"]
        assert lib.define("foo.bar(Tensor x, int n) -> Tensor") == "foo"  # as torch.library: no overload
        assert sorted(packet.overloads()) == ["bar", "default"]
        assert str(packet.bar._schema) == f"{ns}::foo.bar(Tensor x, int n) -> Tensor"


def test_duplicate_define_names_both_sites_and_leaves_registry():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("foo(Tensor x) -> Tensor")
        before = dispatcher.dump_table(f"{ns}::foo")
        with pytest.raises(RuntimeError, match="same name and overload name") as info:
            lib.define("foo(Tensor y) -> Tensor")
        assert str(info.value).count("test_library.py:") == 2
        assert dispatcher.dump_table(f"{ns}::foo") == before


def test_define_alias_analysis_tags_and_namespace():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        with pytest.raises(RuntimeError, match="Invalid alias_analysis type"):
            lib.define("a(Tensor x) -> Tensor", alias_analysis="PURE")
        lib.define("b(Tensor x) -> Tensor", alias_analysis="CONSERVATIVE")
        lib.define("c(Tensor x) -> Tensor", alias_analysis="FROM_SCHEMA", tags=(Tag.pointwise, Tag.core))
        lib.define("d(Tensor x) -> Tensor", tags=Tag.pt2_compliant_tag)
        ops = getattr(openreg.ops, ns)
        assert ops.c.default.tags == (Tag.pointwise, Tag.core)
        assert ops.d.default.tags == (Tag.pt2_compliant_tag,)
        with pytest.raises(RuntimeError, match="does not match namespace"):
            lib.define("other::e(Tensor x) -> Tensor")
        assert not hasattr(ops, "a") and not hasattr(ops, "e")


def test_define_on_impl_library_refused():
    with _scoped_library(fresh_ns(), "IMPL") as lib, pytest.raises(RuntimeError, match="TORCH_LIBRARY_IMPL"):
        lib.define("x(Tensor a) -> Tensor")


def test_module_define_validation():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        with pytest.raises(ValueError, match="namespace"):
            define("nonamespace", "(Tensor x) -> Tensor", lib=lib)
        with pytest.raises(ValueError, match="expected qualname"):
            define(3, "(Tensor x) -> Tensor", lib=lib)
        with pytest.raises(ValueError, match=r'to look like e.g. "\(Tensor x\) -> Tensor"'):
            define(f"{ns}::f", "f(Tensor x) -> Tensor", lib=lib)
        with pytest.raises(ValueError, match="to look like"):
            define(f"{ns}::f", "(Tensor x)", lib=lib)
        define(f"{ns}::f", "(Tensor x) -> Tensor", lib=lib, tags=(Tag.pointwise,))
        assert getattr(openreg.ops, ns).f.default.tags == (Tag.pointwise,)
    assert not hasattr(getattr(openreg.ops, ns), "f")


def test_define_registers_version_bump_layer():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("fill_ones_(Tensor(a!) x) -> ()")
        lib.impl("fill_ones_", lambda x: x.numpy().__setitem__(Ellipsis, 1.0), "cpu")
        x = openreg.zeros(3)
        v = x._version
        getattr(openreg.ops, ns).fill_ones_(x)
        assert x._version == v + 1 and x.tolist() == [1.0, 1.0, 1.0]
        assert dispatcher.has_kernel(f"{ns}::fill_ones_", DispatchKey.ADInplaceOrView)


def test_define_registers_backend_select_for_factories():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("make(int n, *, Device? device=None) -> Tensor")
        lib.impl("make", lambda n, device=None: openreg.zeros(n), "cpu")
        lib.impl("make", lambda n, device=None: openreg.empty(n, device="meta"), "meta")
        assert dispatcher.has_kernel(f"{ns}::make", DispatchKey.BackendSelect)
        ops = getattr(openreg.ops, ns)
        assert ops.make(2).device.type == "cpu"
        assert ops.make(2, device="meta").device.type == "meta"


# -- 3. impl -----------------------------------------------------------------------------------------
def test_impl_device_names_and_keys():
    assert dispatch_key_for("cpu") == DispatchKey.CPU
    assert dispatch_key_for("meta") == DispatchKey.Meta
    assert dispatch_key_for("privateuseone") == DispatchKey.PrivateUse1
    assert dispatch_key_for(privateuse1_name()) == DispatchKey.PrivateUse1
    assert dispatch_key_for("default") == DispatchKey.CompositeExplicitAutograd
    assert dispatch_key_for("AutogradPrivateUse1") == DispatchKey.AutogradPrivateUse1
    with pytest.raises(RuntimeError, match="Expected one of"):
        dispatch_key_for("cuda")


def test_impl_after_rename(monkeypatch):
    from openreg import devices
    monkeypatch.setattr(devices, "_privateuse1_name", "foo")
    assert dispatch_key_for("foo") == DispatchKey.PrivateUse1
    assert dispatch_key_for("AutogradFoo") == DispatchKey.AutogradPrivateUse1


def test_impl_cpu_and_meta_kernels_run():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("sin(Tensor x) -> Tensor")
        lib.impl("sin", np_kernel(np.sin), "cpu")
        lib.impl(f"{ns}::sin", lambda x: openreg.empty(x.shape, device="meta"), "Meta")
        x = np.array([0.1, 0.5, 2.0], dtype=np.float32)
        out = getattr(openreg.ops, ns).sin(openreg.from_numpy(x))
        np.testing.assert_allclose(out.numpy(), np.sin(x))
        assert getattr(openreg.ops, ns).sin(openreg.empty(4, device="meta")).shape == (4,)


def test_impl_with_keyset_redispatch():
    ns = fresh_ns()
    seen = []
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", np_kernel(lambda a: a + 1), "CPU")

        def autograd_cpu(keyset, x):
            seen.append(keyset)
            return getattr(openreg.ops, ns).f.default.redispatch(keyset & (1 << DispatchKey.CPU), x)
        lib.impl("f", autograd_cpu, "AutogradCPU", with_keyset=True)
        assert getattr(openreg.ops, ns).f(t([1.0])).tolist() == [2.0]
        assert seen and seen[0] >> DispatchKey.AutogradCPU & 1


def test_impl_default_is_composite_explicit():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        impl(f"{ns}::f", "default", lambda x: openreg.ops.aten.abs.default(x), lib=lib)
        assert dispatcher.has_kernel(f"{ns}::f", DispatchKey.CompositeExplicitAutograd)
        assert getattr(openreg.ops, ns).f(t([-3.0])).tolist() == [3.0]
        assert getattr(openreg.ops, ns).f(openreg.empty(2, device="meta")).device.type == "meta"


def test_impl_errors_leave_registry_unchanged():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", np_kernel(np.abs), "cpu")
        q = f"{ns}::f"
        before = dispatcher.dump_table(q)
        with pytest.raises(TypeError, match="callable"):
            lib.impl("f", 3, "cpu")
        with pytest.raises(RuntimeError, match="namespace"):
            lib.impl("other::f", np.abs, "cpu")
        with pytest.raises(RuntimeError, match="namespace"):
            lib.impl(openreg.ops.aten.abs.default, np.abs, "cpu")
        with pytest.raises(RuntimeError, match="already a kernel registered"):
            lib.impl("f", np_kernel(np.abs), "cpu", allow_override=False)
        with pytest.raises(RuntimeError, match="Expected one of"):
            lib.impl("f", np_kernel(np.abs), "nodevice")
        with pytest.raises(RuntimeError, match="name or an OpOverload"):
            lib.impl(3.5, np_kernel(np.abs), "cpu")
        assert dispatcher.dump_table(q) == before


def test_impl_override_warns():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", np_kernel(lambda a: a + 1), "cpu")
        with pytest.warns(UserWarning, match="Overriding a previously registered kernel"):
            lib.impl("f", np_kernel(lambda a: a + 2), "cpu")
        assert getattr(openreg.ops, ns).f(t([0.0])).tolist() == [2.0]


def test_impl_dispatch_key_mismatch_with_library():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as deflib, _scoped_library(ns, "IMPL", "CPU") as lib:
        deflib.define("f(Tensor x) -> Tensor")
        before = dispatcher.dump_table(f"{ns}::f")
        with pytest.raises(RuntimeError, match="inconsistent with the dispatch key"):
            lib.impl("f", np_kernel(np.abs), "Meta")
        assert dispatcher.dump_table(f"{ns}::f") == before
        lib.impl("f", np_kernel(np.abs))          # the library's key
        assert getattr(openreg.ops, ns).f(t([-1.0])).tolist() == [1.0]


def test_meta_kernel_on_composite_implicit_refused():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: openreg.ops.aten.abs.default(x), "CompositeImplicitAutograd")
        before = dispatcher.dump_table(f"{ns}::f")
        with pytest.raises(RuntimeError, match="should not register a meta kernel"):
            lib.impl("f", lambda x: x, "Meta")
        assert dispatcher.dump_table(f"{ns}::f") == before
        # It decomposes on meta instead.
        assert getattr(openreg.ops, ns).f(openreg.empty(3, device="meta")).shape == (3,)


# -- 4. fallthrough and fallbacks ----------------------------------------------------------------------
def test_fallthrough_kernel_raises_when_called():
    with pytest.raises(NotImplementedError, match="should never be called"):
        fallthrough_kernel()


def test_fallthrough_per_op():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", np_kernel(lambda a: a * 3), "cpu")
        lib.impl("f", lambda ks, x: pytest.fail("AutogradCPU ran"), "AutogradCPU", with_keyset=True)
        with pytest.warns(UserWarning, match="Overriding"):
            lib.impl("f", fallthrough_kernel, "AutogradCPU")
        assert getattr(openreg.ops, ns).f(t([1.0])).tolist() == [3.0]


def test_fallback_only_in_global_namespace_and_boxed():
    with _scoped_library(fresh_ns(), "IMPL") as lib, pytest.raises(RuntimeError, match="global namespace"):
        lib.fallback(fallthrough_kernel, "AutogradMeta")
    calls = []

    def boxed(op, *args, **kwargs):
        calls.append(op.name())
        return openreg.empty(args[0].shape, device="meta")
    with _scoped_library("_", "IMPL") as lib:
        lib.fallback(boxed, "Meta")
        ns = fresh_ns()
        with _scoped_library(ns, "FRAGMENT") as deflib:
            deflib.define("nometa(Tensor x) -> Tensor")
            out = getattr(openreg.ops, ns).nometa(openreg.empty(5, device="meta"))
        assert out.shape == (5,) and calls == [f"{ns}::nometa"]
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as deflib:      # the fallback is gone again
        deflib.define("nometa(Tensor x) -> Tensor")
        with pytest.raises(NotImplementedError, match="Could not run"):
            getattr(openreg.ops, ns).nometa(openreg.empty(5, device="meta"))


def test_fallthrough_fallback():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as deflib:
        deflib.define("f(Tensor x) -> Tensor")
        deflib.impl("f", np_kernel(lambda a: a + 5), "cpu")
        deflib.impl("f", lambda x: pytest.fail("composite ran"), "CompositeExplicitAutograd")
        with _scoped_library("_", "IMPL") as lib:
            lib.fallback(fallthrough_kernel, "AutogradCPU")
            assert getattr(openreg.ops, ns).f(t([1.0])).tolist() == [6.0]


# -- 5. lifetime ---------------------------------------------------------------------------------------
def test_destroy_restores_replaced_kernel_and_nested_unwind():
    ns = fresh_ns()
    base = Library(ns, "DEF")
    base.define("f(Tensor x) -> Tensor")
    base.impl("f", np_kernel(lambda a: a + 1), "cpu")
    f = getattr(openreg.ops, ns).f
    table0 = dispatcher.dump_table(f"{ns}::f")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _scoped_library(ns, "IMPL") as outer:
            outer.impl("f", np_kernel(lambda a: a + 10), "cpu")
            with _scoped_library(ns, "IMPL") as inner:
                inner.impl("f", np_kernel(lambda a: a + 100), "cpu")
                assert f(t([0.0])).tolist() == [100.0]
            assert f(t([0.0])).tolist() == [10.0]
    assert f(t([0.0])).tolist() == [1.0]
    assert dispatcher.dump_table(f"{ns}::f") == table0
    base._destroy()
    assert not hasattr(getattr(openreg.ops, ns), "f")
    assert dispatcher.dump_table(f"{ns}::f") == f"{ns}::f: <not registered>"


def test_destroy_out_of_order():
    ns = fresh_ns()
    base = Library(ns, "FRAGMENT")
    base.define("f(Tensor x) -> Tensor")
    base.impl("f", np_kernel(lambda a: a + 1), "cpu")
    a, b = Library(ns, "IMPL"), Library(ns, "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a.impl("f", np_kernel(lambda v: v + 2), "cpu")
        b.impl("f", np_kernel(lambda v: v + 3), "cpu")
    a._destroy()
    assert getattr(openreg.ops, ns).f(t([0.0])).tolist() == [3.0]
    b._destroy()
    assert getattr(openreg.ops, ns).f(t([0.0])).tolist() == [1.0]
    base._destroy()


def test_garbage_collection_destroys():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    assert hasattr(getattr(openreg.ops, ns), "f")
    del lib
    gc.collect()
    assert not hasattr(getattr(openreg.ops, ns), "f")
    Library(ns, "DEF")._destroy()   # the DEF slot was released too


def test_destroyed_library_raises():
    lib = Library(fresh_ns(), "FRAGMENT")
    lib._destroy()
    lib._destroy()      # idempotent
    for call in (lambda: lib.define("f(Tensor x) -> Tensor"), lambda: lib.impl("f", np.abs, "cpu"),
                 lambda: lib.fallback(fallthrough_kernel, "CPU")):
        with pytest.raises(RuntimeError, match="destroyed"):
            call()


def test_scoped_library_dispatch_key():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as deflib:
        deflib.define("f(Tensor x) -> Tensor")
        with _scoped_library(ns, "IMPL", dispatch_key="CPU") as lib:
            lib.impl("f", np_kernel(np.negative))
            assert dispatcher.has_kernel(f"{ns}::f", DispatchKey.CPU)
        assert not dispatcher.has_kernel(f"{ns}::f", DispatchKey.CPU)


# -- 6. fake impls -----------------------------------------------------------------------------------
def test_register_fake_serves_meta_and_is_undone():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("outer(Tensor a, Tensor b) -> Tensor")

        @register_fake(f"{ns}::outer", lib=lib)
        def _(a, b):
            return openreg.empty((a.shape[0], b.shape[0]), dtype=a.dtype, device=a.device)
        out = getattr(openreg.ops, ns).outer(openreg.empty(3, device="meta"), openreg.empty(4, device="meta"))
        assert out.shape == (3, 4) and out.device.type == "meta"
        assert "test_library.py" in dispatcher.dump_table(f"{ns}::outer").split("fake: ")[1]
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("outer(Tensor a, Tensor b) -> Tensor")
        assert dispatcher.find(f"{ns}::outer").fake_impls == []


def test_register_fake_rules():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("a(Tensor x) -> Tensor")
        lib.define("b(Tensor x) -> Tensor")
        lib.define("c(Tensor x) -> Tensor")
        register_fake(f"{ns}::a", lambda x: x, lib=lib)
        before = dispatcher.dump_table(f"{ns}::a")
        with pytest.raises(RuntimeError, match="already has a fake impl registered at .*test_library.py"):
            register_fake(f"{ns}::a", lambda x: x, lib=lib, allow_override=False)
        assert dispatcher.dump_table(f"{ns}::a") == before
        lib.impl("b", lambda x: x, "Meta")
        with pytest.raises(RuntimeError, match="DispatchKey::Meta implementation"):
            register_fake(f"{ns}::b", lambda x: x, lib=lib, allow_override=False)
        lib.impl("c", lambda x: x, "CompositeImplicitAutograd")
        with pytest.raises(RuntimeError, match="CompositeImplicitAutograd operators do not need a fake impl"):
            register_fake(f"{ns}::c", lambda x: x, lib=lib, allow_override=False)
        # Overriding is allowed by default (as torch.library 2.13), but a composite op still gets no Meta kernel.
        before_c = dispatcher.dump_table(f"{ns}::c")
        with pytest.raises(RuntimeError, match="should not register a meta kernel directly"):
            register_fake(f"{ns}::c", lambda x: x, lib=lib)
        assert dispatcher.dump_table(f"{ns}::c") == before_c
        with pytest.raises(ValueError, match="unexpected type"):
            register_fake(3, lambda x: x, lib=lib)
        register_fake(f"{ns}::a", lambda x: openreg.empty(2, 5, device=x.device), lib=lib)
        assert getattr(openreg.ops, ns).a(openreg.empty(3, device="meta")).shape == (2, 5)
        register_fake(f"{ns}::b", lambda x: openreg.empty(7, device=x.device), lib=lib)
        assert getattr(openreg.ops, ns).b(openreg.empty(3, device="meta")).shape == (7,)


def test_register_fake_accepts_opoverload():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        op = getattr(openreg.ops, ns).f.default
        register_fake(op, lambda x: openreg.empty(x.shape, device=x.device), lib=lib)
        assert op(openreg.empty(2, 2, device="meta")).shape == (2, 2)


def test_impl_abstract_deprecated():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        with pytest.warns(FutureWarning, match="register_fake"):
            impl_abstract(f"{ns}::f", lambda x: openreg.empty(x.shape, device=x.device), lib=lib)
        assert getattr(openreg.ops, ns).f(openreg.empty(2, device="meta")).shape == (2,)


def test_get_ctx_dynamic_size():
    with pytest.raises(RuntimeError, match="get_ctx"):
        get_ctx()
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("nonzero(Tensor x) -> Tensor")

        @register_fake(f"{ns}::nonzero", lib=lib)
        def _(x):
            ctx = get_ctx()
            with pytest.raises(ValueError, match="greater than or equal to 0"):
                ctx.new_dynamic_size(min=-1)
            nnz = ctx.new_dynamic_size(max=x.numel())
            return openreg.empty((nnz, x.dim()), dtype=openreg.int64, device=x.device)
        out = getattr(openreg.ops, ns).nonzero(openreg.empty(2, 3, device="meta"))
        assert is_dynamic_size(out.shape[0]) and out.shape[1] == 2
        assert dynamic_size_bounds(out.shape[0]) == (0, 6)
        assert not is_dynamic_size(6)


# -- 7. register_autograd (registration checks) ------------------------------------------------------------
def test_register_autograd_checks():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("mut_(Tensor(a!) x) -> ()")
        lib.define("view(Tensor(a) x) -> Tensor(a)")
        lib.define("kwt(Tensor x, *, Tensor y) -> Tensor")
        lib.define("ok(Tensor x) -> Tensor")
        before = {n: dispatcher.dump_table(f"{ns}::{n}") for n in ("mut_", "view", "kwt")}
        with pytest.raises(RuntimeError, match="non-functional operator"):
            register_autograd(f"{ns}::mut_", lambda ctx, g: g, lib=lib)
        with pytest.raises(RuntimeError, match="non-functional operator"):
            register_autograd(f"{ns}::view", lambda ctx, g: g, lib=lib)
        with pytest.raises(NotImplementedError, match="kwarg-only Tensor args"):
            register_autograd(f"{ns}::kwt", lambda ctx, g: g, lib=lib)
        with pytest.raises(ValueError, match="unexpected type"):
            register_autograd(1.0, lambda ctx, g: g, lib=lib)
        assert before == {n: dispatcher.dump_table(f"{ns}::{n}") for n in before}
        register_autograd(f"{ns}::ok", lambda ctx, g: g, lib=lib)
        assert dispatcher.has_kernel(f"{ns}::ok", DispatchKey.Autograd)


def test_register_autograd_without_grad_runs_forward_only():
    ns = fresh_ns()
    setups = []
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", np_kernel(lambda a: a * 2), "cpu")
        register_autograd(f"{ns}::f", lambda ctx, g: g * 2,
                          setup_context=lambda ctx, inputs, output: setups.append(1), lib=lib)
        assert getattr(openreg.ops, ns).f(t([1.0, 2.0])).tolist() == [2.0, 4.0]
        assert setups == []      # no input requires grad: setup_context does not run


# -- module-level register_kernel / impl ------------------------------------------------------------------
def test_register_kernel_module_level():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")
        register_kernel(f"{ns}::f", "cpu", np_kernel(np.exp), lib=lib)
        register_kernel(f"{ns}::f", None, lambda x: openreg.empty(x.shape, device=x.device), lib=lib)
        x = np.array([0.0, 1.0], dtype=np.float32)
        np.testing.assert_allclose(getattr(openreg.ops, ns).f(openreg.from_numpy(x)).numpy(), np.exp(x))
        assert getattr(openreg.ops, ns).f(openreg.empty(2, device="meta")).shape == (2,)
        with pytest.raises(ValueError, match="unexpected type"):
            register_kernel(1, "cpu", np.exp, lib=lib)


def test_impl_decorator_multiple_types():
    ns = fresh_ns()
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")

        @impl(f"{ns}::f", ["cpu", "meta"], lib=lib)
        def f(x):
            return openreg.empty(x.shape, device=x.device) if x.device.type == "meta" else \
                openreg.ops.aten.abs.default(x)
        assert callable(f)
        assert dispatcher.has_kernel(f"{ns}::f", DispatchKey.CPU)
        assert dispatcher.has_kernel(f"{ns}::f", DispatchKey.Meta)
        with pytest.raises(ValueError, match="namespace"):
            impl("nonamespace", "cpu", f, lib=lib)


# -- 10. openreg's own ops use the library; docstrings run -----------------------------------------------
def test_builtin_ops_registered_through_library():
    from openreg.operators import _loader
    aten_lib = _loader._lib("aten", "def")
    assert isinstance(aten_lib, Library) and aten_lib.kind == "DEF"
    assert dispatcher.has_kernel("aten::abs_", DispatchKey.ADInplaceOrView)
    assert dispatcher.has_kernel("aten::empty.memory_format", DispatchKey.BackendSelect)
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
        Library("aten", "DEF")


def test_docstring_examples_run():
    import doctest

    import openreg._library.custom_ops as co
    import openreg._library.fake_impl as fi
    import openreg._library.infer_schema as inf
    import openreg._library.opcheck as oc
    import openreg.library as lib_module
    for module in (lib_module, fi, inf, co, oc):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__


def test_destroy_restores_record_kernels():
    """Overriding kernels the operator loader registered from records (a structured CPU kernel, a composite,
    the Autograd and Autocast kernels it derived) and destroying the Library restores exactly the record's."""
    import warnings
    names = ("aten::hypot", "aten::gather", "aten::mm", "aten::rand")
    before = {q: dispatcher.dump_table(q) for q in names}
    x = openreg.tensor([[3.0, 1.0], [4.0, 2.0]])
    lib = Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.impl("hypot", lambda a, b: a, "CPU")
        lib.impl("gather", lambda a, d, i, *, sparse_grad=False: a, "CompositeExplicitAutograd")
        lib.impl("mm", lambda ks, a, b: a, "AutocastCPU", with_keyset=True)
        lib.impl("rand", lambda size, **kw: openreg.zeros(size), "CompositeExplicitAutograd")
    assert openreg.hypot(x, x) is x and openreg.ops.aten.rand([2]).tolist() == [0.0, 0.0]
    assert all(dispatcher.dump_table(q) != before[q] for q in names)
    lib._destroy()
    assert {q: dispatcher.dump_table(q) for q in names} == before
    assert openreg.hypot(x[0], x[1]).tolist() == [5.0, openreg.hypot(x[0, 1:], x[1, 1:]).item()]
    assert openreg.gather(x, 1, openreg.tensor([[1], [0]])).tolist() == [[1.0], [4.0]]
    with openreg.autocast("cpu"):
        assert (x @ x).dtype is openreg.bfloat16
