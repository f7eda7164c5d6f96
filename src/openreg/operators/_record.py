"""The operator record: everything about one operator (all its overloads), declared in one place.

PyTorch's ``native_functions.yaml`` + ``derivatives.yaml`` entry, spelled in Python. The loader
(``_loader.py``) derives the rest from it: the definitions and dispatch-table entries (Meta, every backend,
composites, Autograd), ``openreg.<fn>``, the Tensor methods and the structured ``out=``/in-place kernels.

* ``schemas``: PyTorch's exact schema texts, one per line, each optionally followed by its tags in brackets
  (``hypot(Tensor self, Tensor other) -> Tensor  [core, pointwise]``). Overloads with the same argument types
  (``hypot``, ``hypot.out``, ``hypot_``) form one *group*: its functional, ``out=`` and in-place variants.
* ``meta``/``compute``: a structured operator's meta rule (arguments -> ``Spec``) and compute function
  (``compute(spec, *args, **kwargs) -> array``, written against the array module ``xp``: NumPy on the CPU and
  the emulated device, CuPy on the cuda driver). A dict keyed by functional overload name gives one per group.
* ``ufunc``: the array-module ufunc (``"add"``) that ``compute`` amounts to when every argument is a tensor
  already in the result dtype (which is the compute dtype) and every keyword argument has its default; the
  structured kernel then calls it directly on repeated calls of such a signature (``aten/structured.py``).
  Declare it only when that holds exactly (same values, same warnings); a dict keyed by functional overload.
* ``scalar_options``: the group's Scalar arguments are options of the operator (``threshold_backward``'s
  threshold: one value per call site), not numbers that change on every call, so a structured kernel caches
  calls with their int values (``aten/structured.py``); its meta rule must not read them.
* ``scalar_types``: the meta rule reads only the type of a ``(Tensor self, Scalar other)`` group's ``other``
  (``add.Scalar``: the result dtype of ``x + 1`` and ``x + 1.0`` differ, not of ``x + 1`` and ``x + 2``), so a
  structured kernel caches ``x + 1`` by the number's type and computes with every value.
* ``device``: whether ``compute`` (and ``kernels``) run on every array module; decided here, never guessed.
* ``overrides``: ``{device_type: "module:function"}``, a compute function replacing ``compute`` on one
  backend (e.g. a raw CUDA kernel); imported when that backend registers.
* ``kernels``: unstructured kernels ``{"overload": {"CompositeImplicitAutograd" | ... | "Meta": fn}}``;
  ``"Backend"`` is every backend's kernel (the device's only with ``device=True``), ``"CPU"``/``"PrivateUse1"``
  one backend's own (a function, or ``"module:function"`` imported when that backend registers); the
  ``SparseCPU``/``SparsePrivateUse1`` kernels of sparse COO arguments come from ``sparse_kernels(name)``.
* ``derivatives``: ``{"functional overload": Deriv(...)}`` (applies to the group's in-place overload too),
  ``NONDIFF`` for float outputs that are never differentiable, or ``Forbid(message)``.
* ``function``/``method``: generated ``openreg.<fn>`` / ``Tensor.<fn>`` (+ ``<fn>_`` when an in-place
  overload exists) when True; a callable written by hand in the record's file when the Python signature
  merges overloads in a way generation does not cover; a name to publish under another name; False for none.
* ``extra_methods``: more ``Tensor`` attributes of the record (aliases, Python operators ``__add__``).

>>> from openreg.operators import RECORDS
>>> r = RECORDS["hypot"]
>>> [(g.functional, g.out, g.inplace) for g in r.groups]
[('hypot', 'hypot.out', 'hypot_')]
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .._dispatch.schema import FunctionSchema, parse_schema
from .._dispatch.tags import Tag

NONDIFF = "nondiff"


@dataclass(frozen=True)
class Deriv:
    """A derivatives.yaml entry: VJP formulas per differentiable input (``self=lambda g, a: ...``), the
    saved names, and the forward derivative: ``pointwise`` (the VJP formulas are the JVP), ``linear`` (the op
    applied to the tangent), or ``jvp={input: lambda t, a: ...}``. ``name`` is the graph node's name."""

    save: str = ""
    name: str | None = None
    pointwise: bool = False
    linear: bool = False
    jvp: dict | None = None
    formulas: dict = field(default_factory=dict)

    def __init__(self, /, *, save: str = "", name: str | None = None, pointwise: bool = False, linear: bool = False,
                 jvp: dict | None = None, **formulas: Callable) -> None:
        for k, v in (("save", save), ("name", name), ("pointwise", pointwise), ("linear", linear),
                     ("jvp", jvp), ("formulas", formulas)):
            object.__setattr__(self, k, v)


@dataclass(frozen=True)
class Forbid:
    """A derivatives entry of an op that refuses inputs requiring grad: PyTorch raises ``message`` in its
    autograd kernel (``resize_``: "cannot resize variables that require grad")."""

    message: str


