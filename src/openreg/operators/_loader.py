"""The one loader: turns the operator records into definitions, kernels, derivatives, functions and methods.

* ``define()`` defines every record's schemas (with their tags) through ``openreg.library`` (one DEF
  library per namespace) and registers the fallthrough fallbacks of the layers an operator passes through
  unless it has a kernel there; the Tensor class needs the overloads for its generated methods, so this runs
  when ``tensor.py`` builds the class.
* ``tensor_methods()`` / ``functions()``: the generated (or hand-written) ``Tensor`` methods and
  ``openreg.<fn>`` functions of every record.
* ``load()`` registers the Meta and composite kernels and the derivative entries (with their Autograd
  kernels); ``register_backend(device_type, key)`` the structured and backend kernels of one backend. Each
  call covers every record and backend known so far, so the order of these calls does not matter.
* ``finish()`` (the last step of ``import openreg``) also derives the Autograd kernels of the derivatives
  table and the Autocast kernels of the autocast policy for every operator defined by then.

All registrations go through ``Library`` objects, so destroying them restores exactly what was there.

>>> import openreg
>>> from openreg._dispatch import dispatcher
>>> from openreg._dispatch.keys import DispatchKey
>>> [dispatcher.has_kernel("aten::hypot.out", k) for k in (DispatchKey.CPU, DispatchKey.Meta)]
[True, True]
"""
from __future__ import annotations

import importlib

from ..library import Library
from ._record import NONDIFF, RECORDS, Forbid, Group, Op, overload_name
from ._variants import make_function, make_methods

_libs: dict[tuple, Library] = {}
_defined: set[str] = set()
_loaded: set[str] = set()
_backends: dict[str, tuple] = {}          # device_type -> (dispatch key, wrap, refresh)
_backend_done: set[tuple] = set()         # (record name, device_type)
# Kernel keys naming one backend: registered when that backend registers (``register_backend``), so a record
# can name a backend module's kernel as ``"module:function"`` without importing the backend.
_BACKEND_KEYS = frozenset(("CPU", "PrivateUse1"))


# Layers every operator passes through unless it registers a kernel there.
_FALLTHROUGH_KEYS = ("BackendSelect", "ADInplaceOrView", "AutogradOther", "PythonTLSSnapshot", "AutogradCPU",
                     "AutogradPrivateUse1", "AutogradMeta", "AutocastCPU", "AutocastPrivateUse1")


def _lib(ns: str, purpose: str) -> Library:
    """The loader's library of namespace ``ns`` for ``purpose`` ("def": the namespace's one DEF library)."""
    lib = _libs.get((ns, purpose))
    if lib is None:
        lib = _libs[(ns, purpose)] = Library(ns, "DEF" if purpose == "def" else "IMPL")
    return lib


def _fallthroughs() -> None:
    if ("_", "fallthrough") not in _libs:
        from .._dispatch.dispatcher import fallthrough_kernel
        lib = _libs[("_", "fallthrough")] = Library("_", "IMPL")
        for key in _FALLTHROUGH_KEYS:
            lib.fallback(fallthrough_kernel, key)


def _catalog() -> dict[str, Op]:
    from . import load_families
    load_families()
    return RECORDS


def define() -> None:
    """Define the schemas of every record not defined yet (and, once, the fallthrough fallbacks)."""
    _fallthroughs()
    for record in list(_catalog().values()):
        if record.name in _defined:
            continue
        lib = _lib(record.ns, "def")
        for schema, tags in record.schemas:
            lib.define(str(schema).split("::", 1)[1], tags=tags)
        _defined.add(record.name)


def _names(spec, default: str) -> list[str]:
    if spec is True:
        return [default]
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, (tuple, list)):
        return list(spec)
    return []


def _variants(kind: str, generate) -> dict:
    """``{name: callable}`` of every record's ``kind`` ("method" or "function"): the record's own callable,
    or generated for each name it gives, plus its ``extra_<kind>s``; string entries are aliases."""
    define()
    table: dict = {}
    for record in _catalog().values():
        spec = getattr(record, kind)
        if callable(spec):
            table[record.name] = spec
        for name in _names(spec, record.name):
            table.update(generate(record, name))
        table.update(getattr(record, f"extra_{kind}s"))
    table = {name: table[value] if isinstance(value, str) else value for name, value in table.items()}
    for name, fn in table.items():
        build = getattr(fn, "_openreg_build", None)    # a Python operator: its generated call (_scalars)
        if build is not None:
            table[name] = fn = build()
            fn.__name__ = fn.__qualname__ = name
    for name, fn in table.items():
        if getattr(fn, "__name__", name).startswith("_") and not name.startswith("_") and hasattr(fn, "__code__"):
            fn.__name__ = fn.__qualname__ = name     # a private helper of a family file, published as ``name``
    return table


