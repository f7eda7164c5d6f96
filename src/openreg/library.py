"""``openreg.library``: define operators and register kernels (the equivalent of ``torch.library``).

openreg's own operators and backends register through this same API (``openreg/aten``, ``backends/cpu``).

>>> import openreg
>>> from openreg.library import Library
>>> lib = Library("demo_lib", "DEF")
>>> lib.define("twice(Tensor x) -> Tensor")
'twice'
>>> lib.impl("twice", lambda x: openreg.ops.aten.add.Tensor(x, x), "cpu")
>>> openreg.ops.demo_lib.twice(openreg.tensor([1.0, 2.0])).tolist()
[2.0, 4.0]
>>> lib._destroy()
"""
from __future__ import annotations

import contextlib
import re
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ._dispatch import backend_select, dispatcher, inplace_or_view
from ._dispatch.dispatcher import fallthrough_kernel
from ._dispatch.keys import DispatchKey
from ._dispatch.schema import parse_schema
from ._dispatch.tags import Tag
from ._library import utils as _utils
from ._library.autograd import Info as _AutogradInfo
from ._library.autograd import make_autograd_impl as _make_autograd_impl
from ._library.custom_ops import CustomOpDef, _maybe_get_opdef, custom_op
from ._library.fake_impl import FakeImplCtx, register_fake_impl
from ._library.fake_impl import global_ctx_getter as _ctx_getter
from ._library.infer_schema import infer_schema
from ._library.opcheck import OpCheckError, opcheck

__all__ = [
    "CustomOpDef",
    "Library",
    "OpCheckError",
    "custom_op",
    "define",
    "fallthrough_kernel",
    "get_ctx",
    "impl",
    "impl_abstract",
    "infer_schema",
    "opcheck",
    "register_autocast",
    "register_autograd",
    "register_fake",
    "register_kernel",
]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_RESERVED_NAMESPACES = ("prim",)
_DEF_LIBRARIES: dict[str, str] = {}   # namespace -> registration site (file:line) of its DEF library
_ALIAS_ANALYSIS = ("", "FROM_SCHEMA", "CONSERVATIVE")


def dispatch_key_for(name) -> DispatchKey:
    """Map a device name or dispatch key name to a key.

    ``"cpu"``, ``"meta"``, the PrivateUse1 name (``"privateuseone"`` or its renamed name), ``"default"``
    (CompositeExplicitAutograd), ``"Autograd<Name>"`` and every ``DispatchKey`` name are accepted.

    >>> dispatch_key_for("cpu").name, dispatch_key_for("default").name, dispatch_key_for("AutogradCPU").name
    ('CPU', 'CompositeExplicitAutograd', 'AutogradCPU')
    """
    from .devices import PRIVATEUSE1, privateuse1_name
    if isinstance(name, DispatchKey):
        return name
    if not isinstance(name, str):
        raise TypeError(f"Expected a dispatch key or device type name (str), got {type(name).__name__}")
    custom = privateuse1_name()
    if name in DispatchKey.__members__:
        return DispatchKey[name]
    lowered = name.lower()
    if lowered == "cpu":
        return DispatchKey.CPU
    if lowered == "meta":
        return DispatchKey.Meta
    if lowered in (PRIVATEUSE1, custom.lower()):
        return DispatchKey.PrivateUse1
    if lowered == "default":
        return DispatchKey.CompositeExplicitAutograd
    if name in ("Autograd" + custom.capitalize(), "Autograd" + custom):
        return DispatchKey.AutogradPrivateUse1
    raise RuntimeError(f"Expected one of cpu, meta, {custom}, default or a dispatch key name "
                       f"({', '.join(DispatchKey.__members__)}) but got '{name}'")


