"""The CPU fallback: run an operator that has no device kernel on the CPU, with results back on the device.

``cpu_fallback(op, *args, **kwargs)`` is a boxed kernel (PyTorch's ``at::native::cpu_fallback``): it
copies every device tensor argument (also inside ``Tensor[]`` / ``Tensor?[]``) to the CPU, redispatches to the
CPU kernel, then writes the arguments the schema marks as mutated (``Tensor(a!)``, ``out=``) back into their
device memory (resizing ``out=`` tensors as the CPU kernel did) and returns the results on the device. Nothing
is written back unless the CPU kernel succeeded, so a failing op leaves its inputs unchanged.

An operator record names it as its device kernel (``index.Tensor``, ``triu_indices``:
``"PrivateUse1": "openreg.backends.privateuseone.fallback:cpu_fallback_kernel"``). Use it for single
operators, or for every operator of the backend::

    lib = openreg.library.Library("aten", "IMPL")
    lib.impl("sub.Tensor", cpu_fallback_kernel, "PrivateUse1")        # one operator
    lib2 = openreg.library.Library("_", "IMPL")
    lib2.fallback(cpu_fallback, "PrivateUse1")                           # the whole backend

``OPENREG_FALLBACK_WARN=1`` warns once per operator that falls back; operators in ``FALLBACK_BLOCKLIST`` raise.

>>> from openreg.backends.privateuseone.fallback import cpu_fallback_kernel
>>> cpu_fallback_kernel._openreg_boxed
True
"""
from __future__ import annotations

import os
import warnings
from typing import Any

from openreg._dispatch.keys import DispatchKey, keyset
from openreg._dispatch.ops import A
from openreg._runtime_flags import is_warn_always_enabled
from openreg.devices import CPU, PRIVATEUSE1, privateuse1_name
from openreg.devices import device as Device
from openreg.tensor import Tensor

__all__ = [
    "FALLBACK_BLOCKLIST",
    "cpu_fallback",
    "cpu_fallback_kernel",
    "register_backend_fallback",
]

# Operators whose meaning is tied to the device's own memory: running them on a CPU copy would be wrong.
FALLBACK_BLOCKLIST: set[str] = {
    "aten::_pin_memory", "aten::is_pinned", "aten::record_stream", "aten::set_.source_Storage",
    "aten::set_.source_Storage_storage_offset", "aten::set_.source_Tensor", "aten::set_",
    "aten::resize_", "aten::_copy_from", "aten::_copy_from_and_resize",
}

_CPU_KS = keyset(DispatchKey.CPU)
_P1_KS = keyset(DispatchKey.PrivateUse1)
_warned: set[str] = set()


def _is_device_tensor(x: Any) -> bool:
    return isinstance(x, Tensor) and x._storage.device._type == PRIVATEUSE1


def _bind(schema, args: tuple, kwargs: dict) -> dict:
    """Argument name -> value (defaults filled in) for ``args``/``kwargs`` of a boxed call."""
    values: dict = {}
    positional = [a for a in schema.arguments if not a.kwarg_only]
    for a, v in zip(positional, args):
        values[a.name] = v
    values.update(kwargs)
    for a in schema.arguments:
        if a.name not in values and a.has_default:
            values[a.name] = a.default_value
    return values


def _split(schema, values: dict) -> tuple[tuple, dict]:
    pos = tuple(values[a.name] for a in schema.arguments if not a.kwarg_only and a.name in values)
    kw = {a.name: values[a.name] for a in schema.arguments if a.kwarg_only and a.name in values}
    return pos, kw


def _to_cpu(t: Tensor, memo: dict) -> Tensor:
    """A CPU copy of a device tensor (one copy per tensor object, so aliasing arguments stay aliased)."""
    hit = memo.get(id(t))
    if hit is not None:
        return hit[1]
    arr = t._storage._backend.to_host_array(t)
    out = Tensor._from_array(arr, t._dtype, CPU)
    out._qparams = t._qparams
    memo[id(t)] = (t, out)
    return out


def _to_device(t: Tensor, device: Device) -> Tensor:
    """A device copy of a CPU result tensor."""
    from openreg.aten.structured import empty_tensor
    out = empty_tensor(tuple(t._size), t._dtype, device)
    if t.numel():
        A.copy_.redispatch(_P1_KS, out, t)
    out._qparams = t._qparams
    return out


def _write_back(dst: Tensor, src: Tensor) -> None:
    """Copy a mutated CPU argument into its device tensor, resizing it first if the kernel resized it."""
    from openreg.aten.structured import resize_tensor_
    if tuple(dst._size) != tuple(src._size):
        resize_tensor_(dst, tuple(src._size))
    if src.numel():
        A.copy_.redispatch(_P1_KS, dst, src)
    dst._qparams = src._qparams


