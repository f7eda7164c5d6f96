"""Which tensors are batched inside a running ``vmap``, so that reading a batched value into Python raises as it does
in PyTorch (whose BatchedTensors have no single value to give).

openreg's ``vmap`` runs its function once per batch element, so every value is a real tensor. A ``BatchedLevel``
(one per running ``vmap``) marks the input slices: they carry the ``FuncTorchBatched`` dispatch key, whose fallback
runs the call below that key and marks its results with the levels of its marked arguments (calls without a
marked argument never reach it). ``item()``, ``int()``, ``float()``, ``complex()``, ``operator.index()`` and
``bool()`` (data-dependent control flow) of a marked tensor raise PyTorch's errors, as does ``tolist()``; tensors
the function makes or captures without batched inputs convert as usual, as in PyTorch. Only the function's own
reads raise: openreg's operators and modules, written in Python, may read an element's values where PyTorch's
batching rules do the same work on the whole batch (indexing with a batched integer tensor, ``one_hot``'s range
check).

>>> import openreg
>>> from openreg.func import vmap
>>> vmap(lambda v: v * openreg.tensor(2.0).item())(openreg.ones(2)).tolist()
[2.0, 2.0]
>>> vmap(lambda v: v.sum().item())(openreg.ones(2, 3))
Traceback (most recent call last):
...
RuntimeError: vmap: It looks like you're calling .item() on a Tensor. ...
"""
from __future__ import annotations

import os
import sys

from ._dispatch.dispatcher import register_fallback
from ._dispatch.keys import DispatchKey
from .tensor import TensorBase

ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
        "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
        "inside PyTorch internals, please file a bug report.")
CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't "
                "support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")
NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"

_BIT = 1 << DispatchKey.FuncTorchBatched


class BatchedLevel:
    """One running ``vmap`` (a context manager; nested ``vmap`` calls each have one)."""

    def __init__(self) -> None:
        self.active = False
        self.alone = (self,)     # the levels of what only this level batched (one tuple, shared: compared by `is`)

    def __enter__(self) -> BatchedLevel:  # noqa: PYI034
        self.active = True
        return self

    def __exit__(self, *exc) -> None:
        self.active = False

    def mark(self, value):
        """Marks ``value`` (a tensor) batched at this level; returns it."""
        _mark(value, self.alone)
        return value

    def release(self, values) -> None:
        """Unmarks the tensors among ``values`` (the per-element results, once the level has ended), so that
        those handed back whole (``out_dims=None``) do not reach the fallback again; other levels' marks stay."""
        for v in values:
            if isinstance(v, TensorBase) and self in v._vmap_levels:
                v._vmap_levels = tuple(lv for lv in v._vmap_levels if lv is not self)
                if not v._vmap_levels:
                    v._ks &= ~_BIT


def _union(a: tuple, b: tuple) -> tuple:
    return a + tuple(lv for lv in b if lv not in a)


def _mark(value, levels: tuple) -> None:
    if isinstance(value, TensorBase):
        have = value._vmap_levels
        if have is not levels:
            value._vmap_levels = _union(have, levels) if have else levels
        value._ks |= _BIT
    elif isinstance(value, (list, tuple)):
        for v in value:
            _mark(v, levels)


def _levels(values, found: tuple) -> tuple:
    """``found`` with the levels the tensors among ``values`` (and in their lists) are batched at."""
    for v in values:
        if isinstance(v, TensorBase):
            have = v._vmap_levels
            if have and have is not found:
                found = _union(found, have) if found else have
        elif isinstance(v, (list, tuple)) and v:
            found = _levels(v, found)
    return found


def _batched_fallback(op, ks, args, kwargs):
    out = op.redispatch_fn(ks & ~_BIT, *args, **kwargs)
    levels = _levels(args, ())
    if kwargs:
        levels = _levels(kwargs.values(), levels)
    if not levels:
        return out
    for lv in levels:
        if not lv.active:      # a finished vmap's values batch nothing any more
            levels = tuple(lv for lv in levels if lv.active)
            break
    if levels:
        _mark(out, levels)
    return out


_handle = register_fallback(DispatchKey.FuncTorchBatched, _batched_fallback, site="openreg vmap")


_internal_dirs: tuple[str, ...] = ()


def _called_by_openreg() -> bool:
    """Whether the conversion was asked for by openreg's own code (the first frame outside the conversion methods)."""
    global _internal_dirs
    if not _internal_dirs:
        import openreg.backends
        _internal_dirs = tuple(os.path.join(d, "") for d in (os.path.dirname(__file__), *openreg.backends.__path__))
    here = (__file__, sys.modules[TensorBase.__module__].__file__)
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename in here:
        f = f.f_back
    return f is not None and f.f_code.co_filename.startswith(_internal_dirs)


def refuse(t: TensorBase, message: str) -> None:
    """Raises PyTorch's RuntimeError ``message`` when ``t`` is batched in a running ``vmap``."""
    if any(level.active for level in t._vmap_levels):
        raise RuntimeError(message)


def check(t: TensorBase, message: str) -> None:
    """``refuse`` when the program (not openreg's own code) asks for the value of ``t``."""
    if any(level.active for level in t._vmap_levels) and not _called_by_openreg():
        raise RuntimeError(message)
