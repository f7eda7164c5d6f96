"""Per-tensor autograd metadata kept in ``Tensor._ameta`` (created lazily, most tensors never need one).

Holds the tensor's hooks, ``retain_grad`` state, the leaf's gradient accumulator (weakly), post-accumulate
hooks, forward-mode tangents per level and the version at which a view's history was recorded.

>>> import openreg
>>> from openreg.autograd.meta import get_meta
>>> t = openreg.ones(1)
>>> get_meta(t).fw_grads
{}
"""
from __future__ import annotations

import threading

from .._dispatch.keys import with_autograd


class AutogradMeta:
    """Autograd state of one tensor beyond the fields that live on ``Tensor`` itself."""

    __slots__ = (
        "custom_function_view",
        "fw_detached",
        "fw_grads",
        "grad_acc",
        "hooks",
        "lock",
        "multi_output_view",
        "no_grad_view",
        "post_acc_hooks",
        "retains_grad",
        "view_version",
    )

    def __init__(self) -> None:
        self.hooks: list = []             # tensor pre-hooks: fn(grad) -> grad | None
        self.retains_grad = False
        self.grad_acc = None              # weakref to the leaf's AccumulateGrad node
        self.post_acc_hooks: list = []
        self.fw_grads: dict = {}          # level -> tangent
        self.view_version = -1            # version at which a view's grad_fn was recorded
        self.multi_output_view = None     # name of the node when created by unbind/split/chunk
        self.no_grad_view = False
        self.custom_function_view = None  # name of the custom Function that returned this view
        self.fw_detached = False          # unpack_dual's primal: never reads its base's tangent
        self.lock = None                  # a leaf's lock for its .grad updates (made with its first accumulator)


_create_lock = threading.Lock()

WITH_AUTOGRAD: dict = {}    # key set -> with_autograd(key set), memoised (a dict lookup costs less than the call)


def with_autograd_memo(ks: int) -> int:
    """``with_autograd(ks)``, remembered: ``WITH_AUTOGRAD.get(ks) or with_autograd_memo(ks)`` is the
    ``_requires_grad = True`` setter's key-set update where a node is recorded or a saved output unpacked."""
    r = WITH_AUTOGRAD[ks] = with_autograd(ks)
    return r


def get_meta(t) -> AutogradMeta:
    """The tensor's AutogradMeta, creating it on first use."""
    m = t._ameta
    if m is None:
        with _create_lock:
            m = t._ameta
            if m is None:
                m = t._ameta = AutogradMeta()
                # Hooks, tangents, view kinds: autograd has work on this tensor, so calls must reach it.
                ks = t._ks
                t._ks = WITH_AUTOGRAD.get(ks) or with_autograd_memo(ks)
    return m
