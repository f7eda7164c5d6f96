"""Registration is safe while other threads call operators: defining, implementing and destroying ops (and
fallbacks) never makes a concurrent call fail, and stale OpOverload objects keep working after a redefinition."""
import itertools
import sys
import threading
import time
import warnings

import pytest

import openreg
from openreg.library import Library, custom_op

_counter = itertools.count()


def test_overload_made_before_a_redefinition_still_calls_the_fallback():
    # An IMPL library outlives the definition, so the dispatcher keeps the operator's entry across it.
    impl = Library("redefined_ns", "IMPL")
    impl.impl("f", lambda x: x + 1, "CPU")
    defs = Library("redefined_ns", "DEF")
    defs.define("f(Tensor x) -> Tensor")
    old = openreg.ops.redefined_ns.f.default
    x = openreg.ones(2, requires_grad=True)
    assert old(x).tolist() == [2.0, 2.0]
    defs._destroy()
    with pytest.raises(NotImplementedError, match="redefined_ns::f"):
        old(x)
    defs = Library("redefined_ns", "DEF")
    defs.define("f(Tensor x) -> Tensor")
    try:
        assert old(x).tolist() == [2.0, 2.0]        # autograd's not-implemented fallback gets a real op
        assert openreg.ops.redefined_ns.f(x).tolist() == [2.0, 2.0]
    finally:
        defs._destroy()
        impl._destroy()


def test_packet_of_a_destroyed_op_says_so():
    lib = Library("destroyed_packet_ns", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    packet = openreg.ops.destroyed_packet_ns.f
    lib._destroy()
    with pytest.raises(RuntimeError, match="no overloads any more"):
        packet(openreg.ones(1))


def _churn(tid, stop, errors):
    """Define, implement, call and destroy operators, fake impls, custom ops and fallbacks, in a loop."""
    while not stop.is_set():
        try:
            ns = f"threads_churn_{tid}"
            lib = Library(ns, "DEF")
            lib.define("f(Tensor x) -> Tensor")
            lib.define("f.two(Tensor x, int n) -> Tensor")
            lib.impl("f", lambda x: x + 1, "CPU")
            lib.impl("f.two", lambda x, n: x * n, "CPU")
            ops = getattr(openreg.ops, ns)
            assert ops.f(openreg.ones(2, requires_grad=True)).tolist() == [2.0, 2.0]
            assert ops.f(openreg.ones(2), 3).tolist() == [3.0, 3.0]
            lib._destroy()

            @custom_op(f"threads_custom_{tid}_{next(_counter)}::g", mutates_args=())
            def g(x: openreg.Tensor) -> openreg.Tensor:
                return x.clone()
            g.register_fake(lambda x: openreg.empty_like(x))
            assert g(openreg.ones(2)).shape == (2,)
            g._destroy()

            fallback = Library("_", "IMPL")
            fallback.fallback(openreg.library.fallthrough_kernel, "Python")
            fallback._destroy()
        except Exception as e:  # noqa: BLE001 - every failure is the finding
            errors.append(f"churn {tid}: {type(e).__name__}: {e}")
            return


def _override(tid, stop, errors):
    """Override and restore a kernel of an operator other threads are calling, in a tight loop."""
    while not stop.is_set():
        try:
            shared = Library("threads_stable", "IMPL")
            shared.impl("h.two", lambda x, y: x - y, "Meta")
            shared._destroy()
        except Exception as e:  # noqa: BLE001 - every failure is the finding
            errors.append(f"override {tid}: {type(e).__name__}: {e}")
            return


def _call(tid, stop, errors, calls):
    x, y = openreg.ones(3, requires_grad=True), openreg.ones(3)
    ops, aten = openreg.ops.threads_stable, openreg.ops.aten
    while not stop.is_set():
        try:
            assert ops.h(x).tolist() == [2.0] * 3                 # through autograd's not-implemented fallback
            assert ops.h.default(y).tolist() == [2.0] * 3
            assert ops.h(y, y).tolist() == [2.0] * 3              # packet: picks the overload
            assert aten.add.Tensor(x, y).tolist() == [2.0] * 3
            (x * 2).sum().backward()
            calls[tid] += 1
        except Exception as e:  # noqa: BLE001 - every failure is the finding
            errors.append(f"caller {tid}: {type(e).__name__}: {e}")
            return


def test_registration_while_other_threads_call_ops():
    stable = Library("threads_stable", "DEF")
    stable.define("h(Tensor x) -> Tensor")
    stable.define("h.two(Tensor x, Tensor y) -> Tensor")
    stable.impl("h", lambda x: x * 2, "CPU")
    stable.impl("h.two", lambda x, y: x + y, "CPU")
    stop, errors, calls = threading.Event(), [], [0, 0]
    threads = [threading.Thread(target=_churn, args=(i, stop, errors)) for i in range(2)]
    threads += [threading.Thread(target=_override, args=(i, stop, errors)) for i in range(2)]
    threads += [threading.Thread(target=_call, args=(i, stop, errors, calls)) for i in range(2)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)       # switch threads often, so that races show up in a short run
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for t in threads:
                t.start()
            time.sleep(2.0)
            stop.set()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        stable._destroy()
    assert not errors, "\n".join(errors[:5])
    assert min(calls) > 0
