"""Inference tensors: tensors created while ``inference_mode`` is on, as PyTorch's.

They track no version: an in-place update outside inference mode raises (after the update, as PyTorch), saving
one for backward raises, and ``requires_grad_(True)`` outside inference mode raises. Views of an inference tensor
are inference tensors; results of ops on them outside inference mode are normal tensors.

Marking costs nothing outside inference mode: while at least one thread is inside ``inference_mode``,
``openreg.tensor.new_version`` is swapped for a chooser that gives new tensors of that thread the shared
no-version counter (views share their base's counter, so they inherit it).

>>> import openreg
>>> with openreg.inference_mode():
...     i = openreg.ones(2)
>>> i.is_inference(), (i * 2).is_inference(), openreg.ones(1).is_inference()
(True, False, False)
>>> try:
...     _ = i.add_(1)
... except RuntimeError as e:
...     print("Inplace update to inference tensor outside InferenceMode" in str(e))
True
"""
from __future__ import annotations

import sys
import threading

from .grad_mode import state

INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
               "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
               "more details.")
SAVE_MSG = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
            "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
            "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
REQUIRES_GRAD_MSG = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


class InferenceVersion:
    """The version counter of inference tensors: always 0; bumping it outside inference mode raises."""

    __slots__ = ()

    @property
    def value(self) -> int:
        return 0

    @value.setter
    def value(self, _v: int) -> None:
        if not state.inference:
            raise RuntimeError(INPLACE_MSG)


_NO_VERSION = InferenceVersion()
_lock = threading.Lock()
_active = [0]


def is_inference(t) -> bool:
    """Whether ``t`` was created in inference mode (or is a view of such a tensor)."""
    return type(t._vc) is InferenceVersion


def check_savable(t) -> None:
    """Raise PyTorch's error when an inference tensor is about to be saved for backward."""
    if type(t._vc) is InferenceVersion:
        raise RuntimeError(SAVE_MSG)


def _version_in_inference_mode():
    """The version counter of a new tensor while some thread is in inference mode: none in that thread."""
    from ..tensor import _Version
    return _NO_VERSION if state.inference else _Version()


def _tensor_module():
    return sys.modules["openreg.tensor"]   # ``openreg.tensor`` the attribute is the factory function


def enter() -> None:
    """A thread entered inference mode: new tensors it creates become inference tensors."""
    tensor = _tensor_module()
    with _lock:
        _active[0] += 1
        if _active[0] == 1:
            tensor.new_version = _version_in_inference_mode


def leave() -> None:
    """A thread left inference mode; the last one out restores the plain version counter."""
    tensor = _tensor_module()
    with _lock:
        _active[0] -= 1
        if _active[0] == 0:
            tensor.new_version = tensor._Version