def _target_device(op_name: str, values: dict, device_tensors: list) -> Device:
    devices = {t._storage.device for t in device_tensors}
    if len(devices) > 1:
        a, b = sorted(devices, key=lambda d: d.index or 0)[:2]
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, {a} "
                           f"and {b}! (when running {op_name} through the CPU fallback)")
    if devices:
        return devices.pop()
    dev = values.get("device")
    if dev is None:
        raise RuntimeError(f"{op_name}: the CPU fallback found no {privateuse1_name()} tensor and no device= "
                           f"argument to tell which device the result belongs to")
    dev = Device(dev)
    if dev.index is None:
        from openreg.privateuse1_hooks import current_device_index
        dev = Device(PRIVATEUSE1, current_device_index())
    return dev


def _check_not_view(op, schema) -> None:
    mutated = {a.alias_info.before_set for a in schema.arguments if a.is_write}
    for r in schema.returns:
        if r.alias_info is not None and not r.alias_info.is_write and r.alias_info.before_set not in mutated:
            raise NotImplementedError(
                f"The operator {op.name()} appears to be a view operator, but it has no implementation for the "
                f"backend \"{privateuse1_name()}\". View operators don't support falling back to run on the CPU, "
                f"since the tensor's storage cannot be shared across devices.")


def cpu_fallback(op, *args, **kwargs):
    """Backend fallback (``Library("_", "IMPL").fallback(cpu_fallback, "PrivateUse1")``): run ``op`` on CPU
    copies of the device tensors and move the results back."""
    return _run(op, args, kwargs)


def _run(op, args: tuple, kwargs: dict):
    name = op.name()
    schema = op._schema
    if name in FALLBACK_BLOCKLIST or name.split(".")[0] in FALLBACK_BLOCKLIST:
        raise NotImplementedError(f"Operator '{name.split('.')[0]}' is not implemented for device "
                                  f"{privateuse1_name()}.")
    _check_not_view(op, schema)
    if os.environ.get("OPENREG_FALLBACK_WARN", "") not in ("", "0") and (name not in _warned or is_warn_always_enabled()):
        _warned.add(name)
        warnings.warn(f"The operator '{name}' is not currently supported on the {privateuse1_name()} backend and "
                      f"will fall back to run on the CPU. This may have performance implications.",
                      UserWarning, stacklevel=3)

    values = _bind(schema, args, kwargs)
    memo: dict = {}
    device_tensors: list = []
    written: list = []   # (device tensor, cpu copy) of mutated arguments
    cpu_values = dict(values)
    for a in schema.arguments:
        v = values.get(a.name)
        if a.type.kind == "Tensor" and v is not None:
            items = list(v) if a.type.is_list else [v]
            moved = []
            for t in items:
                if _is_device_tensor(t):
                    device_tensors.append(t)
                    c = _to_cpu(t, memo)
                    if a.is_write:
                        written.append((t, c))
                    moved.append(c)
                else:
                    moved.append(t)
            cpu_values[a.name] = moved if a.type.is_list else moved[0]
        elif a.type.kind == "Device" and v is not None:
            cpu_values[a.name] = CPU
    device = _target_device(name, values, device_tensors)
    pos, kw = _split(schema, cpu_values)
    result = op.redispatch(_CPU_KS, *pos, **kw)   # raises before anything on the device changed

    for dst, src in written:
        _write_back(dst, src)
    back = {id(c): t for t, c in memo.values()}
    return _results_to_device(result, back, device)


def _results_to_device(result, back: dict, device: Device):
    if isinstance(result, Tensor):
        original = back.get(id(result))
        if original is not None:       # an in-place/out= op returned its (mutated) argument
            return original
        return _to_device(result, device) if result._storage.device._type == "cpu" else result
    if isinstance(result, (list, tuple)):
        items = [_results_to_device(r, back, device) for r in result]
        return type(result)(items) if isinstance(result, list) else tuple(items)
    return result


def cpu_fallback_kernel(op, ks: int, args: tuple, kwargs: dict):
    """``cpu_fallback`` marked as a boxed kernel, for ``Library.impl(op, cpu_fallback_kernel, "PrivateUse1")``."""
    return _run(op, args, kwargs)


cpu_fallback_kernel._openreg_boxed = True  # type: ignore[attr-defined]


def register_backend_fallback():
    """Route every operator without a device kernel through the CPU fallback; returns the Library (keep it).

    >>> from openreg.backends.privateuseone.fallback import register_backend_fallback
    >>> lib = register_backend_fallback()
    >>> lib._destroy()
    """
    from openreg.library import Library
    lib = Library("_", "IMPL")
    lib.fallback(cpu_fallback, "PrivateUse1")
    return lib
