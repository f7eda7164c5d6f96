"""``openreg.ops``: operator namespaces, overload packets and overloads.

>>> import openreg
>>> op = openreg.ops.aten.abs.out
>>> op.name()
'aten::abs.out'
>>> str(op._schema)
'aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)'
"""
from __future__ import annotations

from . import dispatcher
from .binding import bind_arguments, build_call
from .tags import Tag


class OpOverload:
    """One overload of an operator; calling it dispatches on its tensor arguments."""

    __slots__ = ("__name__", "__qualname__", "__weakref__", "_call", "_entry", "_packet", "redispatch_fn")

    def __new__(cls, entry: dispatcher.OperatorEntry, packet: OpOverloadPacket):
        call, redispatch = build_call(entry, dispatcher.resolve, entry.qualname)
        # A subclass per overload lets the generated function be __call__ itself: a staticmethod, whose binding
        # is C code (no Python frame per call).
        sub = type(f"OpOverload[{entry.qualname}]", (cls,), {"__slots__": (), "__call__": staticmethod(call)})
        self = object.__new__(sub)
        self._entry = entry
        self._call = call
        self.redispatch_fn = redispatch
        self._packet = packet
        self.__name__ = entry.schema.overload_name or "default"
        self.__qualname__ = entry.qualname
        return self

    @property
    def _schema(self):
        return self._entry.schema

    @property
    def tags(self) -> tuple:
        return tuple(Tag(t) if not isinstance(t, Tag) else t for t in self._entry.tags)

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self._packet

    @property
    def _overloadname(self) -> str:
        return self._entry.schema.overload_name or "default"

    @property
    def namespace(self) -> str:
        return self._entry.schema.namespace

    def name(self) -> str:
        return self._entry.qualname

    def _operator(self, non_tensor, number=None):
        """This overload's call as a Python operator: ``non_tensor(self, other)`` answers for an ``other`` that
        is not a tensor (the Scalar overload, or ``NotImplemented``), without a wrapper frame around the call;
        ``number(self, other)``, if given, for a Python number ``other`` (tested first)."""
        return build_call(self._entry, dispatcher.resolve, self._entry.qualname, non_tensor, number)[0]

    def redispatch(self, keyset: int, *args, **kwargs):
        """Call the kernel for ``keyset`` directly (no thread-local keys), as a with_keyset kernel does."""
        return self.redispatch_fn(int(keyset), *args, **kwargs)

    def has_kernel_for_dispatch_key(self, key) -> bool:
        return dispatcher.has_kernel(self._entry.qualname, key)

    def __repr__(self) -> str:
        schema = self._entry.schema
        return f"{schema.namespace}.{schema.name.split('::')[-1]}.{self._overloadname}"

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self):
        return (lookup_overload, (self._entry.qualname,))


def lookup_overload(qualname: str) -> OpOverload:
    """The OpOverload of ``"ns::name.overload"`` (``"ns::name"`` for the default overload)."""
    name, _, overload = qualname.partition(".")
    ns, _, op = name.partition("::")
    packet = getattr(getattr(ops, ns), op)
    return getattr(packet, overload or "default")


_lookup_overload = lookup_overload   # the name pickles made before it was public refer to


class OpOverloadPacket:
    """All overloads of one operator name; ``packet.<overload>`` is an OpOverload."""

    def __init__(self, namespace: str, name: str):
        self._ns = namespace
        self._name = name
        self._qualified_op_name = f"{namespace}::{name}"
        self._overloads: dict[str, OpOverload] = {}
        self.__name__ = name

    def overloads(self) -> list[str]:
        return dispatcher.overload_names(self._qualified_op_name)

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        qual = self._qualified_op_name if overload == "default" else f"{self._qualified_op_name}.{overload}"
        entry = dispatcher.find(qual)
        if entry is None:
            raise AttributeError(f"The underlying op of '{self._ns}.{self._name}' has no overload name "
                                 f"'{overload}'")
        cached = self._overloads.get(overload)
        if cached is not None and cached._entry is entry and entry.overload is cached:
            return cached
        ov = OpOverload(entry, self)
        entry.overload = ov
        self._overloads[overload] = ov
        return ov

    def __call__(self, *args, **kwargs):
        names = self.overloads()
        if not names:
            raise RuntimeError(f"{self._qualified_op_name}: the operator has no overloads any more (its library "
                               f"was destroyed)")
        names.sort(key=lambda n: n != "default")
        errors = []
        for name in names:
            ov = getattr(self, name)
            try:
                _check_binds(ov._entry.schema, args, kwargs)
            except TypeError as e:
                errors.append(f"  {ov._entry.schema}: {e}")
                continue
            return ov(*args, **kwargs)
        raise TypeError(f"{self._qualified_op_name}() received an invalid combination of arguments. "
                        f"Tried:\n" + "\n".join(errors))

    @property
    def op(self):
        return self

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __reduce__(self):
        return (_lookup_packet, (self._ns, self._name))


