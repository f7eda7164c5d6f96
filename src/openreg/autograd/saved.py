"""Saved tensors: what a backward formula keeps from the forward, with the version at save time.

Unpacking after an in-place change of the tensor (its version counter moved) raises PyTorch's error;
unpacking after the graph was freed raises the "backward through the graph a second time" error.

>>> import openreg
>>> x = openreg.ones(2, requires_grad=True)
>>> y = x * 1
>>> z = (y * y).sum()
>>> _ = y.add_(1)
>>> try:
...     z.backward()
... except RuntimeError as e:
...     print("modified by an inplace operation" in str(e))
True
"""
from __future__ import annotations

from .forward_grad import current_level as _fw_level
from .graph import WITH_AUTOGRAD, with_autograd_memo
from .inference import SAVE_MSG, InferenceVersion

FREED_MSG = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call "
             ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
             "graph a second time or if you need to access saved tensors after calling backward.")


def output_fields(t) -> tuple:
    """What a saved output keeps of ``t`` (no ``grad_fn``: the node holding it is ``t``'s, so keeping ``t``
    would make every recorded graph a reference cycle); ``_from_fields`` makes the tensor again."""
    return (t._storage, t._size, t._stride, t._offset, t._dtype, t._vc, t._base, t._qparams, t._arr, t._arr_src)


def _from_fields(f: tuple):
    """A plain ``Tensor`` over the saved elements, sharing their version counter and base (Tensor._make
    written out: one per unpacking of a saved output)."""
    out = _new(_Tensor or _tensor_class())
    storage, out._size, out._stride, out._offset, out._dtype, out._vc, base, qparams, out._arr, out._arr_src = f
    out._storage = storage
    out._base = base
    out._ks = (_KEYSETS if base is None else _VIEW_KEYSETS)[storage.device._type]
    out._rg = False
    out._grad_fn = None
    if qparams is not None:      # a class attribute otherwise: no instance __dict__
        out._qparams = qparams
    return out   # same geometry: the cached array view (_arr) stays valid


def _alias(t):
    """A plain ``Tensor`` over ``t``'s elements, sharing its version counter and base."""
    return _from_fields(output_fields(t))


_new = object.__new__
_KEYSETS = _VIEW_KEYSETS = None


_Tensor = None


def _tensor_class():
    """``openreg.Tensor``, imported on first use (tensor.py imports this module) and then held: a function-level
    import costs about a microsecond on every call."""
    global _Tensor, _KEYSETS, _VIEW_KEYSETS
    if _Tensor is None:
        from ..tensor import _KEYSETS, _VIEW_KEYSETS, Tensor
        _Tensor = Tensor
    return _Tensor


def _restore_tangent(saved, out) -> None:
    meta = getattr(saved, "fw_meta", None)   # unset when saved without a forward-AD level
    if meta is None:
        return
    level = _fw_level[0]
    tangent = meta.fw_grads.get(level)
    if tangent is not None:
        from .forward_grad import _store
        _store(out, tangent, level)


class SavedTensor:
    """One saved tensor. Outputs of the node are kept as their fields (``output_fields``: no ``grad_fn``, no
    reference cycle) and unpacked as a tensor whose ``grad_fn`` is the node."""

    __slots__ = ("data", "freed", "fw_meta", "is_output", "output_nr", "version")

    def __init__(self, t, is_output: bool = False) -> None:
        if type(t._vc) is InferenceVersion:
            raise RuntimeError(SAVE_MSG)
        self.freed = False
        self.version = t._vc.value
        if is_output:
            self.data = output_fields(t)
            self.output_nr = t._output_nr
            if _fw_level[0] >= 0:   # the output's tangent (set after saving) comes back with it: forward over reverse
                from .meta import get_meta
                self.fw_meta = get_meta(t)
        else:
            self.data = t
            self.output_nr = 0
        self.is_output = is_output

    def unpack(self, owner=None):
        if self.freed:
            raise RuntimeError(FREED_MSG)
        t = self.data
        if self.is_output:      # _from_fields(t) written out
            f = t
            t = _new(_Tensor or _tensor_class())
            storage, t._size, t._stride, t._offset, t._dtype, t._vc, base, qparams, t._arr, t._arr_src = f
            t._storage = storage
            t._base = base
            t._ks = (_KEYSETS if base is None else _VIEW_KEYSETS)[storage.device._type]
            t._rg = False
            t._grad_fn = None
            if qparams is not None:
                t._qparams = qparams
        if t._vc.value != self.version:
            owner_name = owner.name() if owner is not None else "a node"
            src = owner if self.is_output else t._grad_fn
            where = f", which is output {self.output_nr if self.is_output else t._output_nr} of " \
                    f"{src.name()}," if src is not None else ""
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{t.type()} {list(t.shape)}]{where} is at version {t._vc.value}; expected version "
                f"{self.version} instead. Hint: the backtrace further above shows the operation that failed to "
                f"compute its gradient (in {owner_name}). The variable in question was changed in there or "
                f"anywhere later. Good luck!")
        if self.is_output:
            out = t
            out._grad_fn = owner
            out._output_nr = self.output_nr
            if owner is not None:      # the _requires_grad setter, written out
                out._rg = True
                ks = out._ks
                out._ks = WITH_AUTOGRAD.get(ks) or with_autograd_memo(ks)
            if _fw_level[0] >= 0:
                _restore_tangent(self, out)
            return out
        return t

    def release(self) -> None:
        self.freed = True
        self.data = None
