"""``custom_op``: turn a type-hinted Python function into an operator (PyTorch's ``torch.library.custom_op``).

>>> import numpy as np
>>> import openreg
>>> from openreg import Tensor
>>> from openreg.library import custom_op
>>> @custom_op("co_demo::numpy_sin", mutates_args=())
... def numpy_sin(x: Tensor) -> Tensor:
...     return openreg.from_numpy(np.sin(x.cpu().numpy())).to(x.device)
>>> numpy_sin._opoverload._schema.__str__()
'co_demo::numpy_sin(Tensor x) -> Tensor'
>>> numpy_sin(openreg.tensor([0.0])).tolist()
[0.0]
>>> @numpy_sin.register_fake
... def _(x):
...     return openreg.empty_like(x) if hasattr(openreg, "empty_like") else openreg.empty(x.shape, device=x.device)
>>> numpy_sin(openreg.empty(3, device="meta")).shape
openreg.Size([3])
>>> numpy_sin._destroy()
"""
from __future__ import annotations

import contextlib
import logging
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence

from .._dispatch.keys import DispatchKey
from .._dispatch.schema import parse_schema
from .._dispatch.tags import Tag
from . import utils
from .autograd import make_autograd_impl
from .fake_impl import register_fake_impl
from .infer_schema import UNKNOWN_MUTATES, infer_schema

log = logging.getLogger(__name__)

device_types_t = "str | Sequence[str] | None"
OPDEF_TO_LIB: dict = {}
OPDEFS: weakref.WeakValueDictionary[str, CustomOpDef] = weakref.WeakValueDictionary()


def custom_op(name: str, fn: Callable | None = None, /, *, mutates_args: str | Iterable[str],
              device_types: str | Sequence[str] | None = None, schema: str | None = None,
              tags: Sequence[Tag] | None = None):
    """Wrap ``fn`` into a custom operator ``name`` (``"ns::op"``); usable as a decorator.

    ``mutates_args`` (required) names the arguments the function writes (or ``"unknown"``); the schema is
    inferred from the type hints unless ``schema`` is given. ``device_types`` limits the implementation to
    device types (``None``: every device).
    """
    if not isinstance(name, str):
        raise ValueError(f"custom_op(name, ...): expected name to be a str, got {type(name)}")  # noqa: TRY004
    namespace, opname = utils.parse_namespace(name)
    if "." in opname:
        raise ValueError(f"custom_op(name, ...): the op name may not contain an overload, got {name}")
    if isinstance(mutates_args, str) and mutates_args != UNKNOWN_MUTATES:
        raise ValueError(f"custom_op(..., mutates_args={mutates_args!r}): mutates_args must be an iterable of "
                         f"argument names or the string 'unknown'")
    if not isinstance(mutates_args, str):
        mutates_args = tuple(mutates_args)

    def inner(fn: Callable) -> CustomOpDef:
        if not callable(fn):
            raise TypeError(f"custom_op(...)(fn): expected a callable, got {type(fn)}")
        if schema is None:
            schema_str = infer_schema(fn, mutates_args=mutates_args)
        else:
            schema_str = schema
            from ..library import NAMELESS_SCHEMA
            if not NAMELESS_SCHEMA.fullmatch(schema_str):
                raise ValueError(f"custom_op(..., schema=...): expected schema to look like e.g. "
                                 f"\"(Tensor x) -> Tensor\" but got \"{schema_str}\"")
            parsed = parse_schema(f"{name}{schema_str}")
            if mutates_args != UNKNOWN_MUTATES:
                expected = {a.name for a in parsed.arguments if a.alias_info is not None and a.alias_info.is_write}
                if expected != set(mutates_args):
                    raise ValueError(f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                                     f"`schema={schema_str}. The schema suggests that the op mutates {expected}"
                                     f"which is different from what was provided to us in `mutates_args`. "
                                     f"Please make these consistent.")
        result = CustomOpDef(namespace, opname, schema_str, fn, tags)
        try:
            result.register_kernel(device_types)(fn)
        except BaseException:
            result._destroy()
            raise
        return result

    if fn is None:
        return inner
    return inner(fn)


