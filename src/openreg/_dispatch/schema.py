"""Operator schemas: parse, inspect and print the text signature of an operator.

A schema is the signature every operator is registered with, in the grammar of PyTorch's
``native_functions.yaml`` and ``torch.library``::

    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor

``parse_schema`` turns the text into an immutable :class:`FunctionSchema` made of
:class:`Argument` objects, each with a :class:`SchemaType` and an optional :class:`AliasInfo`.
``str(schema)`` prints PyTorch's canonical form, which parses back to an equal schema.

Grammar (informal)::

    schema    := name ["." overload] "(" [param ("," param)*] ")" "->" results
    name      := [ident "::"] ident
    param     := "*" | "..." | argument
    argument  := type [ident ["=" default]]        (returns: the name is optional, no default)
    results   := "..." | "(" [ret ("," ret)*] ")" | ret
    type      := base [alias] ["?"] [list]         base: Tensor, int, SymInt, float, bool, ...
    list      := "[" [N] "]" [alias] ["?"]         e.g. int[], int[2], Tensor?[], SymInt[]?
    alias     := "(" sets ["!"] ["->" sets] ")"    sets := ("*" | ident) ("|" ("*" | ident))*

Differences from PyTorch, all deliberate: ``Dict``/``Union``/``Future``/tuple types, type variables,
nested lists and the ``Tensor!`` shorthand are rejected; default values are type-checked;
duplicate argument names are errors; ``inf``/``-inf``/``nan`` are accepted as float defaults.
As in PyTorch, ScalarType/Layout/MemoryFormat defaults given by name (``dtype=long``) are stored and
printed as their integer codes (``dtype=4``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "AliasInfo",
    "Argument",
    "FunctionSchema",
    "SchemaParseError",
    "SchemaType",
    "parse_operator_name",
    "parse_schema",
]


class SchemaParseError(RuntimeError):
    """Raised for malformed schema text (a ``RuntimeError``, as in PyTorch)."""


# ---------------------------------------------------------------------------------------------------
# Type names
# ---------------------------------------------------------------------------------------------------

# fmt: off
#: Canonical base type names (``SchemaType.kind``), as PyTorch prints them.
BASE_KINDS: frozenset[str] = frozenset({
    "Tensor", "int", "SymInt", "float", "complex", "bool", "str", "Scalar", "ScalarType", "Layout",
    "MemoryFormat", "Device", "Generator", "Storage", "Stream", "QScheme", "Quantizer", "Capsule", "Any",
    "AnyClassType", "AnyEnumType", "NoneType",
})
# Accepted spellings that PyTorch stores (and prints) as another type.
_KIND_ALIASES = {"Dimname": "str", "ConstQuantizerPtr": "int", "DeviceIndex": "int", "None": "NoneType"}
_UNSUPPORTED_TYPES = frozenset({"Dict", "Union", "Future", "RRef", "Await", "__torch__"})

# Enum names accepted as defaults of ScalarType / Layout / MemoryFormat arguments.
# PyTorch stores enum defaults by their integer code (c10::ScalarType, Layout, MemoryFormat) and prints
# the number: "ScalarType? dtype=long" reads back as "dtype=4".
_ENUM_CODES: dict[str, dict[str, int]] = {
    "ScalarType": {
        "uint8": 0, "byte": 0, "int8": 1, "char": 1, "int16": 2, "short": 2, "int32": 3, "int": 3,
        "int64": 4, "long": 4, "float16": 5, "half": 5, "float32": 6, "float": 6, "float64": 7, "double": 7,
        "complex32": 8, "chalf": 8, "complex64": 9, "cfloat": 9, "complex128": 10, "cdouble": 10,
        "complex": 9, "bool": 11, "qint8": 12, "quint8": 13, "qint32": 14, "bfloat16": 15, "quint4x2": 16,
        "float8_e5m2": 23, "float8_e4m3fn": 24, "uint16": 27, "uint32": 28, "uint64": 29,
    },
    "Layout": {"strided": 0, "sparse_coo": 1, "sparse_csr": 2, "sparse_csc": 3, "sparse_bsr": 4,
               "sparse_bsc": 5, "_mkldnn": 6, "jagged": 7},
    "MemoryFormat": {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3},
}
_ENUM_NAMES: dict[str, frozenset[str]] = {
    "ScalarType": frozenset({
        "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "float32",
        "float64", "bfloat16", "complex32", "complex64", "complex128", "bool", "qint8", "quint8", "qint32",
        "quint4x2", "byte", "char", "short", "int", "long", "half", "float", "double", "chalf", "cfloat",
        "cdouble", "complex", "float8_e4m3fn", "float8_e5m2",
    }),
    "Layout": frozenset({
        "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged", "_mkldnn",
    }),
    "MemoryFormat": frozenset({"contiguous_format", "channels_last", "channels_last_3d", "preserve_format"}),
}
# fmt: on
# `int reduction=Mean` (at::Reduction); PyTorch stores and prints the integer.
_REDUCTIONS = {"Mean": 1, "Sum": 2}
_INT_KINDS = frozenset({"int", "SymInt"})
_NONE_DEFAULT_KINDS = frozenset({"Tensor", "Generator", "Quantizer", "NoneType"})
_LIST_DEFAULT_KINDS = frozenset({"int", "SymInt", "float", "bool", "complex"})
_RESERVED_NAMES = frozenset({"True", "False", "None"})
_INT64_MAX = 2**63 - 1
_MAX_LIST_SIZE = 2**16


@dataclass(frozen=True, slots=True)
class SchemaType:
    """The type of an argument or return, e.g. ``Tensor``, ``int[2]``, ``Tensor?[]``, ``SymInt[]?``.

    ``optional`` is the outer ``?`` (``int?``, ``int[]?``); ``elem_optional`` is the element's
    ``?`` in a list (``Tensor?[]``). ``list_size`` is the ``N`` of ``int[N]``.

    >>> t = parse_schema("f(Tensor?[] indices) -> ()").arguments[0].type
    >>> t.kind, t.is_list, t.elem_optional, t.optional, t.is_tensor_list, str(t)
    ('Tensor', True, True, False, True, 'Tensor?[]')
    >>> str(SchemaType("int", is_list=True, list_size=2, optional=True))
    'int[2]?'
    """

    kind: str
    optional: bool = False
    is_list: bool = False
    list_size: int | None = None
    elem_optional: bool = False

    def __post_init__(self) -> None:
        if self.kind not in BASE_KINDS:
            raise ValueError(f"SchemaType: unknown kind {self.kind!r}; expected one of {sorted(BASE_KINDS)}")
        if not self.is_list and (self.list_size is not None or self.elem_optional):
            raise ValueError("SchemaType: list_size and elem_optional need is_list=True")
        if self.list_size is not None and self.list_size < 0:
            raise ValueError(f"SchemaType: negative list size {self.list_size}")

    @property
    def is_tensor(self) -> bool:
        """``Tensor`` or ``Tensor?`` (not a list)."""
        return self.kind == "Tensor" and not self.is_list

    @property
    def is_tensor_list(self) -> bool:
        """``Tensor[]``, ``Tensor?[]`` (optionally with ``?`` on the list)."""
        return self.kind == "Tensor" and self.is_list

    @property
    def element(self) -> SchemaType:
        """The element type of a list type (``Tensor?[]`` -> ``Tensor?``)."""
        if not self.is_list:
            raise TypeError(f"{self} is not a list type")
        return SchemaType(self.kind, optional=self.elem_optional)

    def __str__(self) -> str:
        return _type_text(self, None, False)


@dataclass(frozen=True, slots=True)
class AliasInfo:
    """An alias annotation: ``a`` (aliases set a), ``a!`` (written), ``a -> *``, ``a|b``.

    ``before_set``/``after_set`` are the set names before and after the call (``"*"`` is the
    wildcard); without ``->`` they are equal.

    >>> arg = parse_schema("f(Tensor(a -> *) self) -> Tensor(a)[]").arguments[0]
    >>> arg.alias_info.before_set, arg.alias_info.after_set, arg.alias_info.is_write, str(arg.alias_info)
    (('a',), ('*',), False, 'a -> *')
    >>> str(AliasInfo(("a",), ("a",), True))
    'a!'
    """

    before_set: tuple[str, ...]
    after_set: tuple[str, ...]
    is_write: bool = False

    @property
    def is_wildcard_before(self) -> bool:
        return "*" in self.before_set

    @property
    def is_wildcard_after(self) -> bool:
        return "*" in self.after_set

    def __str__(self) -> str:
        text = "|".join(self.before_set) + ("!" if self.is_write else "")
        if self.after_set != self.before_set:
            text += " -> " + "|".join(self.after_set)
        return text


@dataclass(frozen=True, eq=False, slots=True)
class Argument:
    """One argument (or return) of a schema.

    ``has_default`` tells a ``None`` default (``Tensor? bias=None``) from no default.
    ``alias_info`` is the argument's alias annotation; for ``Tensor(a!)[]`` it is the elements'
    annotation ``a!`` and ``alias_on_elements`` is True (``Tensor[](a!)`` annotates the list itself).
    List defaults are lists, as PyTorch's (``int[2] padding=0`` gives ``[0, 0]``).

    >>> s = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    >>> a = s.arguments[2]
    >>> a.name, str(a.type), a.default_value, a.has_default, a.kwarg_only, a.alias_info, a.is_write
    ('alpha', 'Scalar', 1, True, True, None, False)
    >>> str(a)
    'Scalar alpha=1'
    """

    name: str
    type: SchemaType
    default_value: Any = None
    has_default: bool = False
    kwarg_only: bool = False
    alias_info: AliasInfo | None = None
    alias_on_elements: bool = False

    def __post_init__(self) -> None:
        if not self.has_default and self.default_value is not None:
            raise ValueError(f"Argument {self.name!r}: a default_value needs has_default=True")
        if self.alias_on_elements and (self.alias_info is None or not self.type.is_list):
            raise ValueError(f"Argument {self.name!r}: alias_on_elements needs a list type and alias_info")

    @property
    def is_write(self) -> bool:
        """True when the argument is mutated (``Tensor(a!)``, ``Tensor(a!)[]``)."""
        return self.alias_info is not None and self.alias_info.is_write

    @property
    def is_out(self) -> bool:
        """True for an ``out=`` argument: keyword-only and written to."""
        return self.kwarg_only and self.is_write

    def _key(self) -> tuple:
        default = _value_key(self.default_value) if self.has_default else None
        return (
            self.name,
            self.type,
            self.has_default,
            default,
            self.kwarg_only,
            self.alias_info,
            self.alias_on_elements,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Argument):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        text = _type_text(self.type, self.alias_info, self.alias_on_elements)
        if self.name:
            text += " " + self.name
        if self.has_default:
            text += "=" + _format_default(self.default_value, self.type)
        return text


@dataclass(frozen=True, eq=False, slots=True)
class FunctionSchema:
    """A parsed operator schema; immutable, hashable, compared structurally.

    ``name`` includes the namespace when one was given (``"aten::add"``), ``overload_name`` is
    ``""`` when none; ``arguments``/``returns`` are tuples of :class:`Argument`.

    >>> s = parse_schema("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor v, Tensor i)")
    >>> s.name, s.namespace, s.overload_name, s.argument_names(), [r.name for r in s.returns]
    ('aten::max', 'aten', 'dim', ['self', 'dim', 'keepdim'], ['v', 'i'])
    >>> parse_schema(str(s)) == s
    True
    """

    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False
    is_varret: bool = False
    _hash: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        # Accept lists from callers but keep the schema immutable.
        object.__setattr__(self, "arguments", tuple(self.arguments))
        object.__setattr__(self, "returns", tuple(self.returns))
        object.__setattr__(self, "_hash", hash(self._key()))

    @property
    def namespace(self) -> str:
        """``"aten"`` for ``aten::add``; ``""`` when the name has no namespace."""
        ns, sep, _ = self.name.partition("::")
        return ns if sep else ""

    @property
    def unqualified_name(self) -> str:
        """The name without namespace: ``"add"`` for ``aten::add``."""
        return self.name.rpartition("::")[2]

    @property
    def operator_name(self) -> str:
        """Name and overload as PyTorch spells an ``OpOverload``: ``"aten::add.Tensor"``."""
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def is_mutable(self) -> bool:
        """True when any argument is written to (has a ``!`` alias annotation)."""
        return any(a.alias_info is not None and a.alias_info.is_write for a in self.arguments)

    def argument_names(self) -> list[str]:
        """Names of the arguments in order."""
        return [a.name for a in self.arguments]

    def _key(self) -> tuple:
        return (self.name, self.overload_name, self.arguments, self.returns, self.is_vararg, self.is_varret)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FunctionSchema):
            return NotImplemented
        return self._hash == other._hash and self._key() == other._key()

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        parts = []
        seen_kwarg_only = False
        for arg in self.arguments:
            if arg.kwarg_only and not seen_kwarg_only:
                parts.append("*")
                seen_kwarg_only = True
            parts.append(str(arg))
        if self.is_vararg:
            parts.append("...")
        rets = [str(r) for r in self.returns]
        if self.is_varret:
            rets.append("...")
        if len(self.returns) == 1 and not self.is_varret:
            ret_text = rets[0]
        elif not self.returns and self.is_varret:
            ret_text = "..."
        else:
            ret_text = "(" + ", ".join(rets) + ")"
        return f"{self.operator_name}({', '.join(parts)}) -> {ret_text}"

    def __repr__(self) -> str:
        return f"FunctionSchema({str(self)!r})"


# ---------------------------------------------------------------------------------------------------
# Printing helpers
# ---------------------------------------------------------------------------------------------------


def _type_text(t: SchemaType, alias: AliasInfo | None, on_elements: bool) -> str:
    note = f"({alias})" if alias is not None else ""
    if not t.is_list:
        return t.kind + note + ("?" if t.optional else "")
    size = "" if t.list_size is None else str(t.list_size)
    return (
        t.kind
        + (note if on_elements else "")
        + ("?" if t.elem_optional else "")
        + f"[{size}]"
        + ("" if on_elements else note)
        + ("?" if t.optional else "")
    )


def _format_float(d: float) -> str:
    # PyTorch prints integral doubles as "1." and others with 17 significant digits.
    if math.isinf(d):
        return "inf" if d > 0 else "-inf"
    if math.isnan(d):
        return "nan"
    if abs(d) < 1e10 and d == int(d):
        if d == 0 and math.copysign(1.0, d) < 0:
            return "-0."
        return f"{int(d)}."
    text = f"{d:.17g}"
    if "." not in text and "e" not in text:
        text += "."  # keep it a float when read back (PyTorch would print a bare integer here)
    return text


def _quote(s: str) -> str:
    out = ['"']
    for b in s.encode("utf-8", "surrogateescape"):
        c = chr(b)
        esc = _ESCAPES_OUT.get(c)
        if esc is not None:
            out.append(esc)
        elif 0x1F < b < 0x7F:
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    out.append('"')
    return "".join(out)


_ESCAPES_OUT = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}
_ESCAPES_IN = {
    "\\": 0x5C,
    "'": 0x27,
    '"': 0x22,
    "a": 0x07,
    "b": 0x08,
    "f": 0x0C,
    "n": 0x0A,
    "r": 0x0D,
    "t": 0x09,
    "v": 0x0B,
}


def _format_scalar(v: Any) -> str:
    if v is None:
        return "None"
    if v is True:
        return "True"
    if v is False:
        return "False"
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return _format_float(v)
    if isinstance(v, complex):
        if v.real == 0 and math.copysign(1.0, v.real) > 0:
            return _format_float(v.imag) + "j"
        if v.imag == 0 and math.copysign(1.0, v.imag) > 0:
            return _format_float(v.real)  # read back as complex by a `complex` argument
        sign = "+" if v.imag >= 0 else "-"
        return f"{_format_float(v.real)}{sign}{_format_float(abs(v.imag))}j"  # PyTorch's form
    raise TypeError(f"cannot print default value {v!r} of type {type(v).__name__} in a schema")


def _format_default(v: Any, t: SchemaType) -> str:
    if isinstance(v, (tuple, list)):
        # native_functions.yaml writes `int[2] stride=1` for [1, 1]; PyTorch prints it back that way.
        if (
            t.kind == "int"
            and t.is_list
            and not t.optional
            and not t.elem_optional
            and t.list_size is not None
            and len(v) == t.list_size > 1
            and all(x == v[0] for x in v)
            and all(type(x) is int for x in v)
        ):
            return _format_scalar(v[0])
        return "[" + ", ".join(_format_scalar(x) for x in v) + "]"
    return _format_scalar(v)


def _value_key(v: Any) -> Any:
    """A key that tells 1, 1.0, True, -0.0/0.0 and "1"/1 apart."""
    if isinstance(v, float):
        return ("float", v.hex())
    if isinstance(v, complex):
        return ("complex", v.real.hex(), v.imag.hex())
    if isinstance(v, (tuple, list)):
        return ("list", tuple(_value_key(x) for x in v))
    return (type(v).__name__, v)


# ---------------------------------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------------------------------

# One findall() call splits the text into token strings (leading whitespace is skipped); the final
# `\S` alternative catches single-character operators and stray characters alike.
_TOKEN_RE = re.compile(
    r"""
    \s*(
        [A-Za-z_][A-Za-z0-9_]*
      | -> | \.\.\. | ::
      | [0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?j?
      | "(?:[^"\\\n]|\\[\s\S])*"
      | '(?:[^'\\\n]|\\[\s\S])*'
      | \S
    )
    """,
    re.VERBOSE,
)
# A token's kind is "ident", "number", "string", "eof" or the operator text itself.
_KIND_OF_FIRST_CHAR = {c: "ident" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"}
_KIND_OF_FIRST_CHAR.update({c: "number" for c in "0123456789"})
_KIND_OF_FIRST_CHAR.update({'"': "string", "'": "string"})
_VALID_KINDS = frozenset({"ident", "number", "string", "->", "...", "::"} | set("()[],*?!|=.:-"))


def _tokenize(text: str) -> tuple[list[str], list[str]]:
    """Split ``text`` into parallel lists of token kinds and texts, ending with an ``eof`` token."""
    texts = _TOKEN_RE.findall(text)
    kinds = [_KIND_OF_FIRST_CHAR.get(t[0], t) for t in texts]
    if not _VALID_KINDS.issuperset(kinds) or "'" in texts or '"' in texts:
        for i, (k, t) in enumerate(zip(kinds, texts)):
            if k not in _VALID_KINDS or t in ("'", '"'):
                what = "unterminated string literal" if t in "'\"" else f"unexpected character {t!r}"
                raise SchemaParseError(f"{what}:\n{_highlight(text, _token_starts(text)[i], 1)}")
    kinds.append("eof")
    texts.append("")
    return kinds, texts


def _token_starts(text: str) -> list[int]:
    """Start offsets of the tokens of ``text`` (and of the eof token); computed only for errors."""
    return [m.start(1) for m in _TOKEN_RE.finditer(text)] + [len(text.rstrip())]


def _highlight(text: str, pos: int, length: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    if line_end < 0:
        line_end = len(text)
    col = pos - line_start
    length = max(1, min(length, line_end - pos))
    return f"{text[line_start:line_end]}\n{' ' * col}{'~' * length} <--- HERE"


# SchemaType objects are immutable: share one instance per distinct type.
_TYPE_CACHE: dict[tuple, SchemaType] = {}


def _make_type(kind: str, optional: bool, is_list: bool, size: int | None, elem_optional: bool) -> SchemaType:
    key = (kind, optional, is_list, size, elem_optional)
    typ = _TYPE_CACHE.get(key)
    if typ is None:
        typ = _TYPE_CACHE[key] = SchemaType(kind, optional, is_list, size, elem_optional)
    return typ


# ---------------------------------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------------------------------


class _Parser:
    """Recursive descent over the token lists; ``i`` is the index of the current token."""

    __slots__ = ("i", "kinds", "name_at", "text", "texts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.kinds, self.texts = _tokenize(text)
        self.i = 0
        self.name_at = 0  # index of the last argument's name token, for duplicate-name errors

    # -- token helpers ------------------------------------------------------------------------------
    def error(self, message: str, at: int | None = None) -> SchemaParseError:
        """An error pointing at token ``at`` (default: the current one), formatted like PyTorch's."""
        at = self.i if at is None else at
        where = _highlight(self.text, _token_starts(self.text)[at], len(self.texts[at]))
        return SchemaParseError(f"{message.rstrip('.')}:\n{where}")

    def expected(self, what: str, at: int | None = None) -> SchemaParseError:
        at = self.i if at is None else at
        found = "eof" if self.kinds[at] == "eof" else self.texts[at]
        return self.error(f"expected {what} but found '{found}' here", at)

    def expect(self, kind: str, what: str | None = None) -> str:
        i = self.i
        if self.kinds[i] != kind:
            raise self.expected(what or (kind if kind in ("ident", "number", "eof") else f"'{kind}'"))
        self.i = i + 1
        return self.texts[i]

    def accept(self, kind: str) -> bool:
        if self.kinds[self.i] == kind:
            self.i += 1
            return True
        return False

    # -- declaration ---------------------------------------------------------------------------------
    def parse_name(self) -> tuple[str, str]:
        name = self.expect("ident", "operator name")
        if self.accept("::"):
            name = f"{name}::{self.expect('ident', 'operator name')}"
        overload = ""
        if self.accept("."):
            overload = self.expect("ident", "overload name")
            if overload == "default" or overload.startswith("__"):
                raise self.error(f"{overload} is not a legal overload name for aten operators", self.i - 1)
        return name, overload

    def parse_schema(self) -> FunctionSchema:
        name, overload = self.parse_name()
        kinds = self.kinds
        if kinds[self.i] == "eof":
            raise SchemaParseError(
                "Tried to parse a function schema but only the operator name was given: " + repr(self.text)
            )
        self.expect("(")
        arguments: list[Argument] = []
        kwarg_only = is_vararg = False
        seen: set[str] = set()
        if kinds[self.i] != ")":
            while True:
                if is_vararg:
                    raise self.error("... must be the last element of the argument list")
                kind = kinds[self.i]
                if kind == "*":
                    self.i += 1
                    kwarg_only = True
                elif kind == "...":
                    self.i += 1
                    is_vararg = True
                else:
                    arg = self.parse_argument(False, kwarg_only)
                    if arg.name in seen:
                        raise self.error(f"duplicate argument name '{arg.name}'", self.name_at)
                    seen.add(arg.name)
                    arguments.append(arg)
                if kinds[self.i] != ",":
                    break
                self.i += 1
        self.expect(")", "',' or ')'")
        if is_vararg and any(a.has_default for a in arguments):
            raise self.error("schemas with vararg (...) can't have default value args", self.i - 1)
        self.expect("->")

        returns: list[Argument] = []
        is_varret = False
        if self.accept("..."):
            is_varret = True
        elif self.accept("("):
            seen.clear()
            if kinds[self.i] != ")":
                while True:
                    if is_varret:
                        raise self.error("... must be the last element of the return list")
                    if self.accept("..."):
                        is_varret = True
                    else:
                        ret = self.parse_argument(True, False)
                        if ret.name:
                            if ret.name in seen:
                                raise self.error(f"duplicate return name '{ret.name}'", self.name_at)
                            seen.add(ret.name)
                        returns.append(ret)
                    if not self.accept(","):
                        break
            self.expect(")", "',' or ')'")
        else:
            returns.append(self.parse_argument(True, False))
        self.expect("eof")
        return FunctionSchema(name, overload, tuple(arguments), tuple(returns), is_vararg, is_varret)

    # -- arguments and types -------------------------------------------------------------------------
    def parse_argument(self, is_return: bool, kwarg_only: bool) -> Argument:
        typ, alias, on_elements = self.parse_type()
        i = self.i
        kind, name = self.kinds[i], self.texts[i]
        self.name_at = i
        if is_return:
            if kind == "ident" and name not in _RESERVED_NAMES:
                self.i = i + 1
            else:
                name = ""
            return Argument(name, typ, None, False, False, alias, on_elements)
        if kind != "ident" or name in _RESERVED_NAMES:
            raise self.expected("argument name")
        if self.kinds[i + 1] == "=":
            self.i = i + 2
            default = self.parse_default(typ, name)
            return Argument(name, typ, default, True, kwarg_only, alias, on_elements)
        self.i = i + 1
        return Argument(name, typ, None, False, kwarg_only, alias, on_elements)

    def parse_type(self) -> tuple[SchemaType, AliasInfo | None, bool]:
        kinds = self.kinds
        i = self.i
        if kinds[i] != "ident":
            if kinds[i] == "(":
                raise self.error("tuple types are not supported by openreg's schema parser")
            raise self.expected("a type")
        text = self.texts[i]
        kind = _KIND_ALIASES.get(text, text)
        if kind not in BASE_KINDS:
            raise self.error(_unknown_type_message(text))
        i += 1
        alias = None
        if kinds[i] == "(" or kinds[i] == "!":
            self.i = i
            alias = self.parse_alias()
            i = self.i
        elem_optional = kinds[i] == "?"
        if elem_optional:
            i += 1
        if kinds[i] != "[":
            self.i = i
            return _make_type(kind, elem_optional, False, None, False), alias, False
        i += 1
        size = None
        if kinds[i] == "number":
            if not self.texts[i].isdigit():
                raise self.expected("an integer list size", i)
            size = int(self.texts[i])
            if size > _MAX_LIST_SIZE:
                raise self.error(f"list size {size} is too large (at most {_MAX_LIST_SIZE})", i)
            i += 1
        self.i = i
        self.expect("]", "']'" if size is not None else "']' or a list size")
        container_alias = self.parse_alias()
        optional = self.accept("?")
        if kinds[self.i] == "[":
            raise self.error("nested list types are not supported by openreg's schema parser")
        if alias is not None and container_alias is not None:
            raise self.error("alias annotations on both a list and its elements are not supported")
        typ = _make_type(kind, optional, True, size, elem_optional)
        if alias is not None:
            return typ, alias, True
        return typ, container_alias, False

    def parse_alias(self) -> AliasInfo | None:
        kind = self.kinds[self.i]
        if kind == "!":
            raise self.error(
                "the 'Tensor!' shorthand is not supported; name the alias set as in 'Tensor(a!)'"
            )
        if kind != "(":
            return None
        self.i += 1
        before = self.parse_alias_sets()
        is_write = self.accept("!")
        after = self.parse_alias_sets() if self.accept("->") else before
        self.expect(")")
        return AliasInfo(before, after, is_write)

    def parse_alias_sets(self) -> tuple[str, ...]:
        sets: list[str] = []
        while True:
            name = "*" if self.accept("*") else self.expect("ident", "alias set name or '*'")
            if "*" not in sets:  # after a wildcard, further sets add nothing (as in PyTorch)
                sets.append(name)
            if not self.accept("|"):
                return tuple(sets)

    # -- default values ------------------------------------------------------------------------------
    def parse_default(self, t: SchemaType, arg: str) -> Any:
        if self.kinds[self.i] == "ident" and self.texts[self.i] == "None":
            if t.optional or (not t.is_list and t.kind in _NONE_DEFAULT_KINDS):
                self.i += 1
                return None
            raise self.expected(
                f"a default of type {t} for argument '{arg}' (None is only a default "
                f"for optional types such as {t}?)"
            )
        if not t.is_list:
            return self.parse_scalar(t.kind, t, arg)
        if t.kind not in _LIST_DEFAULT_KINDS or t.elem_optional:
            raise self.error(
                f"default values of type {t} are not supported (argument '{arg}'): "
                "lists are only supported for float, int, bool and complex types"
            )
        if self.accept("["):
            values = []
            if self.kinds[self.i] != "]":
                while True:
                    values.append(self.parse_scalar(t.kind, t, arg))
                    if not self.accept(","):
                        break
            self.expect("]", "',' or ']'")
            return values
        if t.list_size is not None:  # `int[2] stride=1` means [1, 1]
            return [self.parse_scalar(t.kind, t, arg)] * t.list_size
        raise self.expected(f"a list default such as [] or [0, 1] for argument '{arg}' of type {t}")

    def parse_scalar(self, kind: str, t: SchemaType, arg: str) -> Any:
        tk, text = self.kinds[self.i], self.texts[self.i]
        if kind == "bool" or kind == "Scalar":
            if tk == "ident" and text in ("True", "False"):
                self.i += 1
                return text == "True"
            if kind == "bool":
                raise self.expected(f"True or False as the default of bool argument '{arg}'")
        if kind == "str" or kind == "Device":
            if tk == "string":
                self.i += 1
                return _unquote(text, self, self.i - 1)
            raise self.expected(f"a quoted string as the default of {kind} argument '{arg}'")
        if kind in _ENUM_NAMES and tk == "ident":
            if text in _ENUM_NAMES[kind]:
                self.i += 1
                return _ENUM_CODES[kind][text]
            examples = ", ".join(sorted(_ENUM_NAMES[kind])[:4])
            raise self.expected(f"a {kind} name (e.g. {examples}) as the default of argument '{arg}'")
        if kind in _INT_KINDS and tk == "ident" and text in _REDUCTIONS:
            self.i += 1
            return _REDUCTIONS[text]
        if kind in _INT_KINDS or kind in _ENUM_NAMES or kind in ("float", "complex", "Scalar"):
            return self.parse_number(kind, t, arg)
        raise self.expected(f"None as the default of {t} argument '{arg}'")

    def parse_number(self, kind: str, t: SchemaType, arg: str) -> Any:
        sign = -1 if self.accept("-") else 1
        i = self.i
        tk, text = self.kinds[i], self.texts[i]
        bad = f"{_describe(kind)} default for argument '{arg}' of type {t}"
        if tk == "ident" and text in ("inf", "nan") and kind in ("float", "Scalar", "complex"):
            value: Any = sign * float(text)
        elif tk != "number":
            raise self.expected(bad)
        elif text.endswith("j"):
            if kind not in ("complex", "Scalar"):
                raise self.expected(bad)
            value = complex(0.0, sign * float(text[:-1]))
        elif text.isdigit():
            if kind in ("float", "complex"):
                value = sign * float(text)
            else:
                value = sign * int(text) if len(text) <= 19 else _INT64_MAX + 2
                if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
                    raise self.error(f"integer default of argument '{arg}' is out of the int64 range", i)
        elif kind in ("float", "Scalar", "complex"):
            value = sign * float(text)
        else:
            raise self.expected(bad)
        self.i = i + 1
        return complex(value) if kind == "complex" else value


