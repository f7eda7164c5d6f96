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

import inspect
import keyword
import numbers
import operator

import numpy as np

from . import tls
from .schema import Argument, FunctionSchema

_TENSOR_KINDS = {"Tensor"}


# Every name the generated code uses besides the schema's argument names starts with this prefix, and
# schemas with an argument starting with it use the generic binder: no argument can shadow an internal.
_PREFIX = "_op"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_NUMBERS = frozenset((int, float, bool, complex))


def _ok_identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith(_PREFIX)


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
    # ``from None``: raised while handling the AttributeError of a fast path, which is no news to the user.
    raise TypeError(f"{op}(): {where} must be {expected}, not {type(value).__name__}") from None


def _int64(value: int, op: str, arg: Argument) -> int:
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    raise ValueError(f"{op}(): argument '{arg.name}': Overflow when unpacking long long")


def make_converters(op: str):
    """Converters for non-tensor argument kinds; each returns the normalized value or raises TypeError."""
    from ..devices import device as Device
    from ..dtypes import dtype as DType
    from ..generator import Generator

    def conv_int(value, arg, pos):
        if isinstance(value, bool) and arg.type.kind not in ("bool",):
            # PyTorch accepts bools for ints (they are ints in Python).
            return int(value)
        if isinstance(value, (int, np.integer)):
            return _int64(int(value), op, arg)
        if hasattr(value, "__index__") and not hasattr(value, "_ks") and not isinstance(value, np.ndarray):
            return _int64(operator.index(value), op, arg)
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
        if type(value) is int:
            # PyTorch's Scalar holds an int64 or a uint64; Python's error for anything wider.
            if value < _INT64_MIN:
                raise OverflowError("can't convert negative int to unsigned")
            if value >= 1 << 64:
                raise OverflowError("int too big to convert")
            return value
        if isinstance(value, np.bool_):
            return float(value)     # as PyTorch, which reads a NumPy bool as a number (int32 + np.True_ is float)
        if isinstance(value, np.generic) and not isinstance(value, (np.str_, np.bytes_, np.void)):
            return value.item()     # before the float test: np.float64 is a float subclass, its value a float
        if isinstance(value, (bool, int, float, complex)):
            if type(value) in (bool, float, complex):
                return value
            if isinstance(value, int):                        # int subclasses (IntEnum ...): their int value
                return conv_scalar(int(value), arg, pos)
            return float(value) if isinstance(value, float) else complex(value)
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

    def conv_generator(value, arg, pos):
        if isinstance(value, Generator):
            return value
        _type_error(op, arg, pos, value, "torch.Generator")

    def conv_int_list(value, arg, pos):
        if type(value) is tuple or type(value) is list or isinstance(value, tuple):    # a Size too
            for v in value:
                if type(v) is not int or not _INT64_MIN <= v <= _INT64_MAX:
                    break
            else:
                return tuple(value)
        size = arg.type.list_size
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return (_int64(int(value), op, arg),) * (size or 1)
        if isinstance(value, (tuple, list)):
            out = []
            for v in value:
                if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                    v = int(v)
                    if not _INT64_MIN <= v <= _INT64_MAX:
                        raise TypeError(f"{op}(): argument '{arg.name}' failed to unpack the object at pos "
                                        f"{len(out) + 1} with error \"Overflow when unpacking long long\"")
                    out.append(v)
                elif hasattr(v, "__index__") and not hasattr(v, "_ks") and not isinstance(v, np.ndarray):
                    out.append(_int64(operator.index(v), op, arg))
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
        if not isinstance(value, (tuple, list)):
            _type_error(op, arg, pos, value, "tuple of Tensors")
        for i, v in enumerate(value):
            if v is None and arg.type.elem_optional:
                continue
            if not hasattr(v, "_ks"):
                raise TypeError(f"expected Tensor as element {i} in argument {pos}, but got "
                                f"{type(v).__name__}") from None
        return list(value)

    return {
        "int": conv_int, "SymInt": conv_int, "float": conv_float, "bool": conv_bool, "Scalar": conv_scalar,
        "str": conv_str, "ScalarType": conv_dtype, "Device": conv_device, "Generator": conv_generator,
        "int[]": conv_int_list, "SymInt[]": conv_int_list, "float[]": conv_float_list,
        "bool[]": conv_bool_list, "Tensor[]": conv_tensor_list,
    }


# The type test that lets a value skip its converter (the common case costs one comparison), by kind.
_FAST_CHECKS = {
    "int": "_op_type({v}) is not _op_int or not -9223372036854775808 <= {v} <= 9223372036854775807",
    "float": "_op_type({v}) is not _op_float",
    "bool": "_op_type({v}) is not _op_bool",
    "str": "_op_type({v}) is not _op_str",
    "Scalar": "(_op_tv := _op_type({v})) is not _op_float and (_op_tv is not _op_int or not "
              "-9223372036854775808 <= {v} < 18446744073709551616) and _op_tv is not _op_bool",
    "ScalarType": "_op_type({v}) is not _op_DType",
    "Device": "not _op_isinstance({v}, _op_Device)",
    "Generator": "_op_type({v}) is not _op_Generator",
}
_FAST_CHECKS["SymInt"] = _FAST_CHECKS["int"]