def tensor_methods() -> dict:
    """Every record's Tensor methods."""
    return _variants("method", make_methods)


def functions() -> dict:
    """Every record's ``openreg.<fn>`` functions."""
    return _variants("function", lambda record, name: {name: make_function(record, name)})


# -- kernels -------------------------------------------------------------------------------------------

def _structured_kernels(record: Op, group: Group, device_type: str, compute):
    from ..aten.structured import structured
    # A backend's override (a raw kernel) runs instead of the ufunc, unless it says that it is the record's
    # compute for every dtype but the narrow floats (which the ufunc shortcut never takes).
    # ``ufunc_unless`` (a function) says when it is not: e.g. while the device's raw kernels run.
    unless = getattr(compute, "ufunc_unless", None)
    ufunc = record.ufunc_for(group) if compute is record.compute_for(group) or unless is not None or \
        getattr(compute, "record_compute_unless_narrow", False) else None
    defaults = {}
    if ufunc is not None:
        from .._dispatch.binding import _default_value
        defaults = {a.name: _default_value(a) for a in record.schema(group.functional).arguments
                    if a.kwarg_only and a.has_default}
    kinds = _OPTION_KINDS | {"Scalar"} if record.scalar_options else _OPTION_KINDS
    arguments = record.schema(group.functional).arguments
    options = all(a.type.kind in kinds for a in arguments if not a.kwarg_only and a.type.kind != "Tensor")
    # a (Tensor self, Scalar other, ...) group whose meta reads only other's type
    scalar_types = record.scalar_types and len(arguments) > 1 and arguments[0].type.kind == "Tensor" \
        and not arguments[0].type.is_list and arguments[1].type.kind == "Scalar" and not arguments[1].kwarg_only
    positional_defaults = None      # of the arguments after (self, other), when every one has a default
    if scalar_types and ufunc is not None:
        rest = [a for a in arguments[2:] if not a.kwarg_only]
        if all(a.has_default for a in rest):
            from .._dispatch.binding import _default_value
            positional_defaults = tuple(_default_value(a) for a in rest)
    return structured(group.functional, record.meta_for(group), compute, device_type=device_type,
                      elementwise=record.elementwise, ufunc=ufunc, defaults=defaults,
                      ufunc_unless=unless if ufunc is not None else None, positional_options=options,
                      scalar_types=scalar_types, positional_defaults=positional_defaults,
                      binary=[a.type.kind == "Tensor" and not a.type.is_list and not a.type.optional
                              for a in arguments if not a.kwarg_only] == [True, True])


# Positional argument kinds that are options of an operator (dims, flags), not numbers it computes with: a
# structured kernel caches calls by their values (a Scalar, e.g. a learning rate, may change every call)
_OPTION_KINDS = frozenset(("int", "SymInt", "bool", "str", "ScalarType"))


def _impl_group(lib: Library, group: Group, kernels: dict, key: str, wrap=None) -> None:
    for variant, name in (("functional", group.functional), ("out", group.out), ("inplace", group.inplace)):
        if name is not None:
            fn = kernels[variant]
            lib.impl(name, wrap(fn, name) if wrap else fn, key)


def _derivative_targets(record: Op) -> list[tuple[str, object, str]]:
    """``(overload, entry, functional overload)``: an entry keyed by a functional overload also covers its
    group's in-place overload, unless that one has an entry of its own."""
    out = []
    for group in record.groups:
        for name in (group.functional, group.inplace):
            if name is None:
                continue
            spec = record.derivatives.get(name)
            if spec is None and name == group.inplace and group.functional is not None:
                spec = record.derivatives.get(group.functional)
            if spec is not None:
                out.append((name, spec, group.functional or name))
    return out


