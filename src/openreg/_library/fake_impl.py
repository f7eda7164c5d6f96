"""Fake (shape-only) implementations: registration rules, the Meta kernel that serves them, ``get_ctx()``.

A fake impl receives Meta tensors with the input's sizes, strides and dtypes and returns Meta tensors
describing the outputs. It is registered as the op's ``Meta`` kernel, so ``op(meta_tensor)`` runs it, and
recorded in the dispatcher entry's ``fake_impls`` (``dispatcher.register_fake``) so both are undone together.

Data-dependent sizes
--------------------
Inside a fake impl, ``get_ctx().new_dynamic_size(min=0, max=None)`` returns a :class:`DynamicSize`: an ``int``
subclass whose value is a *sentinel* from a reserved range (``DYNAMIC_SIZE_BASE + k``, ``k`` counting up).
Being an ``int`` it can be used anywhere a size is expected (``openreg.empty((n, 2), device="meta")``);
Meta tensors never allocate, so the large value costs nothing. ``is_dynamic_size(n)`` recognises the sentinel
even after it was converted to a plain ``int`` (as every shape is), and ``dynamic_size_bounds(n)`` returns the
``(min, max)`` given when it was created. ``opcheck``'s fake-tensor test accepts any real size within those
bounds for such a dimension.

>>> import openreg
>>> from openreg.library import Library, register_fake, get_ctx
>>> lib = Library("fake_demo", "FRAGMENT")
>>> lib.define("nonzero_rows(Tensor x) -> Tensor")
'nonzero_rows'
>>> @register_fake("fake_demo::nonzero_rows", lib=lib)
... def _(x):
...     n = get_ctx().new_dynamic_size(max=x.shape[0])
...     return openreg.empty((n, x.dim()), dtype=openreg.int64, device=x.device)
>>> out = openreg.ops.fake_demo.nonzero_rows(openreg.empty(4, 3, device="meta"))
>>> is_dynamic_size(out.shape[0]), out.shape[1]
(True, 2)
>>> lib._destroy()
"""
from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from collections.abc import Callable

DYNAMIC_SIZE_BASE = 1 << 48
_DYNAMIC_SPAN = 1 << 40
_counter = itertools.count()
_bounds: dict[int, tuple[int, int | None]] = {}


class DynamicSize(int):
    """A data-dependent size placeholder (see the module docstring): an int with ``min``/``max`` bounds."""

    min: int
    max: int | None

    def __new__(cls, min: int = 0, max: int | None = None) -> DynamicSize:  # noqa: PYI034
        value = DYNAMIC_SIZE_BASE + next(_counter) % _DYNAMIC_SPAN
        self = int.__new__(cls, value)
        self.min, self.max = min, max
        _bounds[value] = (min, max)
        return self

    def __repr__(self) -> str:
        return f"u{int(self) - DYNAMIC_SIZE_BASE}"


def is_dynamic_size(value) -> bool:
    """Whether ``value`` (an int, maybe converted from a :class:`DynamicSize`) is a dynamic-size sentinel."""
    return isinstance(value, int) and DYNAMIC_SIZE_BASE <= value < DYNAMIC_SIZE_BASE + _DYNAMIC_SPAN


def dynamic_size_bounds(value: int) -> tuple[int, int | None]:
    """The ``(min, max)`` bounds a dynamic size was created with."""
    return _bounds.get(int(value), (0, None))


class FakeImplCtx:
    """The context object a fake impl gets from ``openreg.library.get_ctx()``."""

    def __init__(self, op):
        self._op = op
        self._sizes: list[int] = []      # the dynamic sizes made during this call

    def new_dynamic_size(self, *, min: int = 0, max: int | None = None) -> DynamicSize:
        """A new size that depends on input data, ``min <= size <= max`` (``max=None``: unbounded).

        >>> ctx = FakeImplCtx(None)
        >>> n = ctx.new_dynamic_size(min=1, max=5)
        >>> is_dynamic_size(n), dynamic_size_bounds(n)
        (True, (1, 5))
        """
        if isinstance(min, bool) or not isinstance(min, int) or (max is not None and (
                isinstance(max, bool) or not isinstance(max, int))):
            raise ValueError(f"ctx.new_dynamic_size(min={min}, max={max}): expected min and max to be "
                             f"statically known ints.")
        if min < 0:
            raise ValueError(f"ctx.new_dynamic_size(min={min}, ...): expected min to be greater than or equal "
                             f"to 0: this API can only create non-negative sizes.")
        if max is not None and max < min:
            raise ValueError(f"ctx.new_dynamic_size(min={min}, max={max}): expected min <= max.")
        size = DynamicSize(min, max)
        self._sizes.append(int(size))
        return size

    def create_unbacked_symint(self, *, min: int = 2, max: int | None = None) -> DynamicSize:
        """Deprecated name of :meth:`new_dynamic_size`."""
        import warnings
        warnings.warn("`create_unbacked_symint` is deprecated, please use `new_dynamic_size` instead",
                      FutureWarning, stacklevel=2)
        return self.new_dynamic_size(min=min, max=max)