def _lookup_packet(ns: str, name: str) -> OpOverloadPacket:
    return getattr(getattr(ops, ns), name)


def _check_binds(schema, args, kwargs) -> None:
    """Raise TypeError unless args/kwargs fit the schema (used to pick a packet's overload)."""
    values = bind_arguments(schema, args, kwargs, schema.name)
    for a in schema.arguments:
        v = values[a.name]
        if v is None and a.type.optional:
            continue
        is_tensor = hasattr(v, "_ks")
        if a.type.kind == "Tensor" and not a.type.is_list and not is_tensor:
            raise TypeError(f"'{a.name}' must be Tensor")
        if a.type.kind in ("Scalar", "int", "float", "bool", "SymInt") and not a.type.is_list and is_tensor:
            raise TypeError(f"'{a.name}' must be a number")


class _OpNamespace:
    """``openreg.ops.<ns>``: attribute access returns the OpOverloadPacket of a defined operator."""

    def __init__(self, name: str):
        self._name = name
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        packet = self._packets.get(op_name)
        if packet is None:
            base = f"{self._name}::{op_name}"
            if not dispatcher.overload_names(base):
                raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute '{op_name}'")
            packet = self._packets[op_name] = OpOverloadPacket(self._name, op_name)
        elif not packet.overloads():
            raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute '{op_name}'")
        return packet

    def __repr__(self) -> str:
        return f"<openreg.ops.{self._name}>"


class _Ops:
    """The root ``openreg.ops`` object; ``ops.<namespace>`` is created on first use."""

    def __init__(self):
        self._namespaces: dict[str, _OpNamespace] = {}

    def __getattr__(self, name: str) -> _OpNamespace:
        if name.startswith("__"):
            raise AttributeError(name)
        ns = self._namespaces.get(name)
        if ns is None:
            ns = self._namespaces[name] = _OpNamespace(name)
        return ns


ops = _Ops()

_lookups: dict = {}


def lookup(qualname: str) -> OpOverload:
    """The overload named ``"aten::add.Tensor"`` (``"aten::abs"`` for the default), looked up once and kept.

    >>> lookup("aten::add.Tensor") is lookup("aten::add.Tensor")
    True
    """
    ov = _lookups.get(qualname)
    if ov is None or ov._entry.schema is None:
        ov = _lookups[qualname] = _lookup_overload(qualname)
    return ov


class LazyOverloads:
    """``A.add__Tensor`` is ``ops.aten.add.Tensor``, ``A.add___Tensor`` is ``ops.aten.add_.Tensor`` and
    ``A.abs`` is ``ops.aten.abs.default`` (the text after the last double underscore is the overload name):
    the one way code refers to overloads, resolved on first use (through ``lookup``) and then an attribute.

    >>> A.abs is lookup("aten::abs")
    True
    """

    def __init__(self, ns: str) -> None:
        self._ns = ns

    def __getattr__(self, key: str) -> OpOverload:
        if key.startswith("__") and key.endswith("__"):
            raise AttributeError(key)
        op, sep, overload = key.rpartition("__")
        qualname = f"{self._ns}::{op}.{overload}" if sep else f"{self._ns}::{key}"
        value = lookup(qualname)
        setattr(self, key, value)
        return value


A = LazyOverloads("aten")


def _forget(qualname: str) -> None:
    """Drop the cached packet (and namespace) of an operator that is no longer defined, so that defining and
    destroying many operators does not grow ``ops``; objects users still hold keep working."""
    base, _, overload = qualname.partition(".")
    ns, _, name = base.partition("::")
    namespace = ops._namespaces.get(ns)
    _lookups.pop(qualname, None)
    packet = None if namespace is None else namespace._packets.get(name)
    if packet is None:
        return
    packet._overloads.pop(overload or "default", None)
    if not packet.overloads():
        namespace._packets.pop(name, None)
        if not namespace._packets:
            ops._namespaces.pop(ns, None)


dispatcher._removal_listeners.append(_forget)