def _register_derivatives(record: Op) -> list[str]:
    """The record's derivatives-table entries (their Autograd kernels follow from the table)."""
    from ..aten.derivatives import defderiv, forbid, node_name, nondiff
    names = []
    for name, spec, functional in _derivative_targets(record):
        op = f"{record.ns}::{name}"
        if spec == NONDIFF:
            nondiff(op)
        elif isinstance(spec, Forbid):
            forbid(spec.message, op)
        else:
            defderiv(op, save=spec.save, name=spec.name or node_name(f"{record.ns}::{functional}", 0),
                     pointwise=spec.pointwise, linear=spec.linear, jvp=spec.jvp, **spec.formulas)
        names.append(op)
    return names


def load() -> None:
    """Register Meta/composite kernels and derivatives of every record not loaded yet, and its backend
    kernels for every backend registered so far."""
    define()
    for record in list(_catalog().values()):
        if record.name in _loaded:
            continue
        _loaded.add(record.name)
        if record.meta is not None:
            meta = _lib(record.ns, "Meta")
            for group in record.groups:
                if record.meta_for(group) is not None:
                    _impl_group(meta, group, _structured_kernels(record, group, "meta", None), "Meta")
        for overload, by_key in record.kernels.items():
            for key, fn in by_key.items():
                if key != "Backend" and key not in _BACKEND_KEYS:
                    _lib(record.ns, key).impl(overload, _lazy(fn) if isinstance(fn, str) else fn, key)
        _register_derivatives(record)
    for device_type in list(_backends):
        _register_backend_kernels(device_type)


def _resolve(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _lazy(path: str):
    """A kernel named ``"module:function"`` (a record's sparse kernel living in another family file), imported on
    its first call: family files are read while ``Tensor`` is being created, before they can import each other."""
    found: list = []

    def kernel(*args, **kwargs):
        if not found:
            found.append(_resolve(path))
        return found[0](*args, **kwargs)
    kernel.__name__ = kernel.__qualname__ = path.rpartition(":")[2]
    return kernel


def _register_backend_kernels(device_type: str) -> None:
    key, wrap, _ = _backends[device_type]
    for record in list(_catalog().values()):
        if record.name not in _loaded or (record.name, device_type) in _backend_done:
            continue
        _backend_done.add((record.name, device_type))
        for overload, by_key in record.kernels.items():    # a backend's own kernel: registered as it is
            fn = by_key.get(key)
            if fn is not None:
                _lib(record.ns, key).impl(overload, _resolve(fn) if isinstance(fn, str) else fn, key)
        override = record.overrides.get(device_type)
        if not record.device and device_type != "cpu" and override is None:
            continue
        lib = _lib(record.ns, key)
        for group in record.groups:
            compute = _resolve(override) if override else record.compute_for(group)
            if compute is not None and record.meta_for(group) is not None:
                kernels = _structured_kernels(record, group, device_type, compute)
                _impl_group(lib, group, kernels, key, wrap if device_type != "cpu" else None)
        for overload, by_key in record.kernels.items():
            fn = by_key.get("Backend")
            if fn is not None and key not in by_key:
                lib.impl(overload, wrap(fn, overload) if wrap and device_type != "cpu" else fn, key)


def register_backend(device_type: str, dispatch_key: str, wrap=None, refresh=None) -> None:
    """Register every record's compute (and ``"Backend"`` kernels) for a backend; ``wrap(fn, overload)``
    adapts a kernel to the backend (e.g. the device's current device and stream). Records whose compute is
    not ``device``-capable are skipped on backends other than the CPU unless they give an override.
    ``refresh()``, if given, is the backend's own registration of operators defined later; ``finish`` calls it."""
    _backends[device_type] = (dispatch_key, wrap, refresh)
    _register_backend_kernels(device_type)


def finish() -> None:
    """Bring every derived dispatch entry up to date with every operator defined so far, whichever module
    defined it and in whatever order: the records' kernels and derivatives (``load``), the Autograd kernels of
    the derivatives table and the Autocast kernels of the autocast policy. Each step skips what is done, so
    ``import openreg`` calls this last and the order of its imports does not matter."""
    load()
    for refresh in [r for _, _, r in _backends.values() if r is not None]:
        refresh()
    from ..amp import kernels as autocast_kernels
    from ..autograd import _registration as autograd_kernels
    autograd_kernels.register_all()
    autocast_kernels.register_all()


def declared_overloads() -> dict[str, Op]:
    """``{"aten::hypot.out": record, ...}``: every overload a record declares."""
    return {f"{r.ns}::{overload_name(s)}": r for r in _catalog().values() for s, _ in r.schemas}


__all__ = ["declared_overloads", "define", "finish", "functions", "load", "register_backend", "tensor_methods"]