def build_call(entry, resolve, qualname_for_errors: str, non_tensor=None, number=None):
    """Build ``call(*args, **kwargs)`` and ``redispatch(ks, *args, **kwargs)`` for an OperatorEntry.

    The generated code checks every argument against its schema type before anything runs: tensors by
    their key set (a non-tensor raises PyTorch's TypeError), other kinds by an exact type test that sends
    anything unusual to its converter. It names its internals with ``_op`` prefixes (see ``_PREFIX``) and
    builtins through aliases, so an argument called ``_ks`` or ``type`` is just an argument.

    ``non_tensor(*args)``, if given, is what ``call`` returns when a tensor argument is not a tensor, instead
    of raising: a Python operator's other overload or ``NotImplemented`` (``_scalars.binary_operator``).
    ``number(*args)``, if given (with ``non_tensor``), is what it returns at once when the second tensor argument
    is a Python number (int, float, bool, complex): ``x + 1`` without the AttributeError of ``1._ks``.
    """
    from ..devices import device as Device
    from ..dtypes import dtype as DType
    from ..generator import Generator
    schema: FunctionSchema = entry.schema
    op_short = schema.name.split("::")[-1]
    if not all(_ok_identifier(a.name) for a in schema.arguments):
        return _build_generic(entry, resolve, qualname_for_errors)
    convs = make_converters(op_short)
    ns: dict = {"_op_state": tls.state, "_op_cache": entry.cache, "_op_resolve": resolve, "_op_entry": entry,
                "_op_scalar_types": (int, float, bool), "_op_DType": DType, "_op_Device": Device,
                "_op_Generator": Generator, "_op_type": type, "_op_isinstance": isinstance, "_op_int": int,
                "_op_float": float, "_op_bool": bool, "_op_str": str, "_op_list": list,
                "_op_AttributeError": AttributeError, "_op_tensor_error": _tensor_error, "_op_schema": schema,
                "_op_non_tensor": non_tensor, "_op_number": number, "_op_numbers": _NUMBERS}
    body, ks_terms, tensor_names = [], [], []
    call_pos, call_kw = [], []
    for i, arg in enumerate(schema.arguments):
        if arg.has_default:
            ns[f"_op_d{i}"] = _default_value(arg)
        (call_kw if arg.kwarg_only else call_pos).append(
            f"{arg.name}={arg.name}" if arg.kwarg_only else arg.name)
        t = arg.type
        name = arg.name
        if t.kind == "Tensor" and not t.is_list:
            tensor_names.append(name)
            ks_terms.append(f"({name}._ks if {name} is not None else 0)" if t.optional else f"{name}._ks")
            continue
        if t.kind == "Tensor" and t.is_list:
            ns[f"_op_c{i}"] = convs["Tensor[]"]
            ns[f"_op_a{i}"] = arg
            pad = "    "
            if t.optional:
                body.append(f"    if {name} is not None:")
                pad = "        "
            body.append(f"{pad}if _op_type({name}) is not _op_list: {name} = _op_c{i}({name}, _op_a{i}, {i})")
            body.append(f"{pad}try:")
            element = "(_op_t._ks if _op_t is not None else 0)" if t.elem_optional else "_op_t._ks"
            body.append(f"{pad}    for _op_t in {name}: _op_ks = _op_ks | {element}")
            body.append(f"{pad}except _op_AttributeError:")
            body.append(f"{pad}    _op_c{i}({name}, _op_a{i}, {i})")
            continue
        key = t.kind + ("[]" if t.is_list else "")
        conv = convs.get(key)
        if conv is None:
            continue
        ns[f"_op_c{i}"] = conv
        ns[f"_op_a{i}"] = arg
        check = "True" if t.is_list else _FAST_CHECKS[t.kind].format(v=name)
        if arg.has_default and ns[f"_op_d{i}"] is not None:
            # the default itself needs no conversion: it is already the value its converter gives
            check = f"{name} is not _op_d{i} and ({check})"
        if t.optional:
            body.append(f"    if {name} is not None and ({check}): {name} = _op_c{i}({name}, _op_a{i}, {i})")
        else:
            body.append(f"    if {check}: {name} = _op_c{i}({name}, _op_a{i}, {i})")
    sig = python_signature(schema).replace("=_d", "=_op_d")
    args_text = ", ".join(call_pos + call_kw)
    tnames = ", ".join(tensor_names)
    call = [f"    if _op_wk: return _op_fn(_op_ks{', ' if args_text else ''}{args_text})"]
    omissible = [i for i, a in enumerate(schema.arguments) if a.kwarg_only and a.has_default]
    if omissible:   # a kernel that resolved with ``_op_wk is None`` takes these at their defaults when omitted
        kept = ", ".join(call_pos + [f"{a.name}={a.name}" for a in schema.arguments
                                     if a.kwarg_only and not a.has_default])
        at_defaults = " and ".join(f"{schema.arguments[i].name} is _op_d{i}" for i in omissible)
        call.append(f"    if _op_wk is None and {at_defaults}: return _op_fn({kept})")
    call.append(f"    return _op_fn({args_text})")
    lines = [f"def _op_call({sig}):"]
    if number is not None and non_tensor is not None and len(tensor_names) == 2:
        lines.append(f"    if {tensor_names[1]}.__class__ in _op_numbers: return _op_number({', '.join(call_pos)})")
    lines += ["    try:",
             f"        _op_ks = {' | '.join(ks_terms) if ks_terms else '0'}",
             "    except _op_AttributeError:",
             f"        _op_tensor_error(_op_schema, ({tnames}{',' if tensor_names else ''}))"
             if non_tensor is None else f"        return _op_non_tensor({', '.join(call_pos)})"]
    lines += body
    lines.append("    _op_ks = (_op_ks | _op_state.include) & ~_op_state.exclude")
    lines.append("    _op_fn, _op_wk, _op_key = _op_cache.get(_op_ks) or _op_resolve(_op_entry, _op_ks)")
    lines += call
    # redispatch: same binding, caller-provided key set, no TLS.
    lines.append(f"def _op_redispatch(_op_ks, {sig}):")
    lines.append("    _op_fn, _op_wk, _op_key = _op_cache.get(_op_ks) or _op_resolve(_op_entry, _op_ks)")
    lines += call
    code = compile("\n".join(lines), f"<openreg op {qualname_for_errors}>", "exec")
    exec(code, ns)  # noqa: S102 - generated from a parsed schema, names validated above
    call_fn, redispatch_fn = ns["_op_call"], ns["_op_redispatch"]
    # Tracebacks and __name__ show the operator, not the generated functions' internal names.
    call_fn.__code__ = call_fn.__code__.replace(co_name=op_short, co_qualname=op_short)
    call_fn.__name__ = call_fn.__qualname__ = op_short
    return call_fn, redispatch_fn