class Library:
    """A handle for registering operators (``DEF``), kernels (``IMPL``) or both (``FRAGMENT``) of a namespace.

    Every registration is undone, restoring what it shadowed, when the library is destroyed: explicitly
    (``_destroy()``), by garbage collection, or on leaving ``_scoped_library``.

    >>> lib = Library("lib_demo", "FRAGMENT")
    >>> lib.define("f(Tensor x) -> Tensor")
    'f'
    >>> lib._destroy()
    >>> lib.define("g(Tensor x) -> Tensor")
    Traceback (most recent call last):
    ...
    RuntimeError: Library lib_demo (FRAGMENT) has been destroyed and can't be used anymore
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if not isinstance(ns, str) or not ns:
            raise ValueError(f"Library(ns, ...): expected a non-empty namespace string, got {ns!r}")
        if ns in _RESERVED_NAMESPACES and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        if dispatch_key:
            dispatch_key_for(dispatch_key)      # validate before recording anything
        site = _utils.caller_site()
        if kind == "DEF":
            previous = _DEF_LIBRARIES.get(ns)
            if previous is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of "
                    f"your definitions in a single TORCH_LIBRARY block. If you were trying to specify "
                    f"implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated). If you "
                    f"really intended to define operators for a single namespace in a distributed way, you can "
                    f"use TORCH_LIBRARY_FRAGMENT to explicitly indicate this. Previous registration of "
                    f"TORCH_LIBRARY was registered at {previous}; latest registration was registered at {site}")
            _DEF_LIBRARIES[ns] = site
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._site = site
        self._handles: list = []
        self._op_defs: set[str] = set()
        self._destroyed = False
        self._finalizer = weakref.finalize(self, _teardown, self._handles, ns if kind == "DEF" else None, site)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _check_alive(self) -> None:
        if self._destroyed:
            raise RuntimeError(f"Library {self.ns} ({self.kind}) has been destroyed and can't be used anymore")

    # -- definitions ---------------------------------------------------------------------------------
    def define(self, schema: str, alias_analysis: str = "", *, tags: Tag | Sequence[Tag] = ()) -> str:
        """Define an operator (or a new overload of one) in this namespace; returns its name (as PyTorch, without
        the overload name).

        >>> lib = Library("define_demo", "FRAGMENT")
        >>> lib.define("scale(Tensor x, float s=2.0) -> Tensor", tags=Tag.pointwise)
        'scale'
        >>> lib.define("scale.int(Tensor x, int s) -> Tensor")
        'scale'
        >>> import openreg
        >>> sorted(openreg.ops.define_demo.scale.overloads()), openreg.ops.define_demo.scale.default.tags
        (['default', 'int'], (openreg.Tag.pointwise,))
        >>> lib._destroy()
        """
        self._check_alive()
        if self.kind == "IMPL":
            raise RuntimeError("Cannot define an operator inside of a TORCH_LIBRARY_IMPL block. All def()s "
                               "should be placed in the (unique) TORCH_LIBRARY block for their namespace.")
        if alias_analysis not in _ALIAS_ANALYSIS:
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        if isinstance(tags, Tag):
            tags = (tags,)
        tags = tuple(tags)
        for t in tags:
            if not isinstance(t, Tag):
                raise TypeError(f"define(): tags must be openreg.Tag members, got {t!r}")
        if not isinstance(schema, str):
            raise TypeError(f"define(): expected the schema to be a str, got {type(schema).__name__}")
        parsed = parse_schema(schema)
        if parsed.namespace and parsed.namespace != self.ns:
            raise RuntimeError(f"Explicitly provided namespace ({parsed.namespace}) in schema string does not "
                               f"match namespace of enclosing TORCH_LIBRARY block ({self.ns}).")
        if not parsed.namespace:
            parsed = parse_schema(f"{self.ns}::{schema.strip()}")
        qualname = dispatcher.qualified_name(parsed)
        handles = [dispatcher.define(parsed, site=_utils.caller_site(), tags=tags, alias_analysis=alias_analysis)]
        try:
            for register in (inplace_or_view.register_for, backend_select.register_for):
                h = register(qualname)
                if h is not None:
                    handles.append(h)
        except BaseException:
            for h in reversed(handles):
                h.remove()
            raise
        self._handles.extend(handles)
        self._op_defs.add(qualname)
        return parsed.name.split("::", 1)[-1]

    # -- kernels -------------------------------------------------------------------------------------
    def _qualname(self, op_name) -> str:
        from ._dispatch.ops import OpOverload, OpOverloadPacket
        if isinstance(op_name, (OpOverload, OpOverloadPacket)):
            qualname = op_name.name() if isinstance(op_name, OpOverload) else op_name._qualified_op_name
            ns = qualname.split("::", 1)[0]
        elif isinstance(op_name, str):
            ns, sep, rest = op_name.partition("::")
            if not sep:
                ns, rest = self.ns, op_name
            name, _, overload = rest.partition(".")
            if not name:
                raise RuntimeError(f"impl(): invalid operator name '{op_name}'")
            qualname = f"{ns}::{name}" + (f".{overload}" if overload and overload != "default" else "")
        else:
            raise RuntimeError("impl should be passed either a name or an OpOverload object as the first argument")  # noqa: TRY004
        if ns != self.ns:
            raise RuntimeError(f"Explicitly provided namespace ({ns}) in operator name does not match the "
                               f"namespace of the enclosing TORCH_LIBRARY_IMPL block ({self.ns}). Please "
                               f"create a Library for namespace {ns} to register kernels for {qualname}.")
        return qualname

    def _resolve_key(self, dispatch_key) -> DispatchKey:
        if dispatch_key in ("", None):
            return dispatch_key_for(self.dispatch_key) if self.dispatch_key else DispatchKey.CompositeImplicitAutograd
        key = dispatch_key_for(dispatch_key)
        if self.dispatch_key and dispatch_key_for(self.dispatch_key) != key:
            raise RuntimeError(f"Explicitly provided dispatch key ({dispatch_key}) is inconsistent with the "
                               f"dispatch key of the enclosing TORCH_LIBRARY_IMPL block ({self.dispatch_key}). "
                               f"Please declare a separate TORCH_LIBRARY_IMPL block for this dispatch key and "
                               f"move your impl() there.")
        return key

    def impl(self, op_name, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = True) -> None:
        """Register ``fn`` as the kernel of ``op_name`` at a dispatch key or device name.

        ``with_keyset=True`` passes the dispatch key set first, for ``op.redispatch(keyset & mask, ...)``.
        Overriding an existing kernel warns; with ``allow_override=False`` it raises instead.

        >>> import openreg
        >>> lib = Library("impl_demo", "FRAGMENT")
        >>> lib.define("neg2(Tensor x) -> Tensor")
        'neg2'
        >>> lib.impl("neg2", lambda x: openreg.ops.aten.add.Tensor(x, x, alpha=-2), "cpu")
        >>> openreg.ops.impl_demo.neg2(openreg.tensor([1.0])).tolist()
        [-1.0]
        >>> lib._destroy()
        """
        self._check_alive()
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        qualname = self._qualname(op_name)
        key = self._resolve_key(dispatch_key)
        name = qualname.split("::", 1)[1]
        site = _utils.caller_site()
        # Checks and registration are one step: another thread may register or remove kernels meanwhile.
        with dispatcher._lock:
            previous = dispatcher._operators.get(qualname)
            previous = previous.active(key) if previous is not None else None
            if previous is not None and not allow_override:
                raise RuntimeError(f"This is not allowed since there's already a kernel registered from python "
                                   f"overriding {name}'s behavior for {key.name} dispatch key and {self.ns} "
                                   f"namespace.")
            if key == DispatchKey.Meta and dispatcher.has_kernel(qualname, DispatchKey.CompositeImplicitAutograd):
                raise RuntimeError(f"We should not register a meta kernel directly to the operator '{name}', "
                                   f"because it has a CompositeImplicitAutograd kernel in core. Instead we should "
                                   f"let the operator decompose, and ensure that we have meta kernels for the base "
                                   f"ops that it decomposes into.")
            if previous is not None:
                warnings.warn(f"Overriding a previously registered kernel for the same operator and the same "
                              f"dispatch key\n  operator: {qualname}\n  dispatch key: {key.name}\n  previous "
                              f"kernel: {previous.debug or 'unknown'}\n       new kernel: {site}", UserWarning,
                              stacklevel=2)
            self._register_internal(qualname, fn, key, site, with_keyset=with_keyset)

    def _register_internal(self, qualname: str, fn: Callable, key: DispatchKey, site: str,
                           with_keyset: bool = False) -> None:
        """Register without the user-facing checks (fake impls, autograd and custom-op kernels)."""
        self._check_alive()
        self._handles.append(dispatcher.register_kernel(qualname, key, fn, with_keyset=with_keyset, site=site))

    def _register_fake(self, op_name: str, fn: Callable, _stacklevel: int = 1, *,
                       allow_override: bool = True) -> None:
        """Register ``fn`` as the fake impl of ``op_name`` (an op of this namespace), owned by this library."""
        self._check_alive()
        register_fake_impl(self, self._qualname(op_name), fn, _utils.caller_site(), allow_override=allow_override)

    def fallback(self, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """Register ``fn`` for every operator at ``dispatch_key`` (only in the global namespace ``"_"``).

        ``fn`` is called as ``fn(op, *args, **kwargs)`` (``fn(op, keyset, *args, **kwargs)`` with
        ``with_keyset=True``); ``fallthrough_kernel`` makes every operator skip the key.

        >>> import openreg
        >>> seen = []
        >>> def meta_fallback(op, *args, **kwargs):
        ...     seen.append(op.name())
        ...     return openreg.empty(args[0].shape, device="meta")
        >>> defs = Library("fb_demo", "FRAGMENT")
        >>> defs.define("cpu_only(Tensor x) -> Tensor")
        'cpu_only'
        >>> lib = Library("_", "IMPL")
        >>> lib.fallback(meta_fallback, "Meta")
        >>> openreg.ops.fb_demo.cpu_only(openreg.empty(2, device="meta")).shape
        openreg.Size([2])
        >>> lib._destroy(); defs._destroy()
        >>> seen
        ['fb_demo::cpu_only']
        """
        self._check_alive()
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if self.ns != "_":
            raise RuntimeError(f"Fallback can only be registered using library fragment on the global namespace "
                               f"\"_\" but it is {self.ns}")
        if not (dispatch_key or self.dispatch_key):
            raise RuntimeError("fallback(): a dispatch key is required (pass dispatch_key= or create the Library "
                               "with one)")
        key = self._resolve_key(dispatch_key)
        if key not in DispatchKey or key >= DispatchKey.Autograd:
            raise RuntimeError(f"fallback(): {key.name} is an alias key; fallbacks need a runtime dispatch key")
        if fn is fallthrough_kernel:
            boxed = fn
        elif with_keyset:
            def boxed(op, ks, args, kwargs):
                return fn(op, ks, *args, **kwargs)
        else:
            def boxed(op, ks, args, kwargs):
                return fn(op, *args, **kwargs)
        if boxed is not fn and getattr(fn, "_openreg_lean", False):
            boxed._openreg_lean = True   # a no-op on plain tensors (see dispatcher.walk_past_when_lean)
        self._handles.append(dispatcher.register_fallback(key, boxed, site=_utils.caller_site()))

    def _destroy(self) -> None:
        """Undo every registration of this library (in reverse order); the library can't be used afterwards."""
        if self._destroyed:
            return
        self._destroyed = True
        self._finalizer()


