"""PyTorch's global names in checkpoints and the openreg objects they stand for (no ``import torch``).

``TORCH_TO_OPENREG[(module, name)]`` is what the unpickler returns for a name a file asks for; ``openreg_to_torch``
gives the name the checkpoint pickler writes for an openreg object (the reverse map, by identity).
"""
from __future__ import annotations

import functools

from . import _rebuild

_STORAGE_NAMES = {
    "bool": "BoolStorage", "uint8": "ByteStorage", "int8": "CharStorage", "int16": "ShortStorage",
    "int32": "IntStorage", "int64": "LongStorage", "float16": "HalfStorage", "bfloat16": "BFloat16Storage",
    "float32": "FloatStorage", "float64": "DoubleStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage", "qint8": "QInt8Storage", "quint8": "QUInt8Storage",
    "qint32": "QInt32Storage",
}
_REBUILD_FUNCTIONS = {
    "torch._utils": ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_qtensor",
                     "_rebuild_parameter", "_rebuild_parameter_with_state", "_rebuild_meta_tensor_no_storage",
                     "_rebuild_device_tensor_from_cpu_tensor"),
    "torch._tensor": ("_rebuild_from_type_v2",),
}


@functools.cache
def _tables() -> tuple[dict, dict]:
    from collections import OrderedDict

    from .. import dtypes
    from ..devices import device
    from ..nn.parameter import Parameter
    from ..storage import UntypedStorage
    from ..tensor import Size, Tensor
    to_openreg: dict[tuple[str, str], object] = {}
    to_torch: dict[int, tuple[str, str]] = {}

    def both(module, name, obj):
        to_openreg[(module, name)] = obj
        to_torch.setdefault(id(obj), (module, name))

    for d in dtypes.ALL_DTYPES:
        both("torch", d.name, d)
        if has_storage_name(d):
            both("torch", _STORAGE_NAMES[d.name], storage_type(d))
    for module, names in _REBUILD_FUNCTIONS.items():
        for name in names:
            both(module, name, getattr(_rebuild, name))
    both("torch.storage", "UntypedStorage", UntypedStorage)
    both("torch", "device", device)
    both("torch", "Size", Size)
    both("torch", "Tensor", Tensor)
    both("torch.nn.parameter", "Parameter", Parameter)
    both("torch", "per_tensor_affine", _rebuild.per_tensor_affine)
    both("collections", "OrderedDict", OrderedDict)
    # Older or alternative spellings a file may use.
    to_openreg[("torch", "UntypedStorage")] = UntypedStorage
    to_openreg[("torch._tensor", "Tensor")] = Tensor
    to_openreg[("torch._utils", "_rebuild_from_type_v2")] = _rebuild._rebuild_from_type_v2
    return to_openreg, to_torch


def has_storage_name(d) -> bool:
    """Whether PyTorch names storages of ``d`` by a class (``FloatStorage``); newer dtypes (uint16, float8, ...)
    have none and are saved as PyTorch saves them: ``_rebuild_tensor_v3`` over an ``UntypedStorage``."""
    return d.name in _STORAGE_NAMES


# PyTorch dtypes openreg does not have: a file naming one gets an error that says so.
TORCH_ONLY_DTYPES = frozenset({
    "uint16", "uint32", "uint64", "complex32", "chalf", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
    "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16",
    "quint4x2", "quint2x4", "int1", "int2", "int3", "int4", "int5", "int6", "int7", "uint1", "uint2", "uint3",
    "uint4", "uint5", "uint6", "uint7",
})


@functools.cache
def storage_type(d) -> _rebuild.StorageType:
    return _rebuild.StorageType(_STORAGE_NAMES[d.name], d)


def torch_to_openreg(module: str, name: str):
    """The openreg object for a PyTorch global name, or None."""
    return _tables()[0].get((module, name))


def openreg_to_torch(obj) -> tuple[str, str] | None:
    """The PyTorch global name an openreg object is written as, or None."""
    return _tables()[1].get(id(obj))
