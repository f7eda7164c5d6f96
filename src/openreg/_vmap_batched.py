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


_depth = [0]      # running vmap levels (PyTorch numbers them from 1)


class BatchedLevel:
    """One running ``vmap`` (a context manager; nested ``vmap`` calls each have one) over ``size`` elements."""

    def __init__(self, size: int = 0) -> None:
        self.active = False
        self.size = size
        self.number = 0
        self.alone = (self,)     # the levels of what only this level batched (one tuple, shared: compared by `is`)

    def __enter__(self) -> BatchedLevel:  # noqa: PYI034
        self.active = True
        _depth[0] += 1
        self.number = _depth[0]
        return self

    def __exit__(self, *exc) -> None:
        self.active = False
        _depth[0] -= 1

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
    levels = _levels(args, ())
    if kwargs:
        levels = _levels(kwargs.values(), levels)
    if levels and op._schema.is_mutable and not _inside[0]:
        _check_write(op, args, kwargs, levels)
    _inside[0] += 1     # the calls the operator's kernel makes are its own business
    try:
        out = op.redispatch_fn(ks & ~_BIT, *args, **kwargs)
    finally:
        _inside[0] -= 1
    if not levels:
        return out
    for lv in levels:
        if not lv.active:      # a finished vmap's values batch nothing any more
            levels = tuple(lv for lv in levels if lv.active)
            break
    if levels:
        _mark(out, levels)
    return out


# PyTorch's batching rules that name the in-place family or the bare operator, and those whose error is
# TensorIterator's (add_ broadcasts the batched operand into self); the fallback names "aten::<op>" "at level n".
_ARITHMETIC = frozenset(("sub_", "mul_", "div_", "copy_", "masked_fill_.Scalar"))
_BARE = frozenset(("index_add_", "index_put_", "fill_"))
_BROADCAST = frozenset(("add_", "atan2_"))


def _check_write(op, args, kwargs, levels) -> None:
    """PyTorch's refusal to write batched values into a tensor that is not batched at the same levels (a tensor
    ``func`` captured, or made without batched inputs), where one run of ``func`` would have to hold every element
    in it. openreg's own composites, which write into fresh tensors, are left alone."""
    active = [lv for lv in levels if lv.active]
    if not active:
        return
    schema = op._schema
    for i, arg in enumerate(schema.arguments):
        if not arg.is_write:
            continue
        t = kwargs.get(arg.name) if arg.kwarg_only or i >= len(args) else args[i]
        if not isinstance(t, TensorBase):
            continue
        missing = [lv for lv in active if lv not in t._vmap_levels]
        if not missing or not _called_by_program():
            continue
        name = schema.name if not schema.overload_name else f"{schema.name}.{schema.overload_name}"
        short = schema.name.split("::")[-1]
        if arg.kwarg_only:
            raise RuntimeError(f"Batching rule not implemented for {name}; the fallback path doesn't work on out= "
                               f"or view ops.")
        if short in _BROADCAST:
            from .tensor import Size
            others = [a.shape for a in args[1:] if isinstance(a, TensorBase)]
            shape = _broadcast(t.shape, *others)
            raise RuntimeError(f"output with shape {list(t.shape)} doesn't match the broadcast shape "
                               f"{[lv.size for lv in missing] + list(Size(shape))}")
        if short in _ARITHMETIC or f"{short}.{schema.overload_name}" in _ARITHMETIC:
            what, where = "inplace arithmetic", "in a vmap"
        elif short in _BARE:
            what, where = short, "in a vmap"
        else:
            what, where = schema.name, f"at level {max(lv.number for lv in missing)}"
        raise RuntimeError(f"vmap: {what}(self, *extra_args) is not possible because there exists a Tensor `other` "
                           f"in extra_args that has more elements than `self`. This happened due to `other` being "
                           f"vmapped over but `self` not being vmapped over {where}. Please try to use out-of-place "
                           f"operators instead of {what}. If said operator is being called inside the PyTorch "
                           f"framework, please file a bug report instead.")


_inside = [0]      # batched operator calls running (their kernels' own calls are not checked)
# openreg's dispatch plumbing between a program's call and the fallback: Tensor methods, operator wrappers
_PLUMBING = ("_dispatch", "operators", "tensor.py", "_tensor_methods", "_indexing.py", "_vmap_batched.py",
             "_inplace_functions.py", "_functional_aliases.py")


def _called_by_program() -> bool:
    """Whether the program itself (not an openreg function written with operators) made this operator call."""
    import openreg
    root = os.path.join(os.path.dirname(openreg.__file__), "")
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if name.startswith("<openreg"):
            f = f.f_back
            continue
        if not name.startswith(root):
            return True
        if not name[len(root):].startswith(_PLUMBING):
            return False
        f = f.f_back
    return True


def _broadcast(*shapes) -> tuple:
    import numpy as np
    return np.broadcast_shapes(*(tuple(s) for s in shapes))


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
