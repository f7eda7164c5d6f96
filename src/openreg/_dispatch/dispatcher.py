"""The dispatcher: operator definitions, per-operator kernel tables, backend fallbacks and key resolution.

Every registration returns a handle whose ``remove()`` undoes exactly that registration, restoring what it
had shadowed, so libraries (and tests) can be torn down in any order.

>>> from openreg._dispatch import dispatcher
>>> from openreg._dispatch.keys import DispatchKey
>>> h = dispatcher.define("demo_ns::twice(Tensor x) -> Tensor")
>>> k = dispatcher.register_kernel("demo_ns::twice", DispatchKey.CPU, lambda x: x + x)
>>> dispatcher.has_kernel("demo_ns::twice", DispatchKey.CPU)
True
>>> k.remove(); h.remove()
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .keys import (
    _NOT_NEEDED,
    ALIAS_KEYS,
    AUTOGRAD_KEYS_MASK,
    BACKEND_KEYS,
    BACKEND_OF_AUTOGRAD,
    RUNTIME_KEYS,
    SPARSE_KEYS,
    DispatchKey,
    keys_of,
    with_autograd,
)
from .schema import FunctionSchema, parse_schema

K = DispatchKey


def fallthrough_kernel(*args, **kwargs):
    """A kernel that is never called: registering it makes the dispatcher skip to the next key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


@dataclass(eq=False)
class KernelEntry:
    """One registration of a kernel at a key (of an operator, or as a backend fallback)."""

    fn: Callable
    with_keyset: bool = False
    boxed: bool = False        # a backend fallback: called as fn(op, keyset, args, kwargs)
    debug: str = ""            # where it was registered, for error messages and table dumps

    @property
    def is_fallthrough(self) -> bool:
        return self.fn is fallthrough_kernel


@dataclass(eq=False)
class OperatorEntry:
    """Everything the dispatcher knows about one operator overload (``ns::name.overload``)."""

    qualname: str                      # "aten::abs.out" (no ".overload" for the default overload)
    schema: FunctionSchema | None = None
    define_site: str = ""
    tags: tuple = ()
    alias_analysis: str = ""
    kernels: dict = field(default_factory=dict)     # DispatchKey -> [KernelEntry], last one active
    cache: dict = field(default_factory=dict)        # key set -> resolved (fn, with_keyset, key)
    derived: dict = field(default_factory=dict)      # values computed from the schema (autograd's fallback
                                                     # kernel, ...); cleared whenever the definition changes
    fake_impls: list = field(default_factory=list)   # [(fn, site)], last one active
    overload: Any = None               # the OpOverload object, created lazily by openreg.ops

    def active(self, key: DispatchKey) -> KernelEntry | None:
        stack = self.kernels.get(key)
        return stack[-1] if stack else None


_lock = threading.RLock()
_operators: dict[str, OperatorEntry] = {}
_fallbacks: dict[DispatchKey, list[KernelEntry]] = {}
_removal_listeners: list[Callable[[str], None]] = []   # told of every operator name whose definition is undone


class RegistrationHandle:
    """Undo token for a registration; ``remove()`` is idempotent."""

    __slots__ = ("_undo", "description")

    def __init__(self, undo: Callable[[], None], description: str):
        self._undo = undo
        self.description = description

    def remove(self) -> None:
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()

    def __repr__(self) -> str:
        return f"RegistrationHandle({self.description})"


def _invalidate(entry: OperatorEntry | None = None) -> None:
    if entry is not None:
        entry.cache.clear()
        return
    for op in _operators.values():
        op.cache.clear()


def qualified_name(schema: FunctionSchema) -> str:
    return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name


def _entry(qualname: str) -> OperatorEntry:
    entry = _operators.get(qualname)
    if entry is None:
        entry = _operators[qualname] = OperatorEntry(qualname)
    return entry


def find(qualname: str) -> OperatorEntry | None:
    """The entry of a defined operator (``"aten::abs"``, ``"aten::abs.out"``), or None."""
    entry = _operators.get(qualname)
    return entry if entry is not None and entry.schema is not None else None


def defined_names() -> list[str]:
    return [name for name, e in _operators.items() if e.schema is not None]


# "ns::name" -> overload names currently defined ("" for the default overload); kept in step with define().
_overloads_by_base: dict[str, dict[str, None]] = {}


def overload_names(base: str) -> list[str]:
    """Defined overload names of ``ns::name`` (``"default"`` for the unnamed one), in definition order."""
    names = _overloads_by_base.get(base)
    # list(dict) copies in one step: other threads may define or remove overloads meanwhile.
    return [] if not names else ["default" if n == "" else n for n in list(names)]


