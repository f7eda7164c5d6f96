"""Tangent storage for forward-mode AD: per-level tangents on ``Tensor._ameta`` and PyTorch's layout rules.

* a tangent has the primal's metadata (size, strides, offset, storage size): otherwise it is copied into
  zeros of that layout;
* views read their tangent as the same view of their base's tangent (case 5: a base that received a tangent
  in place makes it visible to its views);
* an in-place op giving a view a tangent creates the base's tangent and writes through it (case 4).

>>> import openreg
>>> import openreg.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(openreg.zeros(3), openreg.ones(3))
...     fwAD.unpack_dual(x[1:]).tangent.tolist()
[1.0, 1.0]
"""
from __future__ import annotations

import threading

from .._dispatch.ops import A
from .meta import get_meta


class _FwState(threading.local):
    disabled = False


tls = _FwState()
current_level = [-1]          # the active dual level (-1: none); global as in PyTorch
_tracked: dict = {}            # level -> list of tensors holding a tangent (cleared on exit)
_tracked_lock = threading.Lock()


def has_same_meta(a, b) -> bool:
    if a._storage.nbytes() // a._dtype.itemsize != b._storage.nbytes() // b._dtype.itemsize:
        return False
    if tuple(a._size) != tuple(b._size):
        return False
    if a.numel() == 0:
        return True
    if a._offset != b._offset:
        return False
    for s, x, y in zip(a._size, a._stride, b._stride):
        if x != y and s not in (0, 1):
            return False
    return True


def new_zeros_same_meta(like, dtype=None):
    """Zeros whose storage size, strides and offset match ``like`` (``_new_zeros_with_same_feature_meta``)."""
    from ..storage import UntypedStorage
    from ..tensor import Tensor
    dtype = dtype or like._dtype
    numel = like._storage.nbytes() // like._dtype.itemsize
    storage = UntypedStorage(numel * dtype.itemsize, device=like.device)
    flat = Tensor._make(storage, (numel,), (1,), 0, dtype)
    A.zero_(flat)
    return Tensor._make(storage, like._size, like._stride, like._offset, dtype)


def fw_grad(t, level: int):
    """The tangent of ``t`` at ``level`` or None (symbolic zero)."""
    m = t._ameta
    g = m.fw_grads.get(level) if m is not None else None
    if g is not None or t._base is None or (m is not None and m.fw_detached):
        return g
    base = t._base
    bm = base._ameta
    bg = bm.fw_grads.get(level) if bm is not None else None
    if bg is None:
        return None
    g = A.as_strided(bg, tuple(t._size), tuple(t._stride), t._offset)
    _store(t, g, level)
    return g


def _store(t, tangent, level: int) -> None:
    get_meta(t).fw_grads[level] = tangent
    with _tracked_lock:
        _tracked.setdefault(level, []).append(t)


def set_fw_grad(t, tangent, level: int, is_inplace: bool = False) -> None:
    """Give ``t`` a tangent at ``level`` following the layout rules (see the module docstring)."""
    if tuple(tangent._size) != tuple(t._size):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(t._size)} while the given "
                           f"forward gradient is of size {list(tangent._size)}.")
    if tangent._dtype is not t._dtype:
        tangent = tangent.to(t._dtype)
    base = t._base
    if is_inplace and base is not None:
        bm = base._ameta
        if bm is None or bm.fw_grads.get(level) is None:
            if has_same_meta(tangent, base) and has_same_meta(tangent, t):
                new_base = tangent
            else:
                new_base = new_zeros_same_meta(base)
                view = A.as_strided(new_base, tuple(t._size), tuple(t._stride), t._offset)
                A.copy_(view, tangent)
                tangent = view
            _store(base, new_base, level)
    if not has_same_meta(tangent, t):
        res = new_zeros_same_meta(t)
        A.copy_(res, tangent)
        tangent = res
    _store(t, tangent, level)


def clear_level(level: int) -> None:
    with _tracked_lock:
        tensors = _tracked.pop(level, [])
    for t in tensors:
        m = t._ameta
        if m is not None:
            m.fw_grads.pop(level, None)
