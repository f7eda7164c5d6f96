"""Generated calling code for an operator overload.

For each schema we generate one small Python function with the schema's exact signature (defaults
included). Python itself then binds positional and keyword arguments; the generated body converts and
checks the non-tensor arguments, computes the dispatch key set from the tensor arguments, and calls the
resolved kernel. Doing this with generated code instead of a generic binder keeps per-call overhead low.

>>> from openreg._dispatch.binding import python_signature
>>> from openreg._dispatch.schema import parse_schema
>>> python_signature(parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"))
'self, other, *, alpha=_d2'
"""
from __future__ import annotations

import keyword
import numbers
import operator

import numpy as np

from . import tls
from .schema import Argument, FunctionSchema

_TENSOR_KINDS = {"Tensor"}


def _ok_identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_op")


def python_signature(schema: FunctionSchema) -> str:
    parts, star = [], False
    for i, arg in enumerate(schema.arguments):
        if arg.kwarg_only and not star:
            parts.append("*")
            star = True
        parts.append(f"{arg.name}=_d{i}" if arg.has_default else arg.name)
    return ", ".join(parts)


def _type_error(op: str, arg: Argument, pos: int, value, expected: str):
    where = f"argument '{arg.name}'" + ("" if arg.kwarg_only else f" (position {pos + 1})")
    raise TypeError(f"{op}(): {where} must be {expected}, not {type(value).__name__}")


def make_converters(op: str):
    """Converters for non-tensor argument kinds; each returns the normalized value or raises TypeError."""
    from ..devices import device as Device
    from ..dtypes import dtype as DType

    def conv_int(value, arg, pos):
        if isinstance(value, bool) and arg.type.kind not in ("bool",):
            # PyTorch accepts bools for ints (they are ints in Python).
            return int(value)
        if isinstance(value, (int, np.integer)):
            return int(value)
        if hasattr(value, "__index__") and not hasattr(value, "_ks"):
            return operator.index(value)
        if hasattr(value, "_ks") and value.dim() == 0 and not value.dtype.is_floating_point:
            return int(value.item())
        _type_error(op, arg, pos, value, "int")

    def conv_float(value, arg, pos):
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, complex):
            return float(value)
        if hasattr(value, "_ks") and value.dim() == 0:
            return float(value.item())
        _type_error(op, arg, pos, value, "float")

    def conv_bool(value, arg, pos):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, (int, np.integer)) and value in (0, 1):
            return bool(value)
        _type_error(op, arg, pos, value, "bool")

    def conv_scalar(value, arg, pos):
        if isinstance(value, (bool, int, float, complex)):
            return value
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, numbers.Number):
            return complex(value) if isinstance(value, numbers.Complex) and not isinstance(
                value, numbers.Real) else float(value)
        if hasattr(value, "_ks") and value.numel() == 1 and not value.requires_grad:
            return value.item()
        _type_error(op, arg, pos, value, "Number")

    def conv_str(value, arg, pos):
        if isinstance(value, str):
            return value
        _type_error(op, arg, pos, value, "str")

    def conv_dtype(value, arg, pos):
        if isinstance(value, DType):
            return value
        _type_error(op, arg, pos, value, "torch.dtype")

    def conv_device(value, arg, pos):
        if isinstance(value, Device):
            return value
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return Device(value)
        _type_error(op, arg, pos, value, "torch.device")

    def conv_int_list(value, arg, pos):
        if type(value) is tuple or type(value) is list:
            for v in value:
                if type(v) is not int:
                    break
            else:
                return tuple(value)
        size = arg.type.list_size
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return (int(value),) * (size or 1)
        if isinstance(value, (tuple, list)):
            out = []
            for v in value:
                if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                    out.append(int(v))
                elif hasattr(v, "__index__") and not hasattr(v, "_ks"):
                    out.append(operator.index(v))
                elif hasattr(v, "_ks") and v.numel() == 1 and not v.dtype.is_floating_point:
                    out.append(int(v.item()))
                else:
                    _type_error(op, arg, pos, value, f"tuple of ints, but found element of type "
                                f"{type(v).__name__} at pos {len(out)}; it")
            return tuple(out)
        _type_error(op, arg, pos, value, "tuple of ints")

    def conv_float_list(value, arg, pos):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (float(value),) * (arg.type.list_size or 1)
        if isinstance(value, (tuple, list)):
            return tuple(conv_float(v, arg, pos) for v in value)
        _type_error(op, arg, pos, value, "tuple of floats")

    def conv_bool_list(value, arg, pos):
        if isinstance(value, (tuple, list)):
            return tuple(conv_bool(v, arg, pos) for v in value)
        _type_error(op, arg, pos, value, "tuple of bools")

    def conv_tensor_list(value, arg, pos):
        if isinstance(value, (tuple, list)):
            for v in value:
                if v is None and arg.type.elem_optional:
                    continue
                if not hasattr(v, "_ks"):
                    _type_error(op, arg, pos, value, f"tuple of Tensors, but found element of type "
                                f"{type(v).__name__}; it")
            return list(value)
        _type_error(op, arg, pos, value, "tuple of Tensors")

    return {
        "int": conv_int, "SymInt": conv_int, "float": conv_float, "bool": conv_bool, "Scalar": conv_scalar,
        "str": conv_str, "ScalarType": conv_dtype, "Device": conv_device,
        "int[]": conv_int_list, "SymInt[]": conv_int_list, "float[]": conv_float_list,
        "bool[]": conv_bool_list, "Tensor[]": conv_tensor_list,
    }


