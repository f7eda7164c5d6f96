"""``openreg.library``: define operators and register kernels (the equivalent of ``torch.library``).

openreg's own operators and backends register through this same API.

>>> import openreg
>>> from openreg.library import Library
>>> lib = Library("demo_lib", "DEF")
>>> lib.define("twice(Tensor x) -> Tensor")
'twice'
>>> lib.impl("twice", lambda x: x * 2, "CPU")
>>> openreg.ops.demo_lib.twice(openreg.tensor([1.0, 2.0])).tolist()
[2.0, 4.0]
>>> lib._destroy()
"""
from __future__ import annotations

import sys
import traceback
import weakref

from ._dispatch import dispatcher
from ._dispatch.dispatcher import fallthrough_kernel
from ._dispatch.keys import DispatchKey
from ._dispatch.schema import parse_schema

__all__ = ["Library", "fallthrough_kernel", "define", "impl"]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEF_LIBRARIES: dict[str, str] = {}   # namespace -> registration site of its DEF library


def _caller_site(depth: int = 2) -> str:
    """``file:line`` of the first frame outside openreg's library code."""
    for frame in reversed(traceback.extract_stack()[:-depth]):
        if "openreg/library.py" not in frame.filename and "openreg/_library" not in frame.filename:
            return f"{frame.filename}:{frame.lineno}"
    return "unknown"


def dispatch_key_for(name: str) -> DispatchKey:
    """Map a device name or key name (``"cpu"``, ``"privateuseone"``, ``"default"``, ``"CPU"``) to a key."""
    from .devices import PRIVATEUSE1, privateuse1_name
    if isinstance(name, DispatchKey):
        return name
    lowered = name.lower() if isinstance(name, str) else name
    if lowered == "cpu":
        return DispatchKey.CPU
    if lowered == "meta":
        return DispatchKey.Meta
    if lowered in (PRIVATEUSE1, privateuse1_name()):
        return DispatchKey.PrivateUse1
    if lowered == "default" or name == "":
        return DispatchKey.CompositeExplicitAutograd
    if name == "AutogradPrivateUse1" or name == "Autograd" + privateuse1_name().capitalize():
        return DispatchKey.AutogradPrivateUse1
    try:
        return DispatchKey[name]
    except KeyError:
        raise ValueError(f"Unknown dispatch key or device type '{name}'") from None