class CustomOpDef:
    """A custom operator made by :func:`custom_op`; calling it calls the operator.

    Do not instantiate directly; use ``openreg.library.custom_op``.
    """

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable,
                 tags: Sequence[Tag] | None = None) -> None:
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._tags = list(tags) if tags is not None else []
        self._init_fn = fn
        self._backend_fns: dict = {}
        self._abstract_fn: Callable | None = None
        self._setup_context_fn: Callable | None = None
        self._backward_fn: Callable | None = None
        self._disabled_kernel: set = set()
        parsed = parse_schema(f"{self._qualname}{schema}")
        if utils.has_kwarg_only_tensors(parsed):
            raise NotImplementedError(f"custom_op with kwarg-only Tensor args. Please make your tensors not "
                                      f"kwarg-only. Got: {self._name}{schema}")
        for t in self._tags:
            if not isinstance(t, Tag):
                raise TypeError(f"custom_op(..., tags=...): expected openreg.Tag members, got {t!r}")
        self._lib = get_library_allowing_overwrite(namespace, name)
        try:
            self._register_to_dispatcher()
        except BaseException:
            self._destroy()
            raise
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def _destroy(self) -> None:
        """Remove the operator and everything registered for it."""
        lib = OPDEF_TO_LIB.get(self._qualname)
        if lib is self._lib:
            del OPDEF_TO_LIB[self._qualname]
        if OPDEFS.get(self._qualname) is self:
            del OPDEFS[self._qualname]
        self._lib._destroy()

    # -- dispatcher registration ---------------------------------------------------------------------
    def _register_to_dispatcher(self) -> None:
        lib = self._lib
        tags = [Tag.pt2_compliant_tag] + [t for t in self._tags if t is not Tag.pt2_compliant_tag]
        lib.define(self._name + self._schema, tags=tags)
        self._opoverload = utils.lookup_op(self._qualname)
        op = self._opoverload

        def fake_impl(*args, **kwargs):
            if self._abstract_fn is None:
                if _can_generate_trivial_fake_impl(op):
                    return None
                raise RuntimeError(f"There was no fake impl registered for {self}. This is necessary for "
                                   f"meta tensors and opcheck to work. Please use "
                                   f"`{getattr(self._init_fn, '__name__', 'fn')}.register_fake` to add a fake "
                                   f"impl.")
            return self._abstract_fn(*args, **kwargs)

        register_fake_impl(lib, self._qualname, fake_impl, utils.caller_site(), allow_override=True)
        lib._register_internal(self._qualname, make_autograd_impl(op, self), DispatchKey.Autograd,
                               utils.caller_site(), with_keyset=True)
        schema = op._schema
        if not utils.has_tensor_arg(schema) and utils.get_device_arg_index(schema) is not None:
            self._register_backend_select(utils.get_device_arg_index(schema))

    def _register_backend_select(self, device_arg_index: int) -> None:
        from ..devices import device as Device
        from ..library import dispatch_key_for
        positional = sum(not a.kwarg_only for a in self._opoverload._schema.arguments)

        def backend_select(keyset, *args, **kwargs):
            dev = args[device_arg_index] if device_arg_index < positional else kwargs.get("device")
            dev_type = Device(dev).type if dev is not None else "cpu"
            if dev_type not in self._backend_fns and None not in self._backend_fns:
                raise RuntimeError(f"{self._name} does not have a kernel registered for {dev_type}. Please use "
                                   f"register_kernel to do so.")
            key = dispatch_key_for(dev_type)
            return self._opoverload.redispatch(1 << key, *args, **kwargs)

        self._lib._register_internal(self._qualname, backend_select, DispatchKey.BackendSelect,
                                     utils.caller_site(), with_keyset=True)

    # -- public API ----------------------------------------------------------------------------------
    def register_kernel(self, device_types, fn: Callable | None = None, /) -> Callable:
        """Register ``fn`` as this op's implementation for device type(s) (``None``: every device).

        >>> import openreg
        >>> from openreg import Tensor
        >>> @custom_op("co_demo::twice", mutates_args=(), device_types="cpu")
        ... def twice(x: Tensor) -> Tensor:
        ...     return openreg.ops.aten.add.Tensor(x, x)
        >>> @twice.register_kernel("meta")
        ... def _(x):
        ...     return openreg.empty(x.shape, device=x.device)
        >>> twice(openreg.empty(2, device="meta")).shape
        openreg.Size([2])
        >>> twice._destroy()
        """
        from ..library import dispatch_key_for

        def inner(fn: Callable) -> Callable:
            if not callable(fn):
                raise TypeError(f"register_kernel(...): expected a callable, got {type(fn)}")
            dtypes = [device_types] if device_types is None or isinstance(device_types, str) else \
                list(device_types)
            keys = [DispatchKey.CompositeExplicitAutograd if d is None else dispatch_key_for(d) for d in dtypes]
            for device_type, key in zip(dtypes, keys):
                if device_type not in self._backend_fns:
                    self._lib._register_internal(self._qualname, self._make_backend_impl(device_type), key,
                                                 utils.caller_site())

                def wrapped_fn(*args, _device_type=device_type, **kwargs):
                    if _device_type in self._disabled_kernel:
                        return self._init_fn(*args, **kwargs)
                    return fn(*args, **kwargs)
                self._backend_fns[device_type] = wrapped_fn
            return fn

        schema = self._opoverload._schema
        if device_types is not None and not utils.has_tensor_arg(schema) and \
                utils.get_device_arg_index(schema) is None:
            raise ValueError("Functions without tensor inputs are required to have a `device: "
                             "openreg.device` argument")
        if fn is None:
            return inner
        return inner(fn)

    def _make_backend_impl(self, device_type):
        def backend_impl(*args, **kwargs):
            result = self._backend_fns[device_type](*args, **kwargs)
            _check_aliasing_constraint(self._name, self._backend_fns[device_type], args, kwargs, result)
            return result
        return backend_impl

    def register_fake(self, fn: Callable, /) -> Callable:
        """Register the fake (shape-only) implementation; it serves Meta tensors and ``opcheck``."""
        if not callable(fn):
            raise TypeError(f"register_fake(...): expected a callable, got {type(fn)}")
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward: Callable, /, *, setup_context: Callable | None = None) -> None:
        """Register ``backward(ctx, *grads)`` and optional ``setup_context(ctx, inputs, output)``."""
        schema = self._opoverload._schema
        if not utils.is_functional_schema(schema):
            raise RuntimeError(f"Cannot register autograd formula for non-functional operator {self} with schema "
                               f"{schema}. Please create a functional operator and register an autograd formula "
                               f"for that.")
        if not callable(backward):
            raise TypeError(f"register_autograd(backward): expected a callable, got {type(backward)}")
        if setup_context is not None and not callable(setup_context):
            raise TypeError(f"register_autograd(setup_context=...): expected a callable, got {type(setup_context)}")
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True) -> Iterator[None]:
        """Temporarily disable (or re-enable) the kernel of a device type; the default kernel runs instead.

        >>> import openreg
        >>> from openreg import Tensor
        >>> @custom_op("co_demo::f", mutates_args=())
        ... def f(x: Tensor) -> Tensor:
        ...     return openreg.zeros(1)
        >>> @f.register_kernel("cpu")
        ... def _(x):
        ...     return openreg.ones(1)
        >>> with f.set_kernel_enabled("cpu", enabled=False):
        ...     f(openreg.zeros(1)).tolist()
        [0.0]
        >>> f(openreg.zeros(1)).tolist()
        [1.0]
        >>> f._destroy()
        """
        action = "enable" if enabled else "disable"
        originally_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this device type.",
                        action, device_type)
        if not enabled:
            if originally_disabled:
                log.warning("Attempted to disable kernel for %s but it was already disabled.", device_type)
            else:
                self._disabled_kernel.add(device_type)
        else:
            if not originally_disabled:
                log.warning("Attempted to enable kernel for %s but it was already enabled.", device_type)
            else:
                self._disabled_kernel.remove(device_type)
        try:
            yield
        finally:
            if originally_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)