def _base_and_overload(qualname: str) -> tuple[str, str]:
    base, _, overload = qualname.partition(".")
    return base, overload


def define(schema_text: str | FunctionSchema, *, site: str = "", tags=(), alias_analysis: str = "") \
        -> RegistrationHandle:
    """Define an operator from its schema. Redefining an existing name+overload raises RuntimeError."""
    schema = schema_text if isinstance(schema_text, FunctionSchema) else parse_schema(schema_text)
    if not schema.namespace:
        raise RuntimeError(f"Operator schema '{schema}' needs a namespace, e.g. 'mylib::{schema}'")
    name = qualified_name(schema)
    with _lock:
        entry = _entry(name)
        if entry.schema is not None:
            raise RuntimeError(
                f"Tried to register an operator ({schema}) with the same name and overload name multiple "
                f"times. Each overload's schema should only be registered with a single call to def(). "
                f"Duplicate registration: {site or 'unknown'}. Original registration: "
                f"{entry.define_site or 'unknown'}")
        entry.schema, entry.define_site, entry.tags, entry.alias_analysis = schema, site, tuple(tags), \
            alias_analysis
        entry.derived.clear()
        base, overload = _base_and_overload(name)
        _overloads_by_base.setdefault(base, {})[overload] = None
        _invalidate(entry)

        def undo():
            with _lock:
                entry.schema, entry.define_site, entry.tags = None, "", ()
                entry.overload = None
                entry.derived.clear()
                names = _overloads_by_base.get(base, {})
                names.pop(overload, None)
                if not names:
                    _overloads_by_base.pop(base, None)
                _invalidate(entry)
                _drop_if_empty(entry)
            for listener in _removal_listeners:
                listener(name)
    return RegistrationHandle(undo, f"def {name}")


def _drop_if_empty(entry: OperatorEntry) -> None:
    if entry.schema is None and not any(entry.kernels.values()) and not entry.fake_impls:
        _operators.pop(entry.qualname, None)


def register_kernel(qualname: str, key: DispatchKey, fn: Callable, *, with_keyset: bool = False,
                    site: str = "") -> RegistrationHandle:
    """Register ``fn`` for operator ``qualname`` at ``key`` (runtime or alias key); shadows earlier ones."""
    key = DispatchKey(key)
    if not callable(fn):
        raise TypeError(f"Expected a callable kernel for {qualname} at {key.name}, got {type(fn).__name__}")
    # A function marked ``_openreg_boxed`` is a boxed kernel: called as fn(op, keyset, args, kwargs).
    kernel = KernelEntry(fn, with_keyset=with_keyset, boxed=getattr(fn, "_openreg_boxed", False) is True,
                         debug=site)
    with _lock:
        entry = _entry(qualname)
        entry.kernels.setdefault(key, []).append(kernel)
        _invalidate(entry)

    def undo():
        with _lock:
            stack = entry.kernels.get(key, [])
            if kernel in stack:
                stack.remove(kernel)
            _invalidate(entry)
            _drop_if_empty(entry)
    return RegistrationHandle(undo, f"impl {qualname} @ {key.name}")


def register_fallback(key: DispatchKey, fn: Callable, *, with_keyset: bool = False, site: str = "") \
        -> RegistrationHandle:
    """A boxed backend fallback for every operator at ``key``: ``fn(op, keyset, args, kwargs)``.

    ``fallthrough_kernel`` registers a fallthrough instead (skip to the next key).
    """
    key = DispatchKey(key)
    kernel = KernelEntry(fn, with_keyset=with_keyset, boxed=fn is not fallthrough_kernel, debug=site)
    with _lock:
        _fallbacks.setdefault(key, []).append(kernel)
        _invalidate()

    def undo():
        with _lock:
            stack = _fallbacks.get(key, [])
            if kernel in stack:
                stack.remove(kernel)
            _invalidate()
    return RegistrationHandle(undo, f"fallback @ {key.name}")


def register_fake(qualname: str, fn: Callable, *, site: str = "") -> RegistrationHandle:
    """Record a fake (shape-only) implementation; ``openreg.library`` decides how it is served."""
    item = (fn, site)
    with _lock:
        entry = _entry(qualname)
        entry.fake_impls.append(item)
        _invalidate(entry)

    def undo():
        with _lock:
            if item in entry.fake_impls:
                entry.fake_impls.remove(item)
            _invalidate(entry)
            _drop_if_empty(entry)
    return RegistrationHandle(undo, f"fake {qualname}")


def fallback_for(key: DispatchKey) -> KernelEntry | None:
    stack = _fallbacks.get(key)
    return stack[-1] if stack else None


