"""openreg.library.custom_op, infer_schema, register_autograd on custom ops and opcheck (issue 3, items 7-9)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import openreg
from openreg import DispatchKey, Tag, Tensor
from openreg._dispatch import dispatcher
from openreg.library import (
    CustomOpDef,
    Library,
    OpCheckError,
    _scoped_library,
    custom_op,
    get_ctx,
    infer_schema,
    opcheck,
    register_autograd,
    register_fake,
    register_kernel,
)

_counter = [0]


def fresh(name: str = "op") -> str:
    _counter[0] += 1
    return f"tco{_counter[0]}::{name}"


@pytest.fixture
def ops_made():
    made: list[CustomOpDef] = []
    yield made
    for op in made:
        op._destroy()


def make(made, *args, **kwargs):
    def deco(fn):
        op = custom_op(*args, **kwargs)(fn)
        made.append(op)
        return op
    return deco


def npt(a) -> Tensor:
    return openreg.from_numpy(np.ascontiguousarray(a))


# -- infer_schema -----------------------------------------------------------------------------------
def test_infer_schema_types():
    def f(x: Tensor, y: Tensor | None, z: Tensor | None, xs: list[Tensor], n: int, fs: Sequence[float],
          b: bool, s: str, dt: openreg.dtype, dev: openreg.device, on: int | None = None,
          k: float = 0.5, flag: bool = True, mode: str = "sum") -> Tensor: ...
    assert infer_schema(f, mutates_args=()) == (
        "(Tensor x, Tensor? y, Tensor? z, Tensor[] xs, SymInt n, float[] fs, bool b, str s, ScalarType dt, "
        "Device dev, SymInt? on=None, float k=0.5, bool flag=True, str mode=\"sum\") -> Tensor")

    def g(x: Tensor, *, alpha: float = 1.0) -> tuple[Tensor, Tensor]: ...
    assert infer_schema(g, mutates_args=()) == "(Tensor x, *, float alpha=1.0) -> (Tensor, Tensor)"

    def h(x: Tensor, out: Tensor) -> None: ...
    assert infer_schema(h, mutates_args={"out"}) == "(Tensor x, Tensor(a1!) out) -> ()"
    assert infer_schema(h, mutates_args="unknown") == "(Tensor(a0!) x, Tensor(a1!) out) -> ()"

    def r(x: Tensor) -> list[Tensor]: ...
    assert infer_schema(r, mutates_args=()) == "(Tensor x) -> Tensor[]"


def test_infer_schema_errors():
    def no_ann(x) -> Tensor: ...
    with pytest.raises(ValueError, match="must have a type annotation"):
        infer_schema(no_ann, mutates_args=())

    def varargs(*args: Tensor) -> Tensor: ...
    with pytest.raises(ValueError, match="varargs"):
        infer_schema(varargs, mutates_args=())

    def bad_type(x: dict) -> Tensor: ...
    with pytest.raises(ValueError, match="unsupported type"):
        infer_schema(bad_type, mutates_args=())

    def bad_ret(x: Tensor) -> dict: ...
    with pytest.raises(ValueError, match="Return has unsupported type"):
        infer_schema(bad_ret, mutates_args=())

    def no_ret(x: Tensor): ...
    with pytest.raises(ValueError, match="No return type annotation"):
        infer_schema(no_ret, mutates_args=())

    def bad_default(x: Tensor, y: int = [1]) -> Tensor: ...
    with pytest.raises(ValueError, match="unsupported default value"):
        infer_schema(bad_default, mutates_args=())

    def mut_int(x: Tensor, n: int) -> Tensor: ...
    with pytest.raises(ValueError, match="only Tensors or collections of Tensors can be mutated"):
        infer_schema(mut_int, mutates_args={"n"})
    with pytest.raises(ValueError, match="were not found in the custom op's signature"):
        infer_schema(mut_int, mutates_args={"zzz"})


# -- 8. custom_op ----------------------------------------------------------------------------------
def test_custom_op_basic_and_schema(ops_made):
    name = fresh("numpy_sin")

    @make(ops_made, name, mutates_args=())
    def numpy_sin(x: Tensor) -> Tensor:
        return npt(np.sin(x.numpy()))
    assert isinstance(numpy_sin, CustomOpDef)
    assert str(numpy_sin._opoverload._schema) == f"{name}(Tensor x) -> Tensor"
    assert Tag.pt2_compliant_tag in numpy_sin._opoverload.tags
    x = np.array([0.3, 1.2], dtype=np.float32)
    np.testing.assert_allclose(numpy_sin(npt(x)).numpy(), np.sin(x), rtol=1e-6)
    ns, op = name.split("::")
    np.testing.assert_allclose(getattr(getattr(openreg.ops, ns), op)(npt(x)).numpy(), np.sin(x), rtol=1e-6)


def test_custom_op_requires_mutates_args_and_valid_name():
    with pytest.raises(TypeError, match="mutates_args"):
        custom_op(fresh())(lambda x: x)
    with pytest.raises(ValueError, match="namespace"):
        custom_op("noname", mutates_args=())
    with pytest.raises(ValueError, match="mutates_args"):
        custom_op(fresh(), mutates_args="x")


def test_custom_op_tags_and_explicit_schema(ops_made):
    name = fresh()

    @make(ops_made, name, mutates_args=(), schema="(Tensor x, int n) -> Tensor", tags=(Tag.pointwise,))
    def f(x, n):
        return npt(x.numpy() * n)
    assert f._opoverload.tags == (Tag.pt2_compliant_tag, Tag.pointwise)
    assert f(openreg.tensor([1.0, 2.0]), 3).tolist() == [3.0, 6.0]
    with pytest.raises(ValueError, match="Please make these consistent"):
        custom_op(fresh(), mutates_args={"x"}, schema="(Tensor x) -> Tensor")(lambda x: x)


def test_custom_op_kwarg_only_tensor_not_supported():
    name = fresh()

    def f(x: Tensor, *, y: Tensor) -> Tensor: ...
    with pytest.raises(NotImplementedError, match="kwarg-only Tensor args"):
        custom_op(name, mutates_args=())(f)
    assert dispatcher.find(name) is None


def test_custom_op_mutation_bumps_version(ops_made):
    @make(ops_made, fresh("sin_"), mutates_args={"x"}, device_types="cpu")
    def sin_(x: Tensor) -> None:
        arr = x.numpy()
        np.sin(arr, out=arr)
    assert "Tensor(a0!) x" in str(sin_._opoverload._schema)
    x = openreg.tensor([0.5, 1.0])
    v = x._version
    assert sin_(x) is None
    assert x._version == v + 1
    np.testing.assert_allclose(x.numpy(), np.sin([0.5, 1.0]).astype(np.float32), rtol=1e-6)
    assert sin_(openreg.empty(2, device="meta")) is None     # trivial fake impl for a mutating op


def test_custom_op_unknown_mutates(ops_made):
    @make(ops_made, fresh(), mutates_args="unknown")
    def f(x: Tensor, y: Tensor) -> None:
        x.numpy()[...] += 1
    x, y = openreg.zeros(2), openreg.zeros(2)
    vx, vy = x._version, y._version
    f(x, y)
    assert (x._version, y._version) == (vx + 1, vy + 1)


def test_custom_op_output_may_not_alias_input(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def bad(x: Tensor) -> Tensor:
        return x

    @make(ops_made, fresh(), mutates_args=())
    def bad_view(x: Tensor) -> Tensor:
        return x.view(-1)
    for op in (bad, bad_view):
        with pytest.raises(RuntimeError, match="may not alias any inputs"):
            op(openreg.zeros(2))


def test_register_kernel_per_device_and_set_kernel_enabled(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return npt(np.zeros(1, np.float32))

    @f.register_kernel("cpu")
    def _(x):
        return npt(np.ones(1, np.float32))
    inp = openreg.zeros(1)
    assert f(inp).tolist() == [1.0]
    with f.set_kernel_enabled("cpu", enabled=False):
        assert f(inp).tolist() == [0.0]
        with f.set_kernel_enabled("cpu", enabled=False):
            assert f(inp).tolist() == [0.0]
        assert f(inp).tolist() == [0.0]
    assert f(inp).tolist() == [1.0]
    assert dispatcher.has_kernel(f._qualname, DispatchKey.CPU)
    assert dispatcher.has_kernel(f._qualname, DispatchKey.CompositeExplicitAutograd)
    register_kernel(f._qualname, "cpu", lambda x: npt(np.full(1, 7, np.float32)))
    assert f(inp).tolist() == [7.0]
    with pytest.raises(RuntimeError, match="Expected one of"):
        f.register_kernel("nodev", lambda x: x)


def test_custom_op_device_types_restricts(ops_made):
    @make(ops_made, fresh(), mutates_args=(), device_types="cpu")
    def f(x: Tensor) -> Tensor:
        return npt(x.numpy() + 1)
    assert not dispatcher.has_kernel(f._qualname, DispatchKey.CompositeExplicitAutograd)
    assert f(openreg.zeros(1)).tolist() == [1.0]


def test_custom_op_factory_needs_device(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def fac(n: int, device: openreg.device) -> Tensor:
        return openreg.zeros(n)
    assert fac(3, "cpu").tolist() == [0.0, 0.0, 0.0]

    def nodev(n: int) -> Tensor:
        return openreg.zeros(n)
    with pytest.raises(ValueError, match="device: openreg.device"):
        custom_op(fresh(), mutates_args=(), device_types="cpu")(nodev)

    @make(ops_made, fresh(), mutates_args=(), device_types="cpu")
    def fac_cpu(n: int, device: openreg.device) -> Tensor:
        return openreg.zeros(n)
    with pytest.raises(RuntimeError, match="does not have a kernel registered for meta"):
        fac_cpu(2, "meta")


def test_custom_op_register_fake_and_missing_fake(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return npt(x.numpy()[:1].copy())
    with pytest.raises(RuntimeError, match="There was no fake impl registered"):
        f(openreg.empty(3, device="meta"))

    @f.register_fake
    def _(x):
        return openreg.empty(1, dtype=x.dtype, device=x.device)
    assert f(openreg.empty(3, device="meta")).shape == (1,)
    # the module-level API routes to the CustomOpDef
    register_fake(f._qualname, lambda x: openreg.empty(2, device=x.device))
    assert f(openreg.empty(3, device="meta")).shape == (2,)


def test_redefinition_replaces(ops_made):
    name = fresh()

    @make(ops_made, name, mutates_args=())
    def f(x: Tensor) -> Tensor:
        return npt(x.numpy() + 1)

    @make(ops_made, name, mutates_args=())
    def g(x: Tensor, n: int = 2) -> Tensor:
        return npt(x.numpy() * n)
    ns, op = name.split("::")
    packet = getattr(getattr(openreg.ops, ns), op)
    assert str(packet.default._schema) == f"{name}(Tensor x, SymInt n=2) -> Tensor"
    assert packet(openreg.tensor([3.0])).tolist() == [6.0]


def test_destroying_custom_op_cleans_registry():
    name = fresh()

    @custom_op(name, mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x.clone()
    f._destroy()
    assert dispatcher.dump_table(name) == f"{name}: <not registered>"


# -- 7. autograd on custom ops ----------------------------------------------------------------------
def test_custom_op_register_autograd_checks(ops_made):
    @make(ops_made, fresh(), mutates_args={"x"})
    def mut(x: Tensor) -> None:
        pass
    with pytest.raises(RuntimeError, match="non-functional operator"):
        mut.register_autograd(lambda ctx, g: g)
    with pytest.raises(RuntimeError, match="non-functional operator"):
        register_autograd(mut._qualname, lambda ctx, g: g)

    calls = []

    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor, *, k: float) -> Tensor:
        return npt(x.numpy() * k)
    f.register_autograd(lambda ctx, g: g, setup_context=lambda ctx, inputs, keyword_only_inputs, output:
                        calls.append(1))
    assert f(openreg.tensor([1.0]), k=2.0).tolist() == [2.0]
    assert calls == []        # nothing requires grad


def _has_autograd_function() -> bool:
    try:
        from openreg.autograd import Function  # noqa: F401
    except ImportError:
        return False
    return True


needs_autograd = pytest.mark.skipif(not _has_autograd_function(), reason="openreg.autograd.Function not available")


@needs_autograd
def test_custom_op_autograd_end_to_end(ops_made):
    setups = []

    @make(ops_made, fresh("numpy_sin"), mutates_args=())
    def numpy_sin(x: Tensor) -> Tensor:
        return npt(np.sin(x.detach().numpy()))

    def setup_context(ctx, inputs, output):
        setups.append(1)
        (x,) = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * npt(np.cos(x.detach().numpy()))
    numpy_sin.register_autograd(backward, setup_context=setup_context)
    xv = np.array([0.1, 0.7, 2.0], dtype=np.float32)
    x = npt(xv.copy()).requires_grad_()
    y = numpy_sin(x)
    assert setups == [1] and y.requires_grad
    (gx,) = openreg.autograd.grad(y, x, openreg.ones(3))
    np.testing.assert_allclose(gx.numpy(), np.cos(xv), rtol=1e-6)


@needs_autograd
def test_missing_autograd_formula_raises_at_backward(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return npt(x.detach().numpy() * 2)
    x = openreg.tensor([1.0, 2.0], requires_grad=True)
    y = f(x)
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        openreg.autograd.backward(y, openreg.ones(2))


@needs_autograd
def test_library_register_autograd_end_to_end():
    with _scoped_library(fresh().split("::")[0], "FRAGMENT") as lib:
        lib.define("triple(Tensor x) -> Tensor")
        lib.impl("triple", lambda x: npt(x.detach().numpy() * 3), "cpu")
        register_autograd(f"{lib.ns}::triple", lambda ctx, g: g * 3, lib=lib)
        x = openreg.tensor([1.0, 2.0], requires_grad=True)
        y = getattr(openreg.ops, lib.ns).triple(x)
        openreg.autograd.backward(y, openreg.ones(2))
        assert x.grad.tolist() == [3.0, 3.0]


# -- 9. opcheck -------------------------------------------------------------------------------------
def test_opcheck_passes_for_correct_op(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def scale(x: Tensor, s: float) -> Tensor:
        return npt(x.cpu().numpy() * s).to(x.device)

    @scale.register_fake
    def _(x, s):
        return openreg.empty(x.shape, dtype=x.dtype, device=x.device)
    x = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    result = opcheck(scale, (x, 2.0))
    assert set(result) == {"test_schema", "test_autograd_registration", "test_faketensor",
                           "test_dispatch_consistency"}
    assert all(v == "SUCCESS" for v in result.values())
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert opcheck(scale._opoverload, (x, 2.0), test_utils="test_faketensor") == {"test_faketensor": "SUCCESS"}


def test_opcheck_catches_undeclared_mutation():
    with _scoped_library(fresh().split("::")[0], "FRAGMENT") as lib:
        lib.define("sneaky(Tensor x) -> Tensor")

        def sneaky(x):
            x.numpy()[...] += 1
            return npt(x.numpy() * 2)
        lib.impl("sneaky", sneaky, "cpu")
        op = getattr(openreg.ops, lib.ns).sneaky.default
        x = openreg.tensor([1.0])
        with pytest.raises(OpCheckError, match="test_schema.*not defined as mutable but was mutated"):
            opcheck(op, (x,), test_utils="test_schema")
        assert x.tolist() == [1.0]    # ran on copies
        res = opcheck(op, (x,), test_utils=("test_schema",), raise_exception=False)
        assert isinstance(res["test_schema"], RuntimeError)


def test_opcheck_catches_undeclared_alias():
    with _scoped_library(fresh().split("::")[0], "FRAGMENT") as lib:
        lib.define("alias(Tensor x) -> Tensor")
        lib.impl("alias", lambda x: x.view(-1), "cpu")
        op = getattr(openreg.ops, lib.ns).alias.default
        with pytest.raises(OpCheckError, match="not defined to alias output"):
            opcheck(op, (openreg.zeros(2),), test_utils="test_schema")
        lib.define("alias2(Tensor(a) x) -> Tensor(a)")
        lib.impl("alias2", lambda x: x.view(-1), "CompositeExplicitAutograd")
        op2 = getattr(openreg.ops, lib.ns).alias2.default
        assert opcheck(op2, (openreg.zeros(2),), test_utils="test_schema") == {"test_schema": "SUCCESS"}


def test_opcheck_faketensor_mismatch(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return npt(x.numpy().T.copy())

    @f.register_fake
    def _(x):
        return openreg.empty(x.shape, dtype=x.dtype, device=x.device)     # wrong: not transposed
    with pytest.raises(OpCheckError, match="test_faketensor.*size mismatch"):
        opcheck(f, (openreg.zeros(2, 3),), test_utils="test_faketensor")

    @make(ops_made, fresh(), mutates_args=())
    def g(x: Tensor) -> Tensor:
        return npt(x.numpy().astype(np.float64))

    @g.register_fake
    def _(x):
        return openreg.empty(x.shape, dtype=x.dtype, device=x.device)
    with pytest.raises(OpCheckError, match="dtype mismatch"):
        opcheck(g, (openreg.zeros(2),), test_utils="test_faketensor")


def test_opcheck_faketensor_dynamic_size(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def nonzero(x: Tensor) -> Tensor:
        return npt(np.stack(np.nonzero(x.numpy()), axis=1).astype(np.int64))

    @nonzero.register_fake
    def _(x):
        n = get_ctx().new_dynamic_size(max=x.numel())
        return openreg.empty((n, x.dim()), dtype=openreg.int64, device=x.device)
    x = openreg.tensor([[0.0, 1.0], [2.0, 0.0]])
    assert opcheck(nonzero, (x,), test_utils=("test_faketensor", "test_schema"))["test_faketensor"] == "SUCCESS"


def test_opcheck_missing_fake_fails(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x.clone()
    res = opcheck(f, (openreg.zeros(2),), test_utils="test_faketensor", raise_exception=False)
    assert "no fake impl" in str(res["test_faketensor"])


def test_opcheck_autograd_registration_flags_backend_autograd():
    class FakeRequiresGrad:
        pass
    with _scoped_library(fresh().split("::")[0], "FRAGMENT") as lib:
        lib.define("f(Tensor x) -> Tensor")

        def kernel(x):
            out = npt(x.detach().numpy() * 2)
            out._requires_grad = True      # what an autograd.Function inside a backend kernel would do
            return out
        lib.impl("f", kernel, "cpu")
        op = getattr(openreg.ops, lib.ns).f.default
        x = openreg.tensor([1.0], requires_grad=True)
        with pytest.raises(OpCheckError, match="test_autograd_registration.*autograd key"):
            opcheck(op, (x,), test_utils="test_autograd_registration")
        register_autograd(f"{lib.ns}::f", lambda ctx, g: g * 2, lib=lib)
        assert opcheck(op, (x,), test_utils="test_autograd_registration") == \
            {"test_autograd_registration": "SUCCESS"}


def test_opcheck_dispatch_consistency(ops_made):
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return npt(np.exp(x.cpu().numpy())).to(x.device)
    x = openreg.tensor([0.0, 1.0])
    assert opcheck(f, (x,), test_utils="test_dispatch_consistency", atol=1e-6, rtol=1e-6) == \
        {"test_dispatch_consistency": "SUCCESS"}
    from openreg._library import opcheck as oc
    if not oc._available_devices():
        pytest.skip("no PrivateUse1 device available")

    @f.register_kernel(openreg.devices.privateuse1_name())
    def _(x):
        return npt(np.exp(x.cpu().numpy()) + 1).to(x.device)
    with pytest.raises(OpCheckError, match="test_dispatch_consistency.*differs from cpu"):
        opcheck(f, (x,), test_utils="test_dispatch_consistency")


def test_opcheck_argument_validation(ops_made):
    with pytest.raises(ValueError, match="test_utils"):
        opcheck(openreg.ops.aten.abs.default, (openreg.zeros(1),), test_utils=("test_bogus",))
    with pytest.raises(ValueError, match="OpOverload"):
        opcheck(lambda x: x, (openreg.zeros(1),))
    @make(ops_made, fresh(), mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x.clone()
    assert opcheck(f._opoverload.overloadpacket, (openreg.tensor([-1.0]),), test_utils="test_schema") == \
        {"test_schema": "SUCCESS"}
    with pytest.raises(RuntimeError, match="without overloads"):
        opcheck(openreg.ops.aten.add, (openreg.zeros(1), openreg.zeros(1)))


def test_library_and_custom_op_interplay():
    lib = Library(fresh().split("::")[0], "FRAGMENT")
    lib.define("f(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="unexpected type"):
        register_kernel(3.0, "cpu", lambda x: x)
    lib._destroy()


def test_custom_op_bad_device_type_leaves_registry_clean():
    name = fresh()

    def f(x: Tensor) -> Tensor:
        return x.clone()
    with pytest.raises(RuntimeError, match="Expected one of"):
        custom_op(name, mutates_args=(), device_types="nodev")(f)
    assert dispatcher.dump_table(name) == f"{name}: <not registered>"


@needs_autograd
def test_custom_op_autograd_kwarg_only_and_gradient_count(ops_made):
    seen = []

    @make(ops_made, fresh(), mutates_args=())
    def mul(x: Tensor, *, val: float) -> Tensor:
        return npt(x.detach().numpy() * val)

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        seen.append(keyword_only_inputs["val"])
        ctx.val = keyword_only_inputs["val"]
    mul.register_autograd(lambda ctx, g: g * ctx.val, setup_context=setup_context)
    x = openreg.tensor([1.0, 2.0], requires_grad=True)
    with openreg.no_grad():
        mul(x, val=3.0)
    assert seen == []           # grad not needed: setup_context does not run
    (gx,) = openreg.autograd.grad(mul(x, val=3.0), x, openreg.ones(2))
    assert seen == [3.0] and gx.tolist() == [3.0, 3.0]

    @make(ops_made, fresh(), mutates_args=())
    def two(x: Tensor, y: Tensor) -> Tensor:
        return npt(x.detach().numpy() + y.detach().numpy())
    two.register_autograd(lambda ctx, g: g)      # wrong: one gradient for two inputs
    out = two(x, openreg.tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        openreg.autograd.grad(out, x, openreg.ones(2))