def _teardown(handles: list, def_ns: str | None, site: str) -> None:
    while handles:
        handles.pop().remove()
    if def_ns is not None and _DEF_LIBRARIES.get(def_ns) == site:
        del _DEF_LIBRARIES[def_ns]


@contextlib.contextmanager
def _scoped_library(*args, **kwargs) -> Iterator[Library]:
    """A ``Library`` destroyed when the ``with`` block exits (tests use it to stay isolated).

    >>> import openreg
    >>> with _scoped_library("scoped_demo", "FRAGMENT") as lib:
    ...     lib.define("f(Tensor x) -> Tensor")
    'f'
    >>> hasattr(openreg.ops.scoped_demo, "f")
    False
    """
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


_keep_alive: list[Library] = []
NAMELESS_SCHEMA = re.compile(r"\(.*\) -> .*")


def _library_for(ns: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    lib = Library(ns, "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def define(qualname, schema: str | None = None, *, lib: Library | None = None,
           tags: Tag | Sequence[Tag] = (), alias_analysis: str = ""):
    """Define a new operator ``"ns::name"`` with a schema without its name (``"(Tensor x) -> Tensor"``).

    The operator lives as long as ``lib`` (or forever when ``lib`` is None). The legacy form
    ``define(lib, schema)`` returns a decorator that also registers the kernel.

    >>> import openreg
    >>> with _scoped_library("mod_define", "FRAGMENT") as lib:
    ...     define("mod_define::sin2", "(Tensor x) -> Tensor", lib=lib)
    ...     @impl("mod_define::sin2", "cpu", lib=lib)
    ...     def _(x):
    ...         return openreg.ops.aten.add.Tensor(x, x)
    ...     openreg.ops.mod_define.sin2(openreg.tensor([3.0])).tolist()
    [6.0]
    """
    if isinstance(qualname, Library):
        legacy_lib, legacy_schema = qualname, schema

        def wrap(f):
            legacy_lib.define(legacy_schema, alias_analysis)
            legacy_lib.impl(legacy_schema.split("(", 1)[0].strip().split("::")[-1], f)
            return f
        return wrap
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}")  # noqa: TRY004
    namespace, name = _utils.parse_namespace(qualname)
    if not isinstance(schema, str) or not NAMELESS_SCHEMA.fullmatch(schema):
        raise ValueError(f"define(qualname, schema, ...): expected schema to look like e.g. "
                         f"\"(Tensor x) -> Tensor\" but got \"{schema}\"")
    if lib is not None and lib.ns != namespace:
        raise ValueError(f"define(): the namespace of {qualname} does not match lib's namespace ({lib.ns})")
    parse_schema(f"{qualname}{schema}")           # raise on a bad schema before creating a library
    _library_for(namespace, lib).define(name + schema, alias_analysis=alias_analysis, tags=tags)


