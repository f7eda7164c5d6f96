"""Helpers shared by ``openreg.library`` and ``openreg._library``: names, schemas, call sites.

>>> from openreg._library.utils import parse_namespace
>>> parse_namespace("mylib::foo")
('mylib', 'foo')
"""
from __future__ import annotations

import os
import sys
from typing import Any

_INTERNAL_DIRS = (
    os.path.join("openreg", "library.py"),
    os.path.join("openreg", "_library") + os.sep,
    os.path.join("openreg", "_dispatch") + os.sep,
)


def caller_site() -> str:
    """``file:line`` of the nearest Python frame outside openreg's registration machinery."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not any(part in name for part in _INTERNAL_DIRS) and "contextlib.py" not in name:
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return "unknown"


def parse_namespace(qualname: str) -> tuple[str, str]:
    """Split ``"ns::name"`` into ``("ns", "name")``; ``ValueError`` for anything else."""
    if not isinstance(qualname, str):
        raise ValueError(f"Expected the operator name to be a str, got {type(qualname)}")  # noqa: TRY004
    splits = qualname.split("::")
    if len(splits) != 2 or not splits[0] or not splits[1]:
        raise ValueError(f"Expected `qualname` to be of the form \"namespace::name\", but got {qualname}. "
                         f"The qualname passed to the torch.library APIs must look like \"mylib::foo\"")
    return splits[0], splits[1]


def qualname_of(op: Any) -> str:
    """The dispatcher name (``"ns::name"`` or ``"ns::name.overload"``) of a str, OpOverload or CustomOpDef."""
    from .._dispatch.ops import OpOverload, OpOverloadPacket
    if isinstance(op, OpOverload):
        return op.name()
    if isinstance(op, OpOverloadPacket):
        return op._qualified_op_name
    if hasattr(op, "_qualname") and hasattr(op, "_opoverload"):
        return op._qualname
    if isinstance(op, str):
        name = op.removesuffix(".default")
        return name
    raise ValueError(f"expected an operator name (str), an OpOverload or a CustomOpDef, got {type(op)}")


def lookup_op(qualname: str):
    """The ``OpOverload`` for ``"ns::name"`` / ``"ns::name.overload"`` (``AttributeError`` if undefined)."""
    from .._dispatch.ops import lookup_overload
    parse_namespace(qualname)   # ValueError for a malformed name
    return lookup_overload(qualname)


def is_functional_schema(schema) -> bool:
    """True when the op mutates nothing, returns something and returns no views of its inputs."""
    if schema.is_mutable:
        return False
    if not schema.returns:
        return False
    return not any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)


def is_tensor_like(schema_type) -> bool:
    return schema_type.kind == "Tensor"


def has_kwarg_only_args(schema) -> bool:
    return any(a.kwarg_only for a in schema.arguments)


def has_kwarg_only_tensors(schema) -> bool:
    return any(a.kwarg_only and is_tensor_like(a.type) for a in schema.arguments)


def has_tensor_arg(schema) -> bool:
    return any(is_tensor_like(a.type) for a in schema.arguments)


def get_device_arg_index(schema) -> int | None:
    for i, a in enumerate(schema.arguments):
        if a.type.kind == "Device" and a.name == "device":
            return i
    return None


def bind_arguments(schema, args: tuple, kwargs: dict) -> dict:
    """Map every schema argument name to its value (defaults filled in)."""
    bound: dict = {}
    positional = [a for a in schema.arguments if not a.kwarg_only]
    for a, v in zip(positional, args):
        bound[a.name] = v
    for a in schema.arguments:
        if a.name in bound:
            continue
        if a.name in kwargs:
            bound[a.name] = kwargs[a.name]
        elif a.has_default:
            bound[a.name] = a.default_value
    return bound


def fill_defaults(schema, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Positional args (defaults filled) and kwarg-only args (defaults filled), as the schema orders them."""
    bound = bind_arguments(schema, args, kwargs)
    new_args = tuple(bound[a.name] for a in schema.arguments if not a.kwarg_only and a.name in bound)
    new_kwargs = {a.name: bound[a.name] for a in schema.arguments if a.kwarg_only and a.name in bound}
    return new_args, new_kwargs


def iter_tensors(value):
    """Every tensor in a (nested list/tuple/dict of) value(s)."""
    if hasattr(value, "_ks"):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from iter_tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from iter_tensors(v)


def storage_id(t) -> int:
    """An id shared by every tensor viewing the same memory (storage slices resolve to their base)."""
    storage = t._storage
    while getattr(storage, "_base", None) is not None:
        storage = storage._base
    return id(storage)


def lookup_op_entry(qualname: str):
    """The dispatcher entry of a defined operator, or None."""
    from .._dispatch import dispatcher
    return dispatcher.find(qualname)