def has_kernel(qualname: str, key: DispatchKey) -> bool:
    """Whether a kernel is registered for ``qualname`` directly at ``key`` (runtime or alias)."""
    entry = _operators.get(qualname)
    return entry is not None and entry.active(DispatchKey(key)) is not None


def _computed_entry(entry: OperatorEntry, key: DispatchKey) -> tuple[KernelEntry | None, str]:
    """PyTorch's computeDispatchTableEntry: which kernel serves ``key``, and why."""
    direct = entry.active(key)
    if direct is not None:
        return direct, "kernel"
    if key in BACKEND_KEYS:
        for alias in (K.CompositeExplicitAutogradNonFunctional, K.CompositeExplicitAutograd,
                      K.CompositeImplicitAutograd):
            k = entry.active(alias)
            if k is not None:
                return k, alias.name
    if key in BACKEND_OF_AUTOGRAD or key == K.AutogradOther:
        implicit = entry.active(K.CompositeImplicitAutograd)
        if implicit is not None:
            backend = BACKEND_OF_AUTOGRAD.get(key)
            has_backend = (backend is not None and entry.active(backend) is not None) or \
                entry.active(K.CompositeExplicitAutograd) is not None or \
                entry.active(K.CompositeExplicitAutogradNonFunctional) is not None
            if not has_backend:
                return implicit, "CompositeImplicitAutograd"
        autograd = entry.active(K.Autograd)
        if autograd is not None:
            return autograd, "Autograd"
    if key in SPARSE_KEYS:
        # A sparse kernel is registered at its Sparse key; of the composites only CompositeImplicitAutograd (a
        # decomposition into other operators, which meet the sparse kernels in turn) serves it. openreg's
        # CompositeExplicitAutograd kernels build strided results, so they would turn a sparse call into a silent
        # dense one: such an operator raises "Could not run ... 'SparseCPU' backend" instead.
        implicit = entry.active(K.CompositeImplicitAutograd)
        if implicit is not None:
            return implicit, "CompositeImplicitAutograd"
    catch_all = entry.active(K.CatchAll)
    if catch_all is not None and key in BACKEND_KEYS:
        return catch_all, "CatchAll"
    fb = fallback_for(key)
    if fb is not None:
        return fb, "fallback"
    return None, "missing"


def resolve(entry: OperatorEntry, ks: int):
    """Resolve (and cache) the kernel for key set ``ks``: ``(callable, with_keyset, key)``.

    Fallthrough entries are skipped; a boxed fallback is adapted to the unboxed calling convention.
    """
    hit = entry.cache.get(ks)
    if hit is not None:
        return hit
    with _lock:
        # AutogradNotNeeded without autograd keys: every tensor is plain. Resolve as PyTorch would (its tensors
        # all carry the autograd key) but pass over the autograd-key kernels that are no-ops on plain tensors.
        lean = bool(ks & _NOT_NEEDED) and not ks & AUTOGRAD_KEYS_MASK
        walk = with_autograd(ks) if lean else ks
        remaining = walk
        while remaining:
            key = DispatchKey(remaining.bit_length() - 1)
            kernel, _why = _computed_entry(entry, key)
            if lean and kernel is not None and walk_past_when_lean(key, kernel):
                kernel = None
            elif kernel is not None and not kernel.is_fallthrough:
                if kernel.boxed:
                    result = (_boxed_adapter(entry, kernel), True, key)
                else:
                    fn = _unwrapped(kernel.fn)
                    # with_keyset False; None when the kernel takes keyword-only arguments at their defaults
                    # omitted (binding.omits_defaults)
                    result = (fn, kernel.with_keyset or (None if _omits_defaults(entry.schema, fn) else False),
                              key)
                if lean and result[1] and not _reads_same(result[0], walk, ks):
                    # a kernel taking the key set sees the one PyTorch would pass
                    result = (_with_keyset(result[0], walk), True, key)
                entry.cache[ks] = result
                return result
            if kernel is None and (key in BACKEND_KEYS or key in SPARSE_KEYS):
                raise_missing(entry, key)
            remaining &= ~(1 << key)
        raise_missing(entry, None)


def _omits_defaults(schema, fn) -> bool:
    from .binding import omits_defaults
    return schema is not None and omits_defaults(schema, fn)


def _unwrapped(fn):
    """The kernel a call resolves to: a backend's wrapper that says it passes every call straight through for
    now (``fn._openreg_passthrough()`` true: e.g. the device's wrapper on a driver with no device or stream to
    enter) resolves to the kernel it wraps, ``fn.__wrapped__``. Whoever changes that answer clears the resolved
    kernels (``invalidate_all``)."""
    passthrough = getattr(fn, "_openreg_passthrough", None)
    return fn.__wrapped__ if passthrough is not None and passthrough() else fn


