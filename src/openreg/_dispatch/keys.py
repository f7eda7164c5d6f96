"""Dispatch keys and key sets.

A key set is a plain ``int`` bit mask: bit ``k`` is set when ``DispatchKey(k)`` is present. A larger key
value means a higher priority, as in PyTorch (backends < BackendSelect < Python < ADInplaceOrView <
Autograd<Backend>), so the key to run is the highest set bit.

>>> from openreg._dispatch.keys import DispatchKey, keyset, highest_key
>>> highest_key(keyset(DispatchKey.CPU, DispatchKey.AutogradCPU)).name
'AutogradCPU'
"""
from __future__ import annotations

import enum


class DispatchKey(enum.IntEnum):
    """Runtime keys (they appear in key sets) followed by alias keys (registration only)."""

    Undefined = 0
    # Backends, PyTorch's relative order: CPU < PrivateUse1 < Meta.
    CPU = 1
    PrivateUse1 = 2
    Meta = 3
    BackendSelect = 4
    Python = 5
    ADInplaceOrView = 6
    AutogradOther = 7
    AutogradCPU = 8
    AutogradPrivateUse1 = 9
    AutogradMeta = 10
    # Autocast sits above autograd, as in PyTorch's DispatchKey.h (Autograd* < Tracer < Autocast* < wrappers <
    # PythonTLSSnapshot): its kernels cast the inputs and call the op again with autocast excluded, so the casts
    # themselves pass through autograd and are recorded; gradients flow back through them in the original
    # dtypes, and lower-precision ops save their inputs in the lower precision. CPU < PrivateUse1 as in PyTorch.
    AutocastCPU = 11
    AutocastPrivateUse1 = 12
    PythonTLSSnapshot = 13
    # Alias keys: never in a key set; a kernel registered at one fills several runtime slots.
    Autograd = 32
    CompositeImplicitAutograd = 33
    CompositeExplicitAutograd = 34
    CompositeExplicitAutogradNonFunctional = 35
    CatchAll = 36


K = DispatchKey
BACKEND_KEYS = (K.CPU, K.PrivateUse1, K.Meta)
AUTOGRAD_KEYS = (K.AutogradCPU, K.AutogradPrivateUse1, K.AutogradMeta)
AUTOGRAD_OF_BACKEND = {K.CPU: K.AutogradCPU, K.PrivateUse1: K.AutogradPrivateUse1, K.Meta: K.AutogradMeta}
BACKEND_OF_AUTOGRAD = {v: k for k, v in AUTOGRAD_OF_BACKEND.items()}
RUNTIME_KEYS = tuple(k for k in DispatchKey if 0 < k < 32)
ALIAS_KEYS = (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd,
              K.CompositeExplicitAutogradNonFunctional, K.CatchAll)


def keyset(*keys: DispatchKey) -> int:
    """The bit mask holding ``keys``."""
    mask = 0
    for k in keys:
        mask |= 1 << k
    return mask


def highest_key(ks: int) -> DispatchKey:
    """The highest-priority key in a non-empty key set."""
    return DispatchKey(ks.bit_length() - 1)


def keys_of(ks: int) -> list[DispatchKey]:
    """The keys of a key set, highest priority first."""
    return [k for k in reversed(RUNTIME_KEYS) if ks >> k & 1]


AUTOGRAD_MASK = keyset(*AUTOGRAD_KEYS, K.AutogradOther)
# What stays after the autograd layer has run: PyTorch's "after autograd" key set.
AFTER_AUTOGRAD_MASK = (1 << K.AutogradOther) - 1
AFTER_ADINPLACE_MASK = (1 << K.ADInplaceOrView) - 1


AUTOCAST_OF_BACKEND = {K.CPU: K.AutocastCPU, K.PrivateUse1: K.AutocastPrivateUse1}
# Autocast keys are excluded on every thread until autocast is enabled for their device (PyTorch's default
# excluded set); an autocast kernel excludes them all while it runs the op.
AUTOCAST_MASK = keyset(K.AutocastCPU, K.AutocastPrivateUse1)


def tensor_keyset(backend: DispatchKey) -> int:
    """The key set a tensor of ``backend`` carries: backend, ADInplaceOrView, its autograd and autocast keys."""
    autocast = AUTOCAST_OF_BACKEND.get(backend)
    return keyset(backend, K.ADInplaceOrView, AUTOGRAD_OF_BACKEND[backend], *(() if autocast is None else (autocast,)))