def _keys_for_types(types) -> list[DispatchKey]:
    if isinstance(types, str):
        types = (types,)
    keys: list[DispatchKey] = []
    for t in types:
        k = dispatch_key_for(t)
        if k not in keys:
            keys.append(k)
    return keys


def impl(qualname, types, func: Callable | None = None, *, lib: Library | None = None):
    """Register ``func`` for ``"ns::name"`` on device type(s) (``"cpu"``, ``"meta"``, the PrivateUse1 name,
    ``"default"``) or dispatch key name(s); usable as a decorator. Legacy form: ``impl(lib, name, key)``.

    >>> import openreg
    >>> with _scoped_library("mod_impl", "FRAGMENT") as lib:
    ...     lib.define("one(Tensor x) -> Tensor")
    ...     impl("mod_impl::one", "default", lambda x: openreg.ops.aten.add.Scalar(x, 1), lib=lib)
    ...     openreg.ops.mod_impl.one(openreg.tensor([1.0])).tolist()
    'one'
    [2.0]
    """
    if isinstance(qualname, Library):
        legacy_lib, name, key = qualname, types, func or ""

        def wrap(f):
            legacy_lib.impl(name, f, key)
            return f
        return wrap
    namespace, _ = _utils.parse_namespace(qualname)
    keys = _keys_for_types(types)

    def register(fn):
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        use_lib = _library_for(namespace, lib)
        for key in keys:
            use_lib.impl(qualname, fn, key.name)
        return fn
    if func is None:
        return register
    register(func)
    return None


