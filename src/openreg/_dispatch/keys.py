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
    # Backends, PyTorch's relative order: CPU < PrivateUse1 < Meta (dense) < SparseCPU < SparsePrivateUse1. A
    # sparse COO tensor carries its Sparse<backend> key instead of the dense one (and the dense backend's autograd
    # key), so any call with a sparse argument reaches the sparse kernels, or fails naming the sparse backend.
    CPU = 1
    PrivateUse1 = 2
    Meta = 3
    SparseCPU = 4
    SparsePrivateUse1 = 5
    BackendSelect = 6
    Python = 7
    ADInplaceOrView = 8
    AutogradOther = 9
    AutogradCPU = 10
    AutogradPrivateUse1 = 11
    AutogradMeta = 12
    # Autocast sits above autograd, as in PyTorch's DispatchKey.h (Autograd* < Tracer < Autocast* < wrappers <
    # PythonTLSSnapshot): its kernels cast the inputs and call the op again with autocast excluded, so the casts
    # themselves pass through autograd and are recorded; gradients flow back through them in the original
    # dtypes, and lower-precision ops save their inputs in the lower precision. CPU < PrivateUse1 as in PyTorch.
    AutocastCPU = 13
    AutocastPrivateUse1 = 14
    PythonTLSSnapshot = 15
    # Not in PyTorch: carried instead of Autograd<Backend> by a tensor autograd has no work on (no requires_grad,
    # grad_fn, tangent or view). A call whose tensors all carry it skips openreg's own autograd kernels (no-ops
    # for such tensors) and reaches the backend directly, but still runs a kernel a library registered at an
    # autograd key, since PyTorch runs those for every tensor. Part of AUTOGRAD_MASK: excluding autograd
    # excludes it too; it never selects a kernel itself.
    AutogradNotNeeded = 16
    # Carried by the values batched in a running vmap (openreg/_vmap_batched.py): its fallback runs the call below
    # it and marks the results batched too. Above every other key, as PyTorch's FuncTorchBatched is above autograd
    # and autocast.
    FuncTorchBatched = 17
    # Alias keys: never in a key set; a kernel registered at one fills several runtime slots.
    Autograd = 32
    CompositeImplicitAutograd = 33
    CompositeExplicitAutograd = 34
    CompositeExplicitAutogradNonFunctional = 35
    CatchAll = 36


K = DispatchKey
BACKEND_KEYS = (K.CPU, K.PrivateUse1, K.Meta)
SPARSE_KEYS = (K.SparseCPU, K.SparsePrivateUse1)
SPARSE_OF_BACKEND = {K.CPU: K.SparseCPU, K.PrivateUse1: K.SparsePrivateUse1}
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


AUTOGRAD_KEYS_MASK = keyset(*AUTOGRAD_KEYS, K.AutogradOther)
AUTOGRAD_MASK = AUTOGRAD_KEYS_MASK | keyset(K.AutogradNotNeeded)
# What stays after the autograd layer has run: PyTorch's "after autograd" key set.
AFTER_AUTOGRAD_MASK = (1 << K.AutogradOther) - 1
AFTER_ADINPLACE_MASK = (1 << K.ADInplaceOrView) - 1


AUTOCAST_OF_BACKEND = {K.CPU: K.AutocastCPU, K.PrivateUse1: K.AutocastPrivateUse1}
# Autocast keys are excluded on every thread until autocast is enabled for their device (PyTorch's default
# excluded set); an autocast kernel excludes them all while it runs the op.
AUTOCAST_MASK = keyset(K.AutocastCPU, K.AutocastPrivateUse1)


BACKEND_MASK = keyset(*BACKEND_KEYS)
SPARSE_MASK = keyset(*SPARSE_KEYS)
# Every backend key moved up by this many bits is its autograd key (CPU -> AutogradCPU, ...); a sparse key
# moved up by the second shift is the autograd key of its dense backend (SparseCPU -> AutogradCPU), as in PyTorch.
_AUTOGRAD_SHIFT = K.AutogradCPU - K.CPU
_SPARSE_AUTOGRAD_SHIFT = K.AutogradCPU - K.SparseCPU
assert all(AUTOGRAD_OF_BACKEND[b] == b + _AUTOGRAD_SHIFT for b in BACKEND_KEYS)
assert all(AUTOGRAD_OF_BACKEND[b] == s + _SPARSE_AUTOGRAD_SHIFT for b, s in SPARSE_OF_BACKEND.items())


def tensor_keyset(backend: DispatchKey, autograd: bool = False) -> int:
    """The key set a tensor of ``backend`` carries: backend, ADInplaceOrView and autocast keys, and its autograd
    key only when ``autograd`` (the tensor requires grad, carries a tangent or is a view): calls whose tensors
    have none skip the autograd layer entirely.

    >>> tensor_keyset(DispatchKey.CPU) & AUTOGRAD_KEYS_MASK, bool(tensor_keyset(DispatchKey.CPU, True) & AUTOGRAD_KEYS_MASK)
    (0, True)
    """
    autocast = AUTOCAST_OF_BACKEND.get(backend)   # none for sparse keys: autocast has no sparse kernels
    ks = keyset(backend, K.ADInplaceOrView, K.AutogradNotNeeded, *(() if autocast is None else (autocast,)))
    return with_autograd(ks) if autograd else ks


_NOT_NEEDED = 1 << K.AutogradNotNeeded


def with_autograd(ks: int) -> int:
    """``ks`` with the autograd key of each of its backends (instead of AutogradNotNeeded).

    >>> keys_of(with_autograd(keyset(DispatchKey.CPU, DispatchKey.AutogradNotNeeded)))
    [<DispatchKey.AutogradCPU: 10>, <DispatchKey.CPU: 1>]
    """
    return (ks | (ks & BACKEND_MASK) << _AUTOGRAD_SHIFT | (ks & SPARSE_MASK) << _SPARSE_AUTOGRAD_SHIFT) & ~_NOT_NEEDED