@dataclass(frozen=True)
class Group:
    """The functional, ``out=`` and in-place overloads that share one argument signature (names like
    ``"add.Tensor"``, ``"add.out"``, ``"add_.Tensor"``; None when the variant does not exist)."""

    functional: str | None
    out: str | None
    inplace: str | None


def _key(schema: FunctionSchema) -> tuple:
    """What the variants of one group share: the argument types, ``out`` dropped and alias marks ignored."""
    return tuple((a.type.kind, a.type.is_list, a.type.optional, a.kwarg_only) for a in schema.arguments
                 if not (a.kwarg_only and a.is_write))


def overload_name(schema: FunctionSchema) -> str:
    """``"add.Tensor"`` / ``"hypot"``: the name without the namespace, as ``Library.impl`` takes it."""
    base = schema.name.split("::")[-1]
    return f"{base}.{schema.overload_name}" if schema.overload_name else base


def _parse_line(line: str) -> tuple[FunctionSchema, tuple]:
    text, _, tags = line.partition("  [")
    tags = tuple(Tag[t.strip()] for t in tags.rstrip("]").split(",") if t.strip())
    return parse_schema(f"aten::{text.strip()}" if "::" not in text else text.strip()), tags


class Op:
    """One operator record (see the module docstring for its fields)."""

    def __init__(self, name: str, schemas: str, *, meta=None, compute=None, elementwise: bool = False,
                 ufunc: str | dict | None = None, scalar_options: bool = False, scalar_types: bool = False,
                 device: bool = True, overrides: dict | None = None, kernels: dict | None = None,
                 derivatives: dict | None = None, function=True, method=True, extra_methods: dict | None = None,
                 extra_functions: dict | None = None, doc: str = "") -> None:
        self.name = name
        self.schemas: list[tuple[FunctionSchema, tuple]] = [
            _parse_line(line) for line in schemas.strip().splitlines() if line.strip()]
        self.ns = self.schemas[0][0].namespace
        self.meta, self.compute, self.elementwise = meta, compute, elementwise
        self.ufunc = ufunc
        self.scalar_options = scalar_options
        self.scalar_types = scalar_types
        self.device = device
        self.overrides = dict(overrides or {})
        self.kernels = dict(kernels or {})
        self.derivatives = dict(derivatives or {})
        self.function, self.method = function, method
        self.extra_methods = dict(extra_methods or {})
        self.extra_functions = dict(extra_functions or {})
        self.doc = doc
        self.groups = self._group()
        self.module = ""   # set by register(): the family file that declares the record

    def schema(self, overload: str) -> FunctionSchema:
        for s, _ in self.schemas:
            if overload_name(s) == overload:
                return s
        raise KeyError(f"{self.name} has no overload {overload!r}")

    def _group(self) -> list[Group]:
        groups: dict[tuple, dict] = {}
        for s, _ in self.schemas:
            role = ("out" if any(a.kwarg_only and a.is_write for a in s.arguments)
                    else "inplace" if s.name.endswith("_") and s.arguments and s.arguments[0].is_write
                    else "functional")
            slot = groups.setdefault(_key(s), {})
            if role in slot:
                raise ValueError(f"record {self.name}: {overload_name(s)} and {slot[role]} are both the {role} "
                                 f"variant of one argument signature")
            slot[role] = overload_name(s)
        return [Group(g.get("functional"), g.get("out"), g.get("inplace")) for g in groups.values()]

    def meta_for(self, group: Group):
        return self.meta.get(group.functional) if isinstance(self.meta, dict) else self.meta

    def compute_for(self, group: Group):
        return self.compute.get(group.functional) if isinstance(self.compute, dict) else self.compute

    def ufunc_for(self, group: Group) -> str | None:
        return self.ufunc.get(group.functional) if isinstance(self.ufunc, dict) else self.ufunc

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {[overload_name(s) for s, _ in self.schemas]})"


def sparse_kernels(name: str) -> dict:
    """A record's ``kernels`` entry for sparse COO arguments: ``name`` of ``operators/sparse.py`` at the
    ``SparseCPU`` and ``SparsePrivateUse1`` keys (imported on first call; written once for both backends)."""
    path = f"openreg.operators.sparse:{name}"
    return {"SparseCPU": path, "SparsePrivateUse1": path}


RECORDS: dict[str, Op] = {}


def register(*records: Op) -> None:
    """Add records to the catalog (a family file calls this once for its records)."""
    import sys
    module = sys._getframe(1).f_globals.get("__name__", "")
    for r in records:
        if r.name in RECORDS and RECORDS[r.name].module != module:
            raise ValueError(f"operator record {r.name!r} is declared twice: in {RECORDS[r.name].module} "
                             f"and in {module}")
        r.module = module
        RECORDS[r.name] = r


__all__ = ["NONDIFF", "RECORDS", "Deriv", "Forbid", "Group", "Op", "overload_name", "register", "sparse_kernels"]