def _fast_type(kind: str) -> str | None:
    return {"int": "int", "SymInt": "int", "float": "float", "bool": "bool", "str": "str",
            "Scalar": "_scalar_types", "ScalarType": "_DType", "Device": "_Device"}.get(kind)


def build_call(entry, resolve, qualname_for_errors: str):
    """Build ``call(*args, **kwargs)`` and ``redispatch(ks, *args, **kwargs)`` for an OperatorEntry."""
    from ..devices import device as Device
    from ..dtypes import dtype as DType
    schema: FunctionSchema = entry.schema
    op_short = schema.name.split("::")[-1]
    if not all(_ok_identifier(a.name) for a in schema.arguments):
        return _build_generic(entry, resolve, qualname_for_errors)
    convs = make_converters(op_short)
    ns: dict = {"_state": tls.state, "_cache": entry.cache, "_resolve": resolve, "_entry": entry,
                "_scalar_types": (int, float, bool), "_DType": DType, "_Device": Device,
                "_tensor_error": _tensor_error, "_schema": schema, "_op": op_short}
    body, ks_terms, tensor_names = [], [], []
    call_pos, call_kw = [], []
    for i, arg in enumerate(schema.arguments):
        if arg.has_default:
            ns[f"_d{i}"] = _default_value(arg)
        (call_kw if arg.kwarg_only else call_pos).append(
            f"{arg.name}={arg.name}" if arg.kwarg_only else arg.name)
        t = arg.type
        name = arg.name
        if t.kind == "Tensor" and not t.is_list:
            tensor_names.append(name)
            if t.optional:
                body.append(f"    if {name} is not None: _ks = _ks | {name}._ks")
            else:
                ks_terms.append(f"{name}._ks")
            continue
        if t.kind == "Tensor" and t.is_list:
            ns[f"_c{i}"] = convs["Tensor[]"]
            ns[f"_a{i}"] = arg
            pad = "    "
            if t.optional:
                body.append(f"    if {name} is not None:")
                pad = "        "
            body.append(f"{pad}{name} = _c{i}({name}, _a{i}, {i})")
            body.append(f"{pad}for _t in {name}:")
            body.append(f"{pad}    if _t is not None: _ks = _ks | _t._ks")
            continue
        key = t.kind + ("[]" if t.is_list else "")
        conv = convs.get(key)
        if conv is None:
            continue
        ns[f"_c{i}"] = conv
        ns[f"_a{i}"] = arg
        fast = None if t.is_list else _fast_type(t.kind)
        check = f"type({name}) is not {fast}" if fast and not fast.startswith("_scalar") else \
            (f"type({name}) not in _scalar_types" if fast else "True")
        if fast == "_DType" or fast == "_Device":
            check = f"not isinstance({name}, {fast})"
        if t.optional:
            body.append(f"    if {name} is not None and {check}: {name} = _c{i}({name}, _a{i}, {i})")
        else:
            body.append(f"    if {check}: {name} = _c{i}({name}, _a{i}, {i})")
    sig = python_signature(schema)
    args_text = ", ".join(call_pos + call_kw)
    first = " | ".join(ks_terms) if ks_terms else "0"
    tnames = ", ".join(tensor_names)
    lines = [f"def {op_short}({sig}):"]
    lines.append("    try:")
    lines.append(f"        _ks = {first}")
    lines.append("    except AttributeError:")
    lines.append(f"        _tensor_error(_schema, ({tnames}{',' if tensor_names else ''}))")
    lines += body
    lines.append("    _ks = (_ks | _state.include) & ~_state.exclude")
    lines.append("    _fn, _wk, _key = _cache.get(_ks) or _resolve(_entry, _ks)")
    lines.append(f"    if _wk: return _fn(_ks{', ' if args_text else ''}{args_text})")
    lines.append(f"    return _fn({args_text})")
    # redispatch: same binding, caller-provided key set, no TLS.
    lines.append(f"def _redispatch(_opks, {sig}):")
    lines.append("    _ks = _opks")
    lines.append("    _fn, _wk, _key = _cache.get(_ks) or _resolve(_entry, _ks)")
    lines.append(f"    if _wk: return _fn(_ks{', ' if args_text else ''}{args_text})")
    lines.append(f"    return _fn({args_text})")
    src = "\n".join(lines)
    code = compile(src, f"<openreg op {qualname_for_errors}>", "exec")
    exec(code, ns)  # noqa: S102 - generated from a parsed schema, names validated above
    return ns[op_short], ns["_redispatch"]