_op_identifier = Any   # str | OpOverload | CustomOpDef


def _check_op(op, api: str) -> None:
    from ._dispatch.ops import OpOverload
    if not isinstance(op, (str, OpOverload, CustomOpDef)):
        raise ValueError(f"{api}(op): got unexpected type for op: {type(op)}")  # noqa: TRY004


def register_kernel(op: _op_identifier, device_types, func: Callable | None = None, /, *,
                    lib: Library | None = None):
    """Register an implementation of ``op`` for device type(s); ``None`` means every device.

    >>> import openreg
    >>> with _scoped_library("mod_rk", "FRAGMENT") as lib:
    ...     lib.define("id(Tensor x) -> Tensor")
    ...     _ = register_kernel("mod_rk::id", "cpu", lambda x: x.clone(), lib=lib)
    ...     openreg.ops.mod_rk.id(openreg.tensor([5.0])).tolist()
    'id'
    [5.0]
    """
    _check_op(op, "register_kernel")
    opdef = _maybe_get_opdef(op)
    if opdef is not None:
        return opdef.register_kernel(device_types, func)
    qualname = _utils.qualname_of(op)
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    result = impl(qualname, device_types, func, lib=lib)
    return func if func is not None else result


def register_fake(op: _op_identifier, func: Callable | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1, allow_override: bool = True):
    """Register a fake (shape-only) implementation of ``op``; it serves Meta tensors. Usable as a decorator.

    >>> import openreg
    >>> with _scoped_library("mod_fake", "FRAGMENT") as lib:
    ...     lib.define("dup(Tensor x) -> Tensor")
    ...     @register_fake("mod_fake::dup", lib=lib)
    ...     def _(x):
    ...         return openreg.empty((2,) + tuple(x.shape), dtype=x.dtype, device=x.device)
    ...     openreg.ops.mod_fake.dup(openreg.empty(3, device="meta")).shape
    'dup'
    openreg.Size([2, 3])
    """
    _check_op(op, "register_fake")
    opdef = _maybe_get_opdef(op)
    if opdef is not None:
        return opdef.register_fake if func is None else opdef.register_fake(func)
    qualname = _utils.qualname_of(op)
    namespace, _ = _utils.parse_namespace(qualname)
    site = _utils.caller_site()

    def register(fn):
        if _utils.lookup_op_entry(qualname) is None:
            raise RuntimeError(f"register_fake(...): operator {qualname} does not exist; define it first.")
        use_lib = _library_for(namespace, lib)
        register_fake_impl(use_lib, qualname, fn, site, allow_override=allow_override)
        return fn
    if func is None:
        return register
    return register(func)