def omits_defaults(schema: FunctionSchema, fn) -> bool:
    """Whether kernel ``fn`` may be called without the schema's keyword-only arguments that are at their
    defaults (``add(a, b)`` for ``add(a, b, alpha=1)``: a call with keywords costs a dict and a longer cache key).
    Only a kernel that names the functions its keywords reach (``fn._openreg_default_sources``; a wrapper that
    passes them on unchanged names its target as ``_openreg_defaults_of()``) qualifies, and only when each of
    them declares every such argument with the schema's default, of the same type."""
    sources = getattr(fn, "_openreg_default_sources", None)
    omissible = [a for a in schema.arguments if a.kwarg_only and a.has_default]
    if not sources or not omissible:
        return False
    for source in sources:
        forwarded = getattr(source, "_openreg_defaults_of", None)   # a wrapper passing its keywords on unchanged
        if forwarded is not None:
            source = forwarded()
        try:
            parameters = inspect.signature(source).parameters
        except (TypeError, ValueError):
            return False
        for arg in omissible:
            p = parameters.get(arg.name)
            want = _default_value(arg)
            if p is None or p.default.__class__ is not want.__class__ or p.default != want:
                return False
    return True


def _tensor_error(schema: FunctionSchema, values):
    op = schema.name.split("::")[-1]
    tensors = [(i, a) for i, a in enumerate(schema.arguments) if a.type.kind == "Tensor" and not a.type.is_list]
    for (i, arg), value in zip(tensors, values):
        if value is None and arg.type.optional:
            continue
        if not hasattr(value, "_ks"):
            _type_error(op, arg, i, value, "Tensor")
    raise TypeError(f"{op}(): invalid tensor arguments") from None


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
    """Binder for schemas whose argument names cannot be Python parameters (``from``, ``_op...``).

    Slower than the generated code, with the same checks and conversions.
    """
    schema = entry.schema
    convs = make_converters(schema.name.split("::")[-1])
    kinds = [(a, a.type.kind + ("[]" if a.type.is_list else "")) for a in schema.arguments]

    def bind(args, kwargs):
        values = bind_arguments(schema, args, kwargs, qualname)
        ks = 0
        for pos, (a, kind) in enumerate(kinds):
            v = values[a.name]
            if v is None and a.type.optional:
                continue
            if kind == "Tensor":
                if not hasattr(v, "_ks"):
                    _type_error(schema.name.split("::")[-1], a, pos, v, "Tensor")
                ks |= v._ks
                continue
            conv = convs.get(kind)
            if conv is not None:
                v = values[a.name] = conv(v, a, pos)
            if kind == "Tensor[]":
                for t in v:
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