def _describe(kind: str) -> str:
    if kind in _INT_KINDS:
        return "an integer"
    if kind in _ENUM_NAMES:
        return f"a {kind} name or integer"
    if kind == "Scalar":
        return "a number"
    return f"a {kind}"


def _unknown_type_message(text: str) -> str:
    if text == "double":
        return (
            "Use `float` instead of `double` in an operator's schema string. "
            "`float` in schema corresponds to the double type in C++"
        )
    if text == "int64_t":
        return (
            "Use `SymInt` or `int` instead of `int64_t` in an operator's schema string. "
            "`SymInt` corresponds to c10::SymInt in C++ while `int` in schema corresponds "
            "to the int64_t type in C++."
        )
    if text in _UNSUPPORTED_TYPES:
        return f"the type '{text}' is not supported by openreg's schema parser"
    return (
        f"Unknown type name '{text}' (unknown type specifier). Common valid schema types include "
        "Tensor, SymInt, int, float, bool, Scalar; for the full list see "
        "openreg._dispatch.schema.BASE_KINDS"
    )


def _unquote(literal: str, parser: _Parser, at: int) -> str:
    body = literal[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1]
        if "0" <= nxt <= "7":
            j = i + 1
            while j < min(i + 4, n) and "0" <= body[j] <= "7":
                j += 1
            out.append(int(body[i + 1 : j], 8) & 0xFF)
            i = j
        elif nxt == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2 : i + 4]):
            out.append(int(body[i + 2 : i + 4], 16))
            i += 4
        elif nxt in _ESCAPES_IN:
            out.append(_ESCAPES_IN[nxt])
            i += 2
        else:
            raise parser.error(f"invalid escape sequence '\\{nxt}' in string literal", at)
    return out.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def parse_schema(text: str) -> FunctionSchema:
    """Parse operator schema text into a :class:`FunctionSchema`.

    Raises ``RuntimeError`` (:class:`SchemaParseError`) naming the problem and pointing at it.

    >>> s = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    >>> s.name, s.overload_name, s.namespace, [a.name for a in s.arguments if a.kwarg_only]
    ('aten::add', 'Tensor', 'aten', ['alpha'])
    >>> str(parse_schema("abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"))
    'abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)'
    >>> parse_schema("f(float eps=1e-05) -> ()").arguments[0].default_value
    1e-05
    >>> str(parse_schema("f(float eps=1e-05) -> ()"))  # PyTorch prints doubles with 17 digits
    'f(float eps=1.0000000000000001e-05) -> ()'
    >>> parse_schema("f(int64_t x) -> ()")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    openreg._dispatch.schema.SchemaParseError: Use `SymInt` or `int` instead of `int64_t` ...
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_schema expects a str, got {type(text).__name__}")
    return _Parser(text).parse_schema()


def parse_operator_name(text: str) -> tuple[str, str]:
    """Split ``"aten::add.Tensor"`` into ``("aten::add", "Tensor")``; the overload is ``""`` if absent.

    >>> parse_operator_name("aten::add.Tensor"), parse_operator_name("mylib::foo")
    (('aten::add', 'Tensor'), ('mylib::foo', ''))
    """
    parser = _Parser(text)
    name = parser.parse_name()
    if parser.kinds[parser.i] == "(":
        raise SchemaParseError(f"Tried to parse an operator name but function schema was given: {text!r}")
    parser.expect("eof")
    return name
