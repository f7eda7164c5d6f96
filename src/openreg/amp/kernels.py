"""The Autocast kernels: one per listed op and device key, registered through ``openreg.library``.

Each kernel excludes both Autocast keys, casts the eligible inputs as its policy says and calls the op again
(a full dispatch, as PyTorch's ``WrapFunction``): the casts and the op then run through autograd, so gradients
come back through the casts in the inputs' own dtypes. Eligible inputs are floating tensors (not float64) of
the kernel's device. The operator loader (``openreg/operators/_loader.finish``) registers them for every op
listed in ``policy.py``, once every operator is defined.

>>> import openreg
>>> a = openreg.ones(2, 2)
>>> with openreg.autocast("cpu"):
...     (a @ a).dtype, openreg.cat([a, a.bfloat16()]).dtype
(openreg.bfloat16, openreg.float32)
"""
from __future__ import annotations

from .. import dtypes
from .._dispatch import dispatcher, tls
from .._dispatch.binding import bind_arguments
from .._dispatch.keys import AUTOCAST_MASK, DispatchKey
from ..devices import PRIVATEUSE1
from ..library import Library
from . import policy, state

_DEVICE_OF_KEY = {DispatchKey.AutocastCPU: "cpu", DispatchKey.AutocastPrivateUse1: PRIVATEUSE1}
_TABLE_OF_KEY = {DispatchKey.AutocastCPU: policy.CPU, DispatchKey.AutocastPrivateUse1: policy.CUDA}


def is_eligible(x, kind: str) -> bool:
    return (hasattr(x, "_ks") and x._storage.device._type == kind and x._dtype.is_floating_point
            and x._dtype is not dtypes.float64)


def cached_cast(to, x, kind: str):
    """``x`` cast to ``to`` if eligible (fp32 leaf weights' lower-precision casts are cached), else ``x``."""
    if isinstance(x, (list, tuple)):
        return type(x)(cached_cast(to, v, kind) for v in x)
    if not is_eligible(x, kind) or x._dtype is to:
        return x
    if (to is state.state.dtype[kind] and x._dtype is dtypes.float32 and x.requires_grad and x.is_leaf
            and x._base is None and state.state.cache_enabled):
        return state.cached(x, to, lambda: x.to(to))
    return x.to(to)


def _tensors(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from (t for t in v if hasattr(t, "_ks"))
        elif hasattr(v, "_ks"):
            yield v


def promote_type(lower, values, kind: str):
    """PyTorch's ``promote_type``: float32 if any eligible input is float32, else the lower precision."""
    current = lower
    for t in _tensors(values):
        if not is_eligible(t, kind):
            continue
        nxt = t._dtype
        if current is dtypes.float32 or nxt is dtypes.float32:
            current = dtypes.float32
        elif not (current is lower and nxt is lower):
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def make_kernel(op, name: str, how: str, key: DispatchKey):
    """The Autocast kernel of overload ``op`` (``name`` in the policy table) at ``key``."""
    kind = _DEVICE_OF_KEY[key]
    schema = op._schema
    first = next((a.name for a in schema.arguments if a.type.kind == "Tensor"), None)

    def autocast_kernel(ks, *args, **kwargs):
        values = bind_arguments(schema, args, kwargs, name)
        if how == "banned":
            raise RuntimeError(policy.BANNED_MESSAGE)
        target = op
        if how == "lower":
            to = state.state.dtype[kind]
            values = {k: cached_cast(to, v, kind) for k, v in values.items()}
        elif how == "fp32":
            values = {k: cached_cast(dtypes.float32, v, kind) for k, v in values.items()}
        elif how == "promote":
            to = promote_type(state.state.dtype[kind], values.values(), kind)
            values = {k: cached_cast(to, v, kind) for k, v in values.items()}
        elif how == "fp32_set_opt_dtype":
            if values.get("dtype") is None and first is not None and is_eligible(values[first], kind):
                values["dtype"] = dtypes.float32
        elif how == "fp32_append_dtype":
            target = _overload(policy.APPEND_DTYPE_OVERLOAD[name])
            x = values[first]
            values["dtype"] = dtypes.float32 if is_eligible(x, kind) else x._dtype
        old = tls.state.exclude
        tls.state.exclude = old | AUTOCAST_MASK
        try:
            return target(**values)
        finally:
            tls.state.exclude = old
    autocast_kernel.__name__ = f"autocast_{name.replace('.', '_')}"
    return autocast_kernel


def custom_autocast_kernel(qualname: str, device_type: str, cast_inputs):
    """``library.register_autocast``'s kernel: cast floating inputs of the device, run with autocast off."""
    from .._dispatch.ops import lookup
    from .autocast_mode import _cast

    def kernel(*args, **kwargs):
        op = lookup(qualname)
        old = tls.state.exclude
        tls.state.exclude = old | AUTOCAST_MASK
        try:
            return op(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        finally:
            tls.state.exclude = old
    return kernel


def _overload(name: str):
    from .._dispatch.ops import lookup
    return lookup(f"aten::{name}")


_lib: Library | None = None
_registered: set[tuple[str, DispatchKey]] = set()


def register_op(qualname: str) -> None:
    """Register the Autocast kernels of ``aten::<name>`` for every device whose table lists it."""
    global _lib
    if not qualname.startswith("aten::"):
        return
    name = qualname[len("aten::"):]
    for key, table in _TABLE_OF_KEY.items():
        how = table.get(name)
        if how is None or (name, key) in _registered or dispatcher.find(qualname) is None:
            continue
        if how == "fp32_append_dtype" and dispatcher.find("aten::" + policy.APPEND_DTYPE_OVERLOAD[name]) is None:
            continue
        if _lib is None:
            _lib = Library("aten", "IMPL")
        _lib.impl(name, make_kernel(_overload(name), name, how, key), key.name, with_keyset=True)
        _registered.add((name, key))


def register_all() -> None:
    """Register the Autocast kernels of every defined op the policy tables list (ops registered already are
    skipped, so calling it again after more operators were defined is safe)."""
    for name in set(policy.CPU) | set(policy.CUDA):
        register_op("aten::" + name)