def _tensor_error(schema: FunctionSchema, values):
    op = schema.name.split("::")[-1]
    tensors = [(i, a) for i, a in enumerate(schema.arguments) if a.type.kind == "Tensor" and not a.type.is_list]
    for (i, arg), value in zip(tensors, values):
        if value is None and arg.type.optional:
            continue
        if not hasattr(value, "_ks"):
            _type_error(op, arg, i, value, "Tensor")
    raise TypeError(f"{op}(): invalid tensor arguments")


def _default_value(arg: Argument):
    value = arg.default_value
    kind = arg.type.kind
    if value is None:
        return None
    if kind == "ScalarType" and isinstance(value, (str, int)) and not isinstance(value, bool):
        from ..dtypes import from_name, from_scalar_type_code
        return from_name(value) if isinstance(value, str) else from_scalar_type_code(value)
    if arg.type.is_list and isinstance(value, list):
        return tuple(value)
    if arg.type.is_list and isinstance(value, (int, float)) and not isinstance(value, bool):
        return (value,) * (arg.type.list_size or 1)
    if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _build_generic(entry, resolve, qualname: str):
    """Fallback binder for schemas whose argument names are not Python identifiers."""
    schema = entry.schema

    def bind(args, kwargs):
        values = bind_arguments(schema, args, kwargs, qualname)
        ks = 0
        for a in schema.arguments:
            v = values[a.name]
            if a.type.kind == "Tensor":
                for t in (v if a.type.is_list else [v]):
                    if t is not None:
                        ks |= t._ks
        pos = [values[a.name] for a in schema.arguments if not a.kwarg_only]
        kw = {a.name: values[a.name] for a in schema.arguments if a.kwarg_only}
        return ks, pos, kw

    def call(*args, **kwargs):
        ks, pos, kw = bind(args, kwargs)
        ks = (ks | tls.state.include) & ~tls.state.exclude
        fn, wk, _ = entry.cache.get(ks) or resolve(entry, ks)
        return fn(ks, *pos, **kw) if wk else fn(*pos, **kw)

    def redispatch(ks, *args, **kwargs):
        _, pos, kw = bind(args, kwargs)
        fn, wk, _ = entry.cache.get(ks) or resolve(entry, ks)
        return fn(ks, *pos, **kw) if wk else fn(*pos, **kw)
    return call, redispatch


def bind_arguments(schema: FunctionSchema, args, kwargs, qualname: str) -> dict:
    """Map positional and keyword arguments to the schema's names, filling defaults; TypeError on a misfit."""
    positional = [a for a in schema.arguments if not a.kwarg_only]
    if len(args) > len(positional):
        raise TypeError(f"{qualname}() takes {len(positional)} positional arguments but {len(args)} were given")
    values = {a.name: v for a, v in zip(positional, args)}
    names = {a.name for a in schema.arguments}
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{k}'")
        if k in values:
            raise TypeError(f"{qualname}() got multiple values for argument '{k}'")
        values[k] = v
    for a in schema.arguments:
        if a.name not in values:
            if not a.has_default:
                raise TypeError(f"{qualname}() missing required argument '{a.name}'")
            values[a.name] = _default_value(a)
    return values
