"""BackendSelect: factory operators (no tensor arguments) pick their backend from ``device=``.

>>> import openreg
>>> openreg.ops.aten.empty.memory_format([2], device="meta").device
device(type='meta')
"""
from __future__ import annotations

from ..devices import CPU, cuda_not_enabled, default_device_or_none
from ..devices import device as Device
from . import dispatcher
from .keys import DispatchKey

_BACKEND_OF_TYPE = {"cpu": DispatchKey.CPU, "meta": DispatchKey.Meta, "privateuseone": DispatchKey.PrivateUse1}


def key_for_device(dev) -> DispatchKey:
    dev = CPU if dev is None else Device(dev)
    key = _BACKEND_OF_TYPE.get(dev._type)
    if key is None:  # "cuda" while the device has another name: a CPU-only build's refusal
        raise cuda_not_enabled()
    return key


def needs_backend_select(schema) -> bool:
    has_device = any(a.name == "device" and a.type.kind == "Device" for a in schema.arguments)
    has_tensor = any(a.type.kind == "Tensor" for a in schema.arguments)
    return has_device and not has_tensor


def make_kernel(entry):
    def backend_select(ks, *args, **kwargs):
        if kwargs.get("device") is None:
            default = default_device_or_none()           # set_default_device
            if default is not None:
                kwargs["device"] = default
        key = key_for_device(kwargs.get("device"))
        return entry.overload.redispatch_fn(1 << key, *args, **kwargs)
    return backend_select


def register_for(qualname: str):
    entry = dispatcher.find(qualname)
    if entry is None or not needs_backend_select(entry.schema):
        return None
    return dispatcher.register_kernel(qualname, DispatchKey.BackendSelect, make_kernel(entry), with_keyset=True,
                                      site="openreg BackendSelect")
