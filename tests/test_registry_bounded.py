"""Defining and destroying operators many times leaves nothing behind: the autograd fallback's kernels live
with the operator's dispatcher entry, the ``openreg.ops`` caches forget undefined operators, and the bounds
of the dynamic sizes a fake impl makes are dropped when its result tensors die."""
import gc
import itertools

import openreg
from openreg._dispatch import dispatcher
from openreg._dispatch.ops import ops
from openreg._library import fake_impl
from openreg.library import Library, get_ctx, register_fake

_counter = itertools.count()


def _cycle() -> None:
    ns = f"bounded_{next(_counter)}"
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1, "CPU")

    def fake(x):
        n = get_ctx().new_dynamic_size(max=4)
        return openreg.empty((n,), device=x.device)
    register_fake(f"{ns}::f", fake, lib=lib)
    op = getattr(openreg.ops, ns).f
    assert op(openreg.ones(2, requires_grad=True)).tolist() == [2.0, 2.0]   # autograd's fallback kernel
    out = op(openreg.empty(2, device="meta"))
    assert fake_impl.dynamic_size_bounds(out.shape[0]) == (0, 4)
    del out
    lib._destroy()


def _tables() -> tuple:
    gc.collect()
    fallback_kernels = sum(1 for e in dispatcher._operators.values() if "autograd_fallback" in e.derived)
    packets = sum(len(ns._packets) for ns in ops._namespaces.values())
    return len(dispatcher._operators), fallback_kernels, len(ops._namespaces), packets, len(fake_impl._bounds)


def test_define_destroy_cycles_do_not_grow_the_tables():
    _cycle()
    before = _tables()
    for _ in range(2000):
        _cycle()
    assert _tables() == before


def test_dynamic_size_bounds_live_as_long_as_the_result():
    lib = Library(f"bounded_{next(_counter)}", "DEF")
    lib.define("g(Tensor x) -> (Tensor, Tensor)")

    def fake(x):
        n = get_ctx().new_dynamic_size(min=1, max=9)
        return openreg.empty((n,), device=x.device), openreg.empty((n, 2), device=x.device)
    register_fake(f"{lib.ns}::g", fake, lib=lib)
    a, b = getattr(openreg.ops, lib.ns).g(openreg.empty(3, device="meta"))
    n = a.shape[0]
    lib._destroy()
    del a
    gc.collect()
    assert fake_impl.dynamic_size_bounds(n) == (1, 9)          # b still has it
    del b
    gc.collect()
    assert fake_impl.dynamic_size_bounds(n) == (0, None)       # forgotten with the last result