def invalidate_all() -> None:
    """Drop every operator's resolved kernels (they are resolved again at their next call)."""
    with _lock:
        _invalidate()


def walk_past_when_lean(key: DispatchKey, kernel: KernelEntry) -> bool:
    """Whether a kernel found at an autograd key does nothing for plain tensors, so that a call on them can go
    to the next key: fallthroughs and kernels marked ``_openreg_lean`` (openreg's generated autograd kernels and
    their fallback, which only redispatch below autograd for such tensors). A composite found there still runs
    there, as in PyTorch: the layers below (ADInplaceOrView's version bump of an ``out=``) see only its parts."""
    return bool((1 << key) & AUTOGRAD_KEYS_MASK) and (
        kernel.is_fallthrough or getattr(kernel.fn, "_openreg_lean", False))


def _reads_same(fn, walk: int, ks: int) -> bool:
    """Whether a kernel taking the key set reads the same keys in ``walk`` (with the autograd keys PyTorch's
    tensors carry) as in ``ks``: it says it reads only ``ks & fn._openreg_keyset_mask`` (the ADInplaceOrView
    kernels: the keys below theirs) and those bits agree."""
    mask = getattr(fn, "_openreg_keyset_mask", None)
    return mask is not None and walk & mask == ks & mask


def _with_keyset(fn, ks: int):
    def call(_ks, *args, **kwargs):
        return fn(ks, *args, **kwargs)
    return call


def _boxed_adapter(entry: OperatorEntry, kernel: KernelEntry):
    def call_boxed(ks, *args, **kwargs):
        op = entry.overload
        if op is None:    # called through an OpOverload made before the op was (re)defined
            op = overload_of(entry)
        return kernel.fn(op, ks, args, kwargs)
    return call_boxed


def overload_of(entry: OperatorEntry):
    """The OpOverload of a defined operator (made on first use); NotImplementedError once it is undefined."""
    op = entry.overload
    if op is None:
        if entry.schema is None:
            raise_missing(entry, None)
        from .ops import lookup_overload
        op = lookup_overload(entry.qualname)
    return op


def backends_with_kernels(entry: OperatorEntry) -> list[str]:
    """Names of the keys that have a kernel for this operator (for error messages)."""
    names = [k.name for k in RUNTIME_KEYS if entry.active(k) is not None]
    names += [k.name for k in ALIAS_KEYS if entry.active(k) is not None]
    return names


def raise_missing(entry: OperatorEntry, key: DispatchKey | None):
    from ..devices import privateuse1_name
    backend = "Undefined" if key is None else key.name
    if key == K.PrivateUse1:
        backend = f"PrivateUse1' ('{privateuse1_name()}"
    if entry.schema is None:
        raise NotImplementedError(f"Could not run '{entry.qualname}': the operator has kernels but no schema; "
                                  f"define it with openreg.library first.")
    have = backends_with_kernels(entry)
    raise NotImplementedError(
        f"Could not run '{entry.qualname}' with arguments from the '{backend}' backend. This could be because "
        f"the operator doesn't exist for this backend, or was omitted during the selective/custom build "
        f"process (if using custom build). '{entry.qualname}' is only available for these backends: "
        f"[{', '.join(have)}].")


def dump_table(qualname: str) -> str:
    """A text dump of an operator's registrations and computed table (equal before/after a failed call)."""
    entry = _operators.get(qualname)
    if entry is None:
        return f"{qualname}: <not registered>"
    lines = [f"name: {qualname}", f"schema: {entry.schema}", f"tags: {entry.tags}"]
    for key in list(RUNTIME_KEYS) + list(ALIAS_KEYS):
        stack = entry.kernels.get(key)
        if stack:
            lines.append(f"registered {key.name}: {[k.debug or id(k.fn) for k in stack]}")
    for key in RUNTIME_KEYS:
        kernel, why = _computed_entry(entry, key)
        lines.append(f"computed {key.name}: {why}" + ("" if kernel is None else f" {kernel.debug or id(kernel.fn)}"))
    lines.append(f"fake: {[s for _, s in entry.fake_impls]}")
    return "\n".join(lines)


__all__ = [
    "KernelEntry",
    "OperatorEntry",
    "RegistrationHandle",
    "define",
    "dump_table",
    "fallthrough_kernel",
    "find",
    "keys_of",
    "register_fake",
    "register_fallback",
    "register_kernel",
    "resolve",
]