def _can_generate_trivial_fake_impl(op) -> bool:
    schema = op._schema
    return schema.is_mutable and len(schema.returns) == 0


def _check_aliasing_constraint(name: str, fn: Callable, args, kwargs, result) -> None:
    """Outputs of a custom op may neither be nor alias its inputs or each other."""
    inputs = {utils.storage_id(t) for t in utils.iter_tensors((args, kwargs))}
    seen: set = set()
    for out in utils.iter_tensors(result if isinstance(result, (tuple, list)) else (result,)):
        sid = utils.storage_id(out)
        if sid in inputs or sid in seen:
            module = getattr(fn, "__module__", None)
            raise RuntimeError(f"{name} (with implementation in {module}): The output of this custom operator (1) "
                               f"must not also be an input to this custom operator and (2) may not alias any "
                               f"inputs to this custom operator or other returns. The most common way to trigger "
                               f"this error is if we have y = custom_op(x) and y and x are the same Tensor. "
                               f"Instead, the output must be a clone of the input (y = x.clone()).")
        seen.add(sid)


def get_library_allowing_overwrite(namespace: str, name: str):
    """A fresh FRAGMENT library for ``namespace::name``, destroying the one of a previous definition."""
    from ..library import Library
    qualname = f"{namespace}::{name}"
    previous = OPDEF_TO_LIB.pop(qualname, None)
    if previous is not None:
        previous._destroy()
    lib = Library(namespace, "FRAGMENT")
    OPDEF_TO_LIB[qualname] = lib
    return lib


def _maybe_get_opdef(op) -> CustomOpDef | None:
    if isinstance(op, CustomOpDef):
        return op
    from .._dispatch.ops import OpOverload
    if isinstance(op, OpOverload):
        op = op.name()
    if isinstance(op, str):
        return OPDEFS.get(op.removesuffix(".default"))
    return None