class _CtxState(threading.local):
    getter: Callable | None = None


_state = _CtxState()


def _no_ctx():
    raise RuntimeError("openreg.library.get_ctx() can only be called from inside a fake impl (see "
                       "openreg.library.register_fake); it was called outside of one.")


def global_ctx_getter():
    """The current fake-impl context (raises outside a fake impl)."""
    getter = _state.getter
    return _no_ctx() if getter is None else getter()


@contextlib.contextmanager
def set_ctx_getter(getter: Callable):
    prev = _state.getter
    _state.getter = getter
    try:
        yield
    finally:
        _state.getter = prev


def _forget_sizes(sizes) -> None:
    for value in sizes:
        _bounds.pop(value, None)


def _keep_sizes_while_alive(sizes: list[int], out) -> None:
    """Keep the bounds of ``sizes`` while a tensor of the fake impl's result ``out`` lives, then drop them
    (so the table does not grow with every call)."""
    from ..tensor import Tensor
    stack, tensors = [out], []
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            tensors.append(item)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    if not tensors:
        _forget_sizes(sizes)
        return
    refs = [weakref.ref(t) for t in tensors]

    def release() -> None:
        if all(r() is None for r in refs):
            _forget_sizes(sizes)
    for t in tensors:
        weakref.finalize(t, release)


def construct_meta_kernel(qualname: str, entry) -> Callable:
    """The Meta kernel serving the active fake impl of ``entry`` (``entry.fake_impls[-1]``)."""

    def meta_kernel(*args, **kwargs):
        try:
            fn, _site = entry.fake_impls[-1]      # one read: another thread may remove it meanwhile
        except IndexError:
            raise RuntimeError(f"{qualname}: the fake impl was removed") from None
        ctx = FakeImplCtx(entry.overload)
        try:
            with set_ctx_getter(lambda: ctx):
                out = fn(*args, **kwargs)
        except BaseException:
            _forget_sizes(ctx._sizes)
            raise
        if ctx._sizes:
            _keep_sizes_while_alive(ctx._sizes, out)
        return out
    meta_kernel.__name__ = f"fake_impl_for_{qualname.replace('::', '_')}"
    return meta_kernel


def register_fake_impl(lib, qualname: str, fn: Callable, source: str, *, allow_override: bool = False) -> None:
    """Register ``fn`` as the fake impl of ``qualname`` owned by ``lib``, with PyTorch's rules.

    Refused (registry unchanged) when, and ``allow_override`` is False, the op already has a fake impl, a
    ``Meta`` kernel, or a ``CompositeImplicitAutograd`` kernel (such ops decompose instead).
    """
    from .._dispatch import dispatcher
    from .._dispatch.keys import DispatchKey
    if not callable(fn):
        raise TypeError(f"register_fake(...): expected a callable fake impl, got {type(fn)}")
    entry = dispatcher.find(qualname)
    if entry is None:
        raise RuntimeError(f"register_fake(...): operator {qualname} does not exist; define it first "
                           f"(openreg.library.define or Library.define).")
    if not allow_override:
        if entry.fake_impls:
            raise RuntimeError(f"register_fake(...): the operator {qualname} already has a fake impl "
                               f"registered at {entry.fake_impls[-1][1]}.")
        if dispatcher.has_kernel(qualname, DispatchKey.Meta):
            raise RuntimeError(f"register_fake(...): the operator {qualname} already has a DispatchKey::Meta "
                               f"implementation via a pre-existing torch.library or TORCH_LIBRARY registration. "
                               f"Please either remove that registration or don't call register_fake.")
        if dispatcher.has_kernel(qualname, DispatchKey.CompositeImplicitAutograd):
            raise RuntimeError(f"register_fake(...): the operator {qualname} already has an implementation for "
                               f"this device type via a pre-existing registration to "
                               f"DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd operators do "
                               f"not need a fake impl; instead, the operator will decompose into its "
                               f"constituents and those can have fake impls defined on them.")
    elif dispatcher.has_kernel(qualname, DispatchKey.CompositeImplicitAutograd):
        # PyTorch's lib.impl(..., "Meta") refuses the meta kernel the fake impl would become.
        raise RuntimeError(f"We should not register a meta kernel directly to the operator '{qualname}', because "
                           f"it has a CompositeImplicitAutograd kernel in core. Instead we should let the operator "
                           f"decompose, and ensure that we have meta kernels for the base ops that it decomposes "
                           f"into.")
    fake_handle = dispatcher.register_fake(qualname, fn, site=source)
    try:
        lib._register_internal(qualname, construct_meta_kernel(qualname, entry), DispatchKey.Meta, source)
    except BaseException:
        fake_handle.remove()
        raise
    lib._handles.append(fake_handle)