class Library:
    """A handle for registering operators (``DEF``), kernels (``IMPL``) or both (``FRAGMENT``) of a namespace.

    Every registration is undone when the library is destroyed (``_destroy()`` or garbage collection).
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("prim",) and kind == "IMPL":
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._site = _caller_site()
        self._handles: list = []
        self._op_defs: set[str] = set()
        self._destroyed = False
        if kind == "DEF":
            previous = _DEF_LIBRARIES.get(ns)
            if previous is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all "
                    f"of your definitions in a single TORCH_LIBRARY block. If you were trying to specify "
                    f"implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated). If you "
                    f"really intended to define operators for a single namespace in a distributed way, you "
                    f"can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this. Previous registration of "
                    f"TORCH_LIBRARY was at {previous}; latest registration was at {self._site}")
            _DEF_LIBRARIES[ns] = self._site
        self._finalizer = weakref.finalize(self, _teardown, self._handles, ns if kind == "DEF" else None)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _check_alive(self) -> None:
        if self._destroyed:
            raise RuntimeError(f"Library {self.ns} ({self.kind}) has been destroyed and can't be used")

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Define an operator in this namespace; returns its name (``"op"`` or ``"op.overload"``)."""
        self._check_alive()
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on an IMPL library; use DEF or FRAGMENT")
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        parsed = parse_schema(schema)
        if parsed.namespace and parsed.namespace != self.ns:
            raise ValueError(f"define(): schema namespace '{parsed.namespace}' does not match the library "
                             f"namespace '{self.ns}'")
        if not parsed.namespace:
            parsed = parse_schema(f"{self.ns}::{schema.strip()}")
        from ._dispatch.tags import Tag
        if isinstance(tags, Tag):
            tags = (tags,)
        handle = dispatcher.define(parsed, site=_caller_site(), tags=tuple(tags), alias_analysis=alias_analysis)
        self._handles.append(handle)
        name = parsed.name.split("::")[-1]
        full = f"{name}.{parsed.overload_name}" if parsed.overload_name else name
        self._op_defs.add(f"{self.ns}::{full}")
        return full

    def _qualname(self, op_name) -> str:
        from ._dispatch.ops import OpOverload, OpOverloadPacket
        if isinstance(op_name, OpOverload):
            return op_name.name()
        if isinstance(op_name, OpOverloadPacket):
            return op_name._qualified_op_name
        if not isinstance(op_name, str):
            raise TypeError(f"impl should be passed either a name or an OpOverload object as the first "
                            f"argument, got {type(op_name).__name__}")
        if "::" in op_name:
            ns, _, rest = op_name.partition("::")
            if ns != self.ns:
                raise ValueError(f"Explicitly provided namespace ({ns}) in operator name does not match the "
                                 f"namespace of the enclosing library ({self.ns})")
            op_name = rest
        name, _, overload = op_name.partition(".")
        if overload == "default":
            overload = ""
        return f"{self.ns}::{name}" + (f".{overload}" if overload else "")

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = True) -> None:
        """Register ``fn`` as the kernel of ``op_name`` at a dispatch key or device name."""
        self._check_alive()
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        key_name = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        key = dispatch_key_for(key_name)
        if self.dispatch_key and dispatch_key and dispatch_key_for(self.dispatch_key) != key:
            raise RuntimeError(f"Explicitly provided dispatch key ({dispatch_key}) is inconsistent with the "
                               f"dispatch key of the enclosing library ({self.dispatch_key})")
        qualname = self._qualname(op_name)
        if dispatcher.has_kernel(qualname, key) and not allow_override:
            raise RuntimeError(f"This is not allowed since there's already a kernel registered from python "
                               f"overriding {qualname}'s behavior for {key.name} dispatch key and {self.ns} "
                               f"namespace.")
        handle = dispatcher.register_kernel(qualname, key, fn, with_keyset=with_keyset, site=_caller_site())
        self._handles.append(handle)

    def fallback(self, fn, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """Register a boxed fallback ``fn(op, keyset, args, kwargs)`` for every operator at a key."""
        self._check_alive()
        if self.ns != "_":
            raise ValueError(f"fallback can only be registered using library fragment on the global namespace "
                             f"\"_\" but it is {self.ns}")
        key = dispatch_key_for(dispatch_key or self.dispatch_key)
        self._handles.append(dispatcher.register_fallback(key, fn, with_keyset=with_keyset, site=_caller_site()))

    def _destroy(self) -> None:
        if self._destroyed:
            return
        self._destroyed = True
        self._finalizer()


def _teardown(handles: list, def_ns: str | None) -> None:
    while handles:
        handles.pop().remove()
    if def_ns is not None:
        _DEF_LIBRARIES.pop(def_ns, None)


_global_libs: list[Library] = []


def define(qualname: str, schema: str, *, lib: Library | None = None, tags=()) -> None:
    """Define ``ns::name`` with ``schema`` (``"(Tensor x) -> Tensor"``) in a global or given library."""
    if "::" not in qualname:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator name should look "
                         f"something like ns::foo")
    ns, name = qualname.split("::", 1)
    if not schema.strip().startswith("("):
        raise ValueError(f"define(qualname, schema): expected schema to look like e.g. \"(Tensor x) -> Tensor\" "
                         f"but got {schema}")
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _global_libs.append(lib)
    lib.define(name + schema, tags=tags)


def impl(qualname: str, types, func=None, *, lib: Library | None = None):
    """Register ``func`` for ``qualname`` on device type(s) ``types``; usable as a decorator."""
    def register(fn):
        ns = qualname.split("::", 1)[0]
        target = lib
        if target is None:
            target = Library(ns, "FRAGMENT")
            _global_libs.append(target)
        for t in ([types] if isinstance(types, str) else list(types)):
            target.impl(qualname.split("::", 1)[1], fn, t)
        return fn
    if func is None:
        return register
    register(func)
    return None


def _module_cleanup():
    _global_libs.clear()


sys.modules.setdefault("openreg.library", sys.modules[__name__])
