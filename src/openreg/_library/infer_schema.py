"""Infer an operator schema from a Python function's type hints (PyTorch's ``infer_schema``).

>>> import openreg
>>> from openreg import Tensor
>>> def f(x: Tensor, y: Tensor | None, n: int = 2, *, scale: float = 1.0) -> Tensor: ...
>>> infer_schema(f, mutates_args=())
'(Tensor x, Tensor? y, SymInt n=2, *, float scale=1.0) -> Tensor'
>>> def g(x: Tensor, out: Tensor) -> None: ...
>>> infer_schema(g, mutates_args={"out"})
'(Tensor x, Tensor(a1!) out) -> ()'
"""
from __future__ import annotations

import inspect
import numbers
import typing
from collections.abc import Callable
from collections.abc import Sequence as _AbcSequence
from typing import Any

UNKNOWN_MUTATES = "unknown"


def _supported_param_types() -> dict:
    from ..devices import device
    from ..dtypes import dtype
    from ..tensor import Tensor
    rows = [
        # python type, schema type, T[] allowed, T?[] allowed, T[]? allowed
        (Tensor, "Tensor", True, True, False),
        (int, "SymInt", True, False, True),
        (float, "float", True, False, True),
        (bool, "bool", True, False, True),
        (str, "str", False, False, False),
        (numbers.Number, "Scalar", True, False, False),
        (dtype, "ScalarType", False, False, False),
        (device, "Device", False, False, False),
    ]
    result: dict = {}
    for base, name, list_ok, opt_elem_list, opt_list in rows:
        result[base] = name
        result[typing.Optional[base]] = f"{name}?"  # noqa: UP045
        seqs = (lambda t: [typing.Sequence[t], list[t], list[t], _AbcSequence[t]])
        if list_ok:
            for s in seqs(base):
                result[s] = f"{name}[]"
        if opt_elem_list:
            for s in seqs(typing.Optional[base]):  # noqa: UP045
                result[s] = f"{name}?[]"
        if opt_list:
            for s in seqs(base):
                result[typing.Optional[s]] = f"{name}[]?"  # noqa: UP045
    return result


def _supported_return_types() -> dict:
    from ..tensor import Tensor
    return {Tensor: "Tensor", list[Tensor]: "Tensor[]", list[Tensor]: "Tensor[]", int: "SymInt",
            float: "float", bool: "bool", numbers.Number: "Scalar"}


def _normalize(annotation):
    """Turn ``X | None`` (types.UnionType) into ``typing.Optional[X]`` so lookups are uniform."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is not None and args and origin not in (typing.Union,) and type(annotation).__name__ == "UnionType":
        return typing.Union[args]  # type: ignore[return-value]  # noqa: UP007
    if origin in (list, list, _AbcSequence) and args:
        return origin[tuple(_normalize(a) for a in args)] if len(args) > 1 else origin[_normalize(args[0])]
    if origin is typing.Union:
        return typing.Union[tuple(_normalize(a) for a in args)]  # type: ignore[return-value]  # noqa: UP007
    return annotation


def _resolved_hints(fn: Callable) -> dict:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001
        return {}


def _default_text(value) -> str | None:
    from ..devices import device
    from ..dtypes import dtype
    if value is None:
        return "None"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dtype):
        return str(value).split(".")[-1]
    if isinstance(value, device):
        return f'"{value}"'
    return None


def infer_schema(prototype_function: Callable, /, *, mutates_args, op_name: str | None = None) -> str:
    """The schema (without a name unless ``op_name`` is given) of ``prototype_function`` from its type hints.

    ``mutates_args`` names the arguments the function writes (they become ``Tensor(aN!)``), or is
    ``"unknown"`` (every Tensor argument is then treated as written).
    """
    sig = inspect.signature(prototype_function)
    hints = _resolved_hints(prototype_function)

    def error_fn(what: str):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    if isinstance(mutates_args, str) and mutates_args != UNKNOWN_MUTATES:
        raise ValueError("mutates_args must be a tuple of strings or the string 'unknown'")
    param_types = _supported_param_types()
    params: list[str] = []
    seen: set[str] = set()
    saw_kwarg_only = False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not saw_kwarg_only:
            params.append("*")
            saw_kwarg_only = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation = _normalize(hints.get(name, param.annotation))
        try:
            schema_type = param_types.get(annotation)
        except TypeError:
            schema_type = None
        if schema_type is None:
            error_fn(f"Parameter {name} has unsupported type {param.annotation}. The valid types are: "
                     f"{param_types.keys()}.")
        if mutates_args == UNKNOWN_MUTATES:
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can "
                         f"be mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            text = _default_text(param.default)
            if text is None:
                error_fn(f"Parameter {name} has an unsupported default value type {type(param.default)}. "
                         f"Please file an issue on GitHub so we can prioritize this.")
            params.append(f"{schema_type} {name}={text}")
    if mutates_args != UNKNOWN_MUTATES:
        not_seen = set(mutates_args) - seen
        if not_seen:
            error_fn(f"{not_seen} in mutates_args were not found in the custom op's signature. mutates_args "
                     f"should contain the names of all args that the custom op mutates, or just the string "
                     f"'unknown' if you don't know.")
    if sig.return_annotation is inspect.Signature.empty:
        error_fn("No return type annotation was provided. Please add one.")
    ret = _parse_return(_normalize(hints.get("return", sig.return_annotation)), error_fn)
    prefix = op_name or ""
    return f"{prefix}({', '.join(params)}) -> {ret}"


def _parse_return(annotation: Any, error_fn) -> str:
    if annotation is None or annotation is type(None):
        return "()"
    supported = _supported_return_types()
    origin = typing.get_origin(annotation)
    if origin is not tuple:
        try:
            found = supported.get(annotation)
        except TypeError:
            found = None
        if found is None:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {supported}.")
        return found
    parts = []
    for arg in typing.get_args(annotation):
        found = supported.get(arg) if not isinstance(arg, list) else None
        if found is None:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {supported}.")
        parts.append(found)
    return "(" + ", ".join(parts) + ")"