def impl_abstract(qualname, func: Callable | None = None, *, lib: Library | None = None, _stacklevel: int = 1):
    """Deprecated alias of :func:`register_fake` (emits ``FutureWarning``).

    >>> import warnings
    >>> with _scoped_library("mod_abs", "FRAGMENT") as lib, warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     lib.define("f(Tensor x) -> Tensor")
    ...     _ = impl_abstract("mod_abs::f", lambda x: x, lib=lib)
    ...     w[0].category.__name__
    'f'
    'FutureWarning'
    """
    warnings.warn("`openreg.library.impl_abstract` was renamed to `openreg.library.register_fake`. Please use "
                  "that instead; we will remove `openreg.library.impl_abstract` in a future version.",
                  FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib, _stacklevel=_stacklevel + 1)


def register_autograd(op: _op_identifier, backward: Callable, /, *, setup_context: Callable | None = None,
                      lib: Library | None = None) -> None:
    """Register ``backward(ctx, *grads)`` (and ``setup_context(ctx, inputs, output)``) as ``op``'s gradient.

    Only functional operators qualify; kwarg-only Tensor arguments are not supported.

    >>> with _scoped_library("mod_ag", "FRAGMENT") as lib:
    ...     lib.define("inplace_(Tensor(a!) x) -> ()")
    ...     register_autograd("mod_ag::inplace_", lambda ctx, g: g, lib=lib)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: Cannot register autograd formula for non-functional operator mod_ag.inplace_.default ...
    """
    _check_op(op, "register_autograd")
    opdef = _maybe_get_opdef(op)
    if opdef is not None:
        opdef.register_autograd(backward, setup_context=setup_context)
        return
    if not callable(backward):
        raise TypeError(f"register_autograd(op, backward): expected backward to be callable, got {type(backward)}")
    qualname = _utils.qualname_of(op)
    overload = _utils.lookup_op(qualname)
    schema = overload._schema
    if not _utils.is_functional_schema(schema):
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator {overload} with schema "
                           f"{schema}. Please create a functional operator and register an autograd formula for "
                           f"that.")
    if _utils.has_kwarg_only_tensors(schema):
        raise NotImplementedError(f"register_autograd with kwarg-only Tensor args. In the original definition of "
                                  f"the op, please make your tensors not kwarg-only. Got: {schema}")
    kernel = _make_autograd_impl(overload, _AutogradInfo(backward, setup_context))
    namespace, _ = _utils.parse_namespace(qualname.split(".")[0])
    use_lib = _library_for(namespace, lib)
    use_lib.impl(qualname, kernel, "Autograd", with_keyset=True)


def register_autocast(op: _op_identifier, device_type: str, cast_inputs, /, *, lib: Library | None = None):
    """Make ``op`` autocast-aware on ``device_type`` (``"cpu"`` or openreg's device): inside an autocast region
    its floating inputs of that device are cast to ``cast_inputs`` and it runs with autocast off.

    >>> import openreg
    >>> with _scoped_library("mod_ac", "FRAGMENT") as lib:
    ...     lib.define("double(Tensor x) -> Tensor")
    ...     lib.impl("double", lambda x: x * 2, "CPU")
    ...     register_autocast("mod_ac::double", "cpu", openreg.float16, lib=lib)
    ...     with openreg.autocast("cpu"):
    ...         openreg.ops.mod_ac.double(openreg.ones(1)).dtype
    'double'
    openreg.float16
    """
    from .amp.kernels import custom_autocast_kernel
    from .devices import privateuse1_name
    _check_op(op, "register_autocast")
    if device_type not in ("cpu", privateuse1_name()):
        raise ValueError(f"Unknown device type: {device_type}")
    qualname = _utils.qualname_of(op)
    key = "AutocastCPU" if device_type == "cpu" else "AutocastPrivateUse1"
    opdef = _maybe_get_opdef(op)
    if opdef is not None:
        lib = opdef._lib
    ns, _, name = qualname.partition("::")
    _library_for(ns, lib).impl(name, custom_autocast_kernel(qualname, device_type, cast_inputs), key)


def get_ctx() -> FakeImplCtx:
    """The context of the running fake impl (``ctx.new_dynamic_size()``); raises outside a fake impl.

    >>> get_ctx()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: openreg.library.get_ctx() can only be called from inside a fake impl ...
    """
    return _ctx_getter()
