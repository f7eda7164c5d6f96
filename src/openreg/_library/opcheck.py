"""``opcheck``: test that an operator's registrations (schema, autograd, fake impl, backends) are consistent.

Sub-tests (each gets copies of the inputs, so the caller's tensors are never touched):

- ``test_schema``: runs the op and compares every input before/after: a value or metadata change of an
  argument the schema does not declare written (``Tensor(a!)``), or an output sharing memory with an input
  the schema does not declare aliased, fails.
- ``test_autograd_registration``: when an input requires grad and the op has no kernel at an autograd key
  (``Autograd<Backend>``, ``Autograd``, ``CompositeImplicitAutograd``), no output may require grad
  (a backend kernel doing autograd itself is a mis-registration).
- ``test_faketensor``: runs the op on Meta copies of the inputs (its fake impl / Meta kernel) and on the real
  inputs; output count, sizes (dynamic sizes accept any real size within their bounds), strides (of dims
  larger than one) and dtypes must match.
- ``test_dispatch_consistency``: the op on every available backend (the PrivateUse1 device when
  ``openreg.<name>.is_available()``) equals the CPU result within ``atol``/``rtol``, outputs and mutated inputs.

``test_aot_dispatch_dynamic``/``test_aot_dispatch_static`` (PyTorch's compile checks) are accepted and run
``test_faketensor``, the closest check openreg can make without a compiler.

>>> import openreg
>>> from openreg.library import opcheck
>>> opcheck(openreg.ops.aten.abs.default, (openreg.tensor([-1.0, 2.0]),))["test_faketensor"]
'SUCCESS'
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import utils
from .fake_impl import dynamic_size_bounds, is_dynamic_size

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_dispatch_consistency")


class OpCheckError(Exception):
    """An ``opcheck`` sub-test failed; the message names it and the cause is chained."""


def _is_tensor(x) -> bool:
    return hasattr(x, "_ks")


def _tree_map(fn: Callable, value):
    if _is_tensor(value):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(_tree_map(fn, v) for v in value)
    if isinstance(value, list):
        return [_tree_map(fn, v) for v in value]
    if isinstance(value, dict):
        return {k: _tree_map(fn, v) for k, v in value.items()}
    return value


def _copy(t, device=None, keep_grad: bool = True):
    import openreg
    with _no_grad():
        c = t.detach().clone() if device is None else t.detach().to(device)
        if device is not None and c.data_ptr() == t.data_ptr() and c.device == t.device:
            c = c.clone()
    if keep_grad and t.requires_grad and c.dtype.is_floating_point:
        c.requires_grad_(True)
    del openreg
    return c


def _meta_copy(t):
    import openreg
    return openreg.empty_strided(tuple(t.shape), tuple(t.stride()), dtype=t.dtype, device="meta")


class _no_grad:
    def __enter__(self):
        import openreg
        ng = getattr(openreg, "no_grad", None)
        self._cm = ng() if ng is not None else None
        if self._cm is not None:
            self._cm.__enter__()

    def __exit__(self, *exc):
        if self._cm is not None:
            self._cm.__exit__(*exc)


def _to_numpy(t) -> np.ndarray:
    t = t.detach()
    return (t if t.device.type == "cpu" else t.cpu()).numpy()


def _bound_tensors(schema, args, kwargs) -> list[tuple[Any, Any]]:
    """``(Argument, tensor)`` for every tensor passed to the op."""
    bound = utils.bind_arguments(schema, args, kwargs)
    pairs = []
    for a in schema.arguments:
        for t in utils.iter_tensors(bound.get(a.name)):
            pairs.append((a, t))
    return pairs


# -- sub-tests -----------------------------------------------------------------------------------------
def check_schema(op, args, kwargs) -> None:
    """Mutations and aliasing the schema does not declare are errors (run on copies of the inputs)."""
    schema = op._schema
    args, kwargs = _tree_map(lambda t: _copy(t, keep_grad=False), (args, kwargs))
    before = []
    for a, t in _bound_tensors(schema, args, kwargs):
        snapshot = None if t.device.type == "meta" else _to_numpy(t).copy()
        before.append((a, t, snapshot, tuple(t.shape), tuple(t.stride()), t.storage_offset()))
    result = op(*args, **kwargs)
    for a, t, snapshot, shape, stride, offset in before:
        if a.alias_info is not None and a.alias_info.is_write:
            continue
        if (tuple(t.shape), tuple(t.stride()), t.storage_offset()) != (shape, stride, offset):
            raise RuntimeError(f"{op.name()}: Argument {a.name} is not defined as mutable but its metadata "
                               f"(sizes/strides/offset) was mutated: {shape} {stride} {offset} -> "
                               f"{tuple(t.shape)} {tuple(t.stride())} {t.storage_offset()}")
        if snapshot is not None and not np.array_equal(snapshot, _to_numpy(t), equal_nan=True):
            raise RuntimeError(f"{op.name()}: Argument {a.name} is not defined as mutable but was mutated")
    outputs = list(utils.iter_tensors(result if isinstance(result, (tuple, list)) else (result,)))
    returns = list(schema.returns)
    for i, out in enumerate(outputs):
        ret = returns[i] if i < len(returns) else (returns[-1] if returns else None)
        ret_sets = set(ret.alias_info.before_set) if ret is not None and ret.alias_info is not None else set()
        for a, t, *_ in before:
            if utils.storage_id(t) != utils.storage_id(out):
                continue
            arg_sets = set(a.alias_info.before_set) if a.alias_info is not None else set()
            if not (ret_sets & arg_sets):
                raise RuntimeError(f"{op.name()}: Argument {a.name} is not defined to alias output but was "
                                   f"aliasing")


def check_autograd_registration(op, args, kwargs) -> None:
    """An op without an autograd kernel must not produce outputs that require grad."""
    from .._dispatch import dispatcher
    from .._dispatch.keys import AUTOGRAD_OF_BACKEND, DispatchKey
    from ..library import dispatch_key_for
    tensors = list(utils.iter_tensors((args, kwargs)))
    if not any(t.requires_grad for t in tensors):
        return
    types = {t.device.type for t in tensors}
    if len(types) != 1:
        raise NotImplementedError(f"autograd_registration_check: NYI devices other than one device type, got "
                                  f"{sorted(types)}")
    backend = dispatch_key_for(types.pop())
    keys = (AUTOGRAD_OF_BACKEND[backend], DispatchKey.Autograd, DispatchKey.CompositeImplicitAutograd)
    if any(dispatcher.has_kernel(op.name(), k) for k in keys):
        return
    copies = _tree_map(_copy, (args, kwargs))
    inputs = {id(t) for t in utils.iter_tensors(copies)}
    result = op(*copies[0], **copies[1])
    for out in utils.iter_tensors(result if isinstance(result, (tuple, list)) else (result,)):
        if id(out) not in inputs and out.requires_grad:
            raise AssertionError(
                f"{op.name()}: at least one output of this operator has requires_grad=True but the operator "
                f"does not have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). "
                f"This could mean that you have incorrectly registered an autograd kernel to a non-Autograd "
                f"DispatchKey, which may lead to silently incorrect results. If your operator consists of "
                f"regular operations, consider registering it as CompositeImplicitAutograd. If you have an "
                f"autograd.Function registered to a backend (CPU/PrivateUse1) key, the correct location for it "
                f"is the Autograd key.")


def _flat_outputs(result) -> list:
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def check_faketensor(op, args, kwargs) -> None:
    """The op on Meta copies (fake impl / Meta kernel) must describe the real outputs exactly."""
    real_args = _tree_map(lambda t: _copy(t, keep_grad=False), (args, kwargs))
    meta_args = _tree_map(_meta_copy, (args, kwargs))
    with _no_grad():
        real = _flat_outputs(op(*real_args[0], **real_args[1]))
        fake = _flat_outputs(op(*meta_args[0], **meta_args[1]))
    if len(real) != len(fake):
        raise RuntimeError(f"{op.name()}: the fake impl returned {len(fake)} outputs but the real op returned "
                           f"{len(real)}")
    for i, (r, f) in enumerate(zip(real, fake)):
        if not _is_tensor(r) or not _is_tensor(f):
            if _is_tensor(r) != _is_tensor(f):
                raise RuntimeError(f"{op.name()}: output {i} is {type(r).__name__} for the real op but "
                                   f"{type(f).__name__} for the fake impl")
            continue
        if f.device.type != "meta":
            raise RuntimeError(f"{op.name()}: the fake impl returned output {i} on {f.device}; fake impls must "
                               f"return meta tensors (use device=<input>.device)")
        if r.dtype != f.dtype:
            raise RuntimeError(f"{op.name()}: output {i} dtype mismatch: real {r.dtype}, fake {f.dtype}")
        if len(r.shape) != len(f.shape):
            raise RuntimeError(f"{op.name()}: output {i} rank mismatch: real {tuple(r.shape)}, fake "
                               f"{tuple(f.shape)}")
        dynamic = False
        for d, (rs, fs) in enumerate(zip(r.shape, f.shape)):
            if is_dynamic_size(fs):
                dynamic = True
                lo, hi = dynamic_size_bounds(fs)
                if rs < lo or (hi is not None and rs > hi):
                    raise RuntimeError(f"{op.name()}: output {i} dim {d} has size {rs}, outside the bounds "
                                       f"[{lo}, {hi}] of the fake impl's dynamic size")
            elif rs != fs:
                raise RuntimeError(f"{op.name()}: output {i} size mismatch: real {tuple(r.shape)}, fake "
                                   f"{tuple(f.shape)}")
        if not dynamic:
            for d, (size, rst, fst) in enumerate(zip(r.shape, r.stride(), f.stride())):
                if size > 1 and rst != fst:
                    raise RuntimeError(f"{op.name()}: output {i} stride mismatch: real {tuple(r.stride())}, "
                                       f"fake {tuple(f.stride())} (sizes {tuple(r.shape)})")


def _available_devices() -> list:
    import openreg

    from ..devices import privateuse1_name
    mod = getattr(openreg, privateuse1_name(), None)
    try:
        if mod is not None and mod.is_available() and mod.device_count() > 0:
            return [openreg.device(privateuse1_name(), 0)]
    except Exception:       # a broken device module: nothing to compare against  # noqa: BLE001
        return []
    return []


def _default_tols(dtype) -> tuple[float, float]:
    name = str(dtype).split(".")[-1]
    return {"float16": (1e-5, 1e-3), "bfloat16": (1e-5, 1.6e-2), "float32": (1e-5, 1.3e-6),
            "float64": (1e-7, 1e-7), "complex64": (1e-5, 1.3e-6)}.get(name, (0.0, 0.0))


def check_dispatch_consistency(op, args, kwargs, *, atol: float | None = None, rtol: float | None = None) -> None:
    """The op on every available backend equals its CPU result (outputs and mutated inputs)."""
    tensors = list(utils.iter_tensors((args, kwargs)))
    if any(t.device.type == "meta" for t in tensors):
        return
    ref_in = _tree_map(lambda t: _copy(t, "cpu", keep_grad=False), (args, kwargs))
    with _no_grad():
        ref_out = _flat_outputs(op(*ref_in[0], **ref_in[1]))
    for dev in _available_devices():
        dev_in = _tree_map(lambda t, d=dev: _copy(t, d, keep_grad=False), (args, kwargs))
        with _no_grad():
            dev_out = _flat_outputs(op(*dev_in[0], **dev_in[1]))
        pairs = list(zip(ref_out, dev_out)) + list(zip(utils.iter_tensors(ref_in), utils.iter_tensors(dev_in)))
        if len(ref_out) != len(dev_out):
            raise RuntimeError(f"{op.name()}: {len(dev_out)} outputs on {dev} but {len(ref_out)} on cpu")
        for i, (r, d) in enumerate(pairs):
            if not _is_tensor(r):
                if r != d:
                    raise RuntimeError(f"{op.name()}: output {i} is {d!r} on {dev} but {r!r} on cpu")
                continue
            if tuple(r.shape) != tuple(d.shape) or r.dtype != d.dtype:
                raise RuntimeError(f"{op.name()}: output {i} is {tuple(d.shape)} {d.dtype} on {dev} but "
                                   f"{tuple(r.shape)} {r.dtype} on cpu")
            a_tol, r_tol = _default_tols(r.dtype)
            a_tol = a_tol if atol is None else atol
            r_tol = r_tol if rtol is None else rtol
            expected, actual = _to_numpy(r), _to_numpy(d)
            if not np.allclose(actual, expected, atol=a_tol, rtol=r_tol, equal_nan=True):
                diff = np.max(np.abs(actual.astype(np.float64) - expected.astype(np.float64))) if actual.size else 0
                raise RuntimeError(f"{op.name()}: result {i} on {dev} differs from cpu (max abs diff {diff}, "
                                   f"atol={a_tol}, rtol={r_tol})")


ALL_TEST_UTILS: dict[str, Callable] = {
    "test_schema": check_schema,
    "test_autograd_registration": check_autograd_registration,
    "test_faketensor": check_faketensor,
    "test_dispatch_consistency": check_dispatch_consistency,
    "test_aot_dispatch_dynamic": check_faketensor,
    "test_aot_dispatch_static": check_faketensor,
}


def _resolve_overload(op):
    from .._dispatch.ops import OpOverload, OpOverloadPacket
    from .custom_ops import CustomOpDef
    if isinstance(op, CustomOpDef):
        op = op._opoverload
    if isinstance(op, OpOverloadPacket):
        names = op.overloads()
        if len(names) != 1:
            raise RuntimeError(f"opcheck can only test operators without overloads. Got the following overloads "
                               f"for {op._qualified_op_name}: {names}")
        op = getattr(op, names[0])
    if not isinstance(op, OpOverload):
        raise ValueError(f"opcheck(op, ...): op must be instance of OpOverload, e.g. openreg.ops.aten.abs.default, "  # noqa: TRY004
                         f"got {type(op)}")
    return op


def opcheck(op, args: tuple, kwargs: dict | None = None, *,
            test_utils: str | Sequence[str] = DEFAULT_TEST_UTILS, raise_exception: bool = True,
            atol: float | None = None, rtol: float | None = None) -> dict:
    """Check ``op``'s registrations with sample inputs; returns ``{test: "SUCCESS" | exception}``.

    A failure raises ``OpCheckError`` naming the sub-test (with ``raise_exception=False`` the exception is
    stored in the returned dict instead). ``atol``/``rtol`` apply to ``test_dispatch_consistency``.
    """
    op = _resolve_overload(op)
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(args, tuple):
        raise TypeError(f"opcheck(op, args, ...): expected args to be a tuple, got {type(args)}")
    if test_utils == "ALL":
        test_utils = tuple(k for k in ALL_TEST_UTILS if not k.startswith("test_aot"))
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils).issubset(ALL_TEST_UTILS):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
                         f"{tuple(ALL_TEST_UTILS)} but it was not")
    if (atol is None) != (rtol is None):
        raise ValueError("opcheck(op, ...): atol and rtol must both be given or both be None")
    results: dict = {}
    for name in test_utils:
        tester = ALL_TEST_UTILS[name]
        try:
            if tester is check_dispatch_consistency:
                tester(op, args, kwargs, atol=atol, rtol=rtol)
            else:
                tester(op, args, kwargs)
            results[name] = "SUCCESS"
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") \
                    from ex
            results[name] = ex
    return results
