"""Generated Python variants of a record: ``openreg.<fn>(input, ..., out=None)`` and ``Tensor.<fn>``/``<fn>_``.

The generated code calls the overloads' call functions directly (``OpOverload._call``: no extra frame).
When a record has several argument signatures (``eq.Tensor``/``eq.Scalar``) they must use the same argument
names; the overload is picked by whether the arguments that differ in kind are tensors, Tensor kinds first.
Anything more irregular is written by hand in the record's file (``function=``/``method=`` callables).

>>> import openreg
>>> openreg.hypot(openreg.tensor([3.0]), openreg.tensor([4.0])).tolist()
[5.0]
"""
from __future__ import annotations

from .._dispatch.ops import lookup
from ._record import Group, Op


def _args(schema, rename_self: bool):
    """(parameter text, call text for this schema) excluding ``out``."""
    params, star = [], False
    defaults = {}
    for i, a in enumerate(schema.arguments):
        if a.kwarg_only and a.is_write:
            continue
        name = "input" if rename_self and a.name == "self" else a.name
        if a.kwarg_only and not star:
            params.append("*")
            star = True
        if a.has_default:
            defaults[f"_d{i}"] = a.default_value
            params.append(f"{name}=_d{i}")
        else:
            params.append(name)
    return params, defaults, star


def _call_text(schema, rename_self: bool) -> str:
    parts = []
    for a in schema.arguments:
        if a.kwarg_only and a.is_write:
            continue
        name = "input" if rename_self and a.name == "self" else a.name
        parts.append(f"{a.name}={name}" if a.kwarg_only else name)
    return ", ".join(parts)


def _arg_names(schema) -> tuple:
    return tuple(a.name for a in schema.arguments if not (a.kwarg_only and a.is_write))


def _selection(record: Op, groups: list[Group], pick, rename_self: bool = False) -> list[tuple[str, Group]]:
    """``[(condition, group)]`` in test order; the last condition is empty (the fallback). With
    ``rename_self`` the conditions name ``self`` as the function's ``input``."""
    if len(groups) == 1:
        return [("", groups[0])]
    schemas = [record.schema(pick(g)) for g in groups]
    names = _arg_names(schemas[0])
    if rename_self:
        names = tuple("input" if n == "self" else n for n in names)
    for s in schemas[1:]:
        if _arg_names(s) != _arg_names(schemas[0]):
            raise TypeError(f"record {record.name}: overloads {[str(x) for x in schemas]} name their arguments "
                            f"differently; write function=/method= by hand")
    kinds = [tuple(a.type.kind == "Tensor" and not a.type.is_list for a in s.arguments
                   if not (a.kwarg_only and a.is_write)) for s in schemas]
    differing = [i for i in range(len(names)) if len({k[i] for k in kinds}) > 1]
    order = sorted(range(len(groups)), key=lambda j: [not kinds[j][i] for i in differing])
    out = []
    for j in order:
        tests = [f"isinstance({names[i]}, _Tensor)" if kinds[j][i] else f"not isinstance({names[i]}, _Tensor)"
                 for i in differing]
        out.append((" and ".join(tests), groups[j]))
    out[-1] = ("", out[-1][1])
    return out


def _compile(src: str, name: str, env: dict, doc: str, module: str):
    exec(compile(src, f"<openreg.operators:{name}>", "exec"), env)  # noqa: S102 - generated from parsed schemas
    fn = env[name]
    fn.__qualname__ = name
    fn.__doc__ = doc or None
    fn.__module__ = module
    return fn


def _not_a_tensor(name: str, value):
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")


def _tensor_class():
    from ..tensor import TensorBase
    return TensorBase


def make_function(record: Op, name: str):
    """``openreg.<name>(input, ..., *, out=None)`` over the record's functional (and ``out=``) overloads."""
    groups = [g for g in record.groups if g.functional]
    choice = _selection(record, groups, lambda g: g.functional, rename_self=True)
    first = record.schema(choice[0][1].functional)
    params, defaults, star = _args(first, True)
    has_out = any(g.out for g in groups)
    if has_out:
        params += (["out=None"] if star else ["*", "out=None"])
    env = {"_Tensor": _tensor_class(), "_not_a_tensor": _not_a_tensor, **defaults}
    lines = [f"def {name}({', '.join(params)}):"]
    if all(record.schema(g.functional).arguments[0].name == "self" and
           record.schema(g.functional).arguments[0].type.kind == "Tensor" for g in groups):
        lines.append(f"    if not isinstance(input, _Tensor):\n        _not_a_tensor({name!r}, input)")
    for i, (cond, g) in enumerate(choice):
        indent = "    "
        if cond:
            lines.append(f"    if {cond}:")
            indent = "        "
        call = _call_text(record.schema(g.functional), True)
        env[f"_f{i}"] = lookup(f"{record.ns}::{g.functional}")._call
        if has_out:
            if g.out:
                env[f"_o{i}"] = lookup(f"{record.ns}::{g.out}")._call
                lines.append(f"{indent}if out is not None:")
                lines.append(f"{indent}    return _o{i}({call}, out=out)")
            else:
                lines.append(f"{indent}if out is not None:")
                lines.append(f"{indent}    raise TypeError(\"{name}(): aten::{g.functional} has no out= variant\")")
        lines.append(f"{indent}return _f{i}({call})")
    return _compile("\n".join(lines), name, env, record.doc, "openreg")


def make_methods(record: Op, name: str) -> dict:
    """``Tensor.<name>`` and, when in-place overloads exist, ``Tensor.<name>_``."""
    methods = {}
    for suffix, pick in (("", lambda g: g.functional), ("_", lambda g: g.inplace)):
        groups = [g for g in record.groups if pick(g)]
        if not groups:
            continue
        choice = _selection(record, groups, pick)
        schema = record.schema(pick(choice[0][1]))
        mname = name + suffix
        if len(choice) == 1 and [a.name for a in schema.arguments] == ["self"]:
            methods[mname] = lookup(f"{record.ns}::{pick(choice[0][1])}")._call   # no wrapper frame
            continue
        params, defaults, _ = _args(schema, False)
        env = {"_Tensor": _tensor_class(), **defaults}
        lines = [f"def {mname}({', '.join(params)}):"]
        for i, (cond, g) in enumerate(choice):
            env[f"_f{i}"] = lookup(f"{record.ns}::{pick(g)}")._call
            call = _call_text(record.schema(pick(g)), False)
            if cond:
                lines.append(f"    if {cond}:\n        return _f{i}({call})")
            else:
                lines.append(f"    return _f{i}({call})")
        methods[mname] = _compile("\n".join(lines), mname, env, "", "openreg.tensor")
    return methods


__all__ = ["make_function", "make_methods"]
