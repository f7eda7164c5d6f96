"""Tensor's hand-written methods, as base classes that ``Tensor``'s class statement lists.

The methods of operator records are generated into ``OperatorMethods`` (``openreg/operators/``); the methods
written by hand live in per-concept mixins (``_tensor_methods_views.ViewMethods``,
``_tensor_methods_autograd.AutogradMethods``, ``DeviceMethods`` and ``DeferredMethods`` below). Nothing is added to ``Tensor`` after
its class statement has run.

>>> import openreg
>>> from openreg.tensor import Tensor
>>> [c.__name__ for c in Tensor.__mro__[1:4]]
['AutogradMethods', 'ViewMethods', 'DeviceMethods']
>>> (openreg.tensor([1.0, -2.0]) + 1).abs().tolist()
[2.0, 1.0]
"""
from __future__ import annotations

import importlib

from . import privateuse1_hooks
from .cuda_name import tensor_cuda


def mixin(name: str, methods: dict) -> type:
    """A method-only base class of ``Tensor`` holding ``methods`` (no instance state: empty ``__slots__``)."""
    return type(name, (), {"__slots__": (), "__module__": "openreg.tensor", **methods})


class deferred:
    """A method defined in a module that needs the finished ``Tensor`` class to import (DLPack); the function
    is imported on first use. Reading it from the class gives the function itself."""

    __slots__ = ("_fn", "_path")

    def __init__(self, path: str) -> None:
        self._path, self._fn = path, None

    def __get__(self, obj, owner=None):
        fn = self._fn
        if fn is None:
            module, _, attr = self._path.partition(":")
            fn = self._fn = getattr(importlib.import_module(module), attr)
        return fn if obj is None else fn.__get__(obj, owner)


def is_pinned(self, device=None) -> bool:
    """Whether this tensor's memory is page-locked (always False off the CPU).

    >>> import openreg
    >>> openreg.zeros(2).is_pinned()
    False
    """
    return privateuse1_hooks.storage_is_pinned(self._storage, device)


def pin_memory(self, device=None):
    """A copy of this CPU tensor in page-locked memory (``self`` when it already is pinned); needs the device
    backend, which provides the page-locked memory."""
    return privateuse1_hooks.get_hooks().pin_tensor(self, device)


def share_memory_(self):
    """Move this CPU tensor's storage to shared memory in place, so processes given the tensor share its memory
    (see ``openreg.multiprocessing``); returns self.

    >>> import openreg
    >>> openreg.zeros(2).share_memory_().is_shared()
    True
    """
    from .multiprocessing.reductions import share_storage
    share_storage(self._storage)
    return self


def is_shared(self) -> bool:
    """Whether this tensor's storage lives in shared memory (``share_memory_``)."""
    from .multiprocessing.reductions import is_shared as storage_is_shared
    return self._storage is not None and storage_is_shared(self._storage)


DeviceMethods = mixin("DeviceMethods", {"cuda": tensor_cuda, "is_pinned": is_pinned, "pin_memory": pin_memory,
                                        "share_memory_": share_memory_, "is_shared": is_shared})

DeferredMethods = mixin("DeferredMethods", {
    "__dlpack__": deferred("openreg.dlpack:__dlpack__"),
    "__dlpack_device__": deferred("openreg.dlpack:__dlpack_device__"),
    "new": deferred("openreg.legacy_tensor_types:new"),
    "apply_": deferred("openreg._tensor_legacy:apply_"),
    "map_": deferred("openreg._tensor_legacy:map_"),
    "hardshrink": deferred("openreg._functional_aliases:tensor_hardshrink"),
    "prelu": deferred("openreg._functional_aliases:tensor_prelu"),
    "positive": deferred("openreg._functional_aliases:tensor_positive"),
    "negative_": deferred("openreg._functional_aliases:negative_"),
    "stft": deferred("openreg._stft:stft"),
    "istft": deferred("openreg._stft:istft"),
    "lu": deferred("openreg._linalg_lu:lu_deprecated"),
    "lu_solve": deferred("openreg._linalg_lu:lu_solve_deprecated"),
    "gcd": deferred("openreg._math_extras:gcd"),
    "gcd_": deferred("openreg._math_extras:gcd_"),
    "lcm": deferred("openreg._math_extras:lcm"),
    "lcm_": deferred("openreg._math_extras:lcm_"),
    "ldexp": deferred("openreg._math_extras:ldexp"),
    "ldexp_": deferred("openreg._math_extras:ldexp_"),
    "frexp": deferred("openreg._math_extras:frexp"),
    "fix": deferred("openreg._math_extras:fix"),
    "fix_": deferred("openreg._math_extras:fix_"),
    "isreal": deferred("openreg._math_extras:isreal"),
    "vdot": deferred("openreg._math_extras:vdot"),
    "msort": deferred("openreg._math_extras:msort"),
    "cov": deferred("openreg._math_extras:cov"),
    "corrcoef": deferred("openreg._math_extras:corrcoef"),
    "renorm": deferred("openreg._math_extras:renorm"),
    "renorm_": deferred("openreg._math_extras:renorm_"),
    "narrow_copy": deferred("openreg._math_extras:narrow_copy"),
    "adjoint": deferred("openreg._math_extras:adjoint"),
    "absolute": deferred("openreg._math_extras:absolute"),
    "absolute_": deferred("openreg._math_extras:absolute_"),
    "is_signed": deferred("openreg._math_extras:is_signed"),
    "sum_to_size": deferred("openreg._math_extras:sum_to_size"),
    "divide_": deferred("openreg._math_extras:divide_"),
    "true_divide_": deferred("openreg._math_extras:true_divide_"),
    "multiply_": deferred("openreg._math_extras:multiply_"),
    "subtract_": deferred("openreg._math_extras:subtract_"),
    "greater_": deferred("openreg._math_extras:greater_"),
    "less_": deferred("openreg._math_extras:less_"),
    "greater_equal_": deferred("openreg._math_extras:greater_equal_"),
    "less_equal_": deferred("openreg._math_extras:less_equal_"),
    "not_equal_": deferred("openreg._math_extras:not_equal_"),
    "i0": deferred("openreg._math_extras:i0"),
    "i0_": deferred("openreg._math_extras:i0_"),
    "nextafter": deferred("openreg._math_extras:nextafter"),
    "nextafter_": deferred("openreg._math_extras:nextafter_"),
    "mvlgamma": deferred("openreg._math_extras:mvlgamma"),
    "mvlgamma_": deferred("openreg._math_extras:mvlgamma_"),
    **{name: deferred(f"openreg._tensor_queries:{fn}") for name, fn in (
        ("is_same_size", "is_same_size"), ("is_neg", "is_neg"), ("resolve_neg", "resolve_neg"),
        ("unsafe_chunk", "unsafe_chunk"), ("unsafe_split", "_tensor_unsafe_split"),
        ("unsafe_split_with_sizes", "unsafe_split_with_sizes"), ("record_stream", "record_stream"))},
    "storage": deferred("openreg.typed_storage:tensor_storage"),
    "output_nr": property(lambda self: self._output_nr, doc="Which output of its grad_fn this tensor is."),
})

__all__ = ["DeferredMethods", "DeviceMethods", "deferred", "mixin"]
