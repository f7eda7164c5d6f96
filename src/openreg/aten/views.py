"""View kernels: new tensors over the same storage, for every backend (CompositeExplicitAutograd).

A view shares its base's storage and version counter and records the base (``t._base``).

>>> import openreg
>>> t = openreg.arange(6.0)
>>> v = t.view(2, 3)
>>> v.untyped_storage() is t.untyped_storage(), v.stride()
(True, (3, 1))
"""
from __future__ import annotations

from ..storage_bounds import check_in_bounds as check_storage_bounds
from ..storage_bounds import check_numel, check_view_args
from ..tensor import Size
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from .meta_rules import fmt_shape


def below_inplace_or_view():
    """Context manager: nested ops skip ADInplaceOrView (the outer in-place/out= op bumps the version once),
    PyTorch's AutoDispatchBelowADInplaceOrView."""
    from .._dispatch import tls
    from .._dispatch.keys import DispatchKey
    return tls.exclude_keys(1 << DispatchKey.ADInplaceOrView)


def fresh(t: Tensor) -> Tensor:
    """A tensor a composite kernel just allocated and filled: its writes were internal, so version 0."""
    t._vc.value = 0
    return t


def make_view(self: Tensor, size, stride, offset: int) -> Tensor:
    """A view of ``self``'s storage with new metadata; shares the version counter."""
    base = self._base if self._base is not None else self
    out = Tensor._make(self._storage, Size(size), tuple(stride), offset, self._dtype, self._vc, base)
    if self._qparams is not None:
        out._qparams = self._qparams
    return out


def infer_size(op: str, shape, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape`` against ``numel`` elements."""
    shape = list(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {fmt_shape(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0 or numel % known != 0:
            raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {numel}")
        shape[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def compute_view_stride(old_size, old_stride, new_size):
    """Strides for viewing (old_size, old_stride) as new_size without a copy, or None if impossible.

    Follows PyTorch's computeStride: each run of old dims that is contiguous in memory may be re-split.
    """
    numel = 1
    for s in old_size:
        numel *= s
    if numel == 0:
        if tuple(old_size) == tuple(new_size):
            return tuple(old_stride)
        from ..tensor import contiguous_strides
        return contiguous_strides(new_size)
    if not old_size or not new_size:  # one element: any shape of ones is a view
        from ..tensor import contiguous_strides
        return contiguous_strides(new_size)
    new_stride = [0] * len(new_size)
    view_d = len(new_size) - 1
    chunk_base_stride = old_stride[-1] if old_stride else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_size) - 1, -1, -1):
        tensor_numel *= old_size[tensor_d]
        if tensor_d == 0 or (old_size[tensor_d - 1] != 1 and
                             old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_size[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_size[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _contiguous_strides_if(old_size: tuple, old_stride: tuple, new_size: tuple):
    """Fast path of compute_view_stride: a contiguous input views as any shape with contiguous strides."""
    expected = 1
    for sz, st in zip(reversed(old_size), reversed(old_stride)):
        if sz != 1 and st != expected:
            return None
        expected *= sz
    strides, acc = [], 1
    for sz in reversed(new_size):
        strides.append(acc)
        acc *= max(1, sz)
    strides.reverse()
    return tuple(strides)


_VIEW_CACHE: dict = {}  # (sizes, strides, requested) -> (sizes, strides) of successful views


def view(self: Tensor, size) -> Tensor:
    key = (self._size, self._stride, size if type(size) is tuple else tuple(size))
    hit = _VIEW_CACHE.get(key)
    if hit is not None:
        return make_view(self, hit[0], hit[1], self._offset)
    old = tuple(self._size)  # plain tuples: Size's Python __getitem__ is slow in loops
    numel = 1
    for s in old:
        numel *= s
    known = 1
    for s in size:
        if s < 0:
            known = -1
            break
        known *= s
    size = tuple(size) if known == numel else infer_size("view", size, numel)
    stride = None
    if numel:
        stride = _contiguous_strides_if(old, self._stride, size)
    if stride is None:
        stride = compute_view_stride(old, self._stride, size)
    if stride is None:
        raise RuntimeError(NOT_VIEWABLE + " (at least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    if len(_VIEW_CACHE) > 4096:
        _VIEW_CACHE.clear()
    _VIEW_CACHE[key] = (Size(size), stride)
    return make_view(self, size, stride, self._offset)


def check_size_nonnegative(size) -> None:
    """PyTorch's message for a negative size in a factory or resize (no operator prefix)."""
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {fmt_shape(size)}")


NOT_VIEWABLE = "view size is not compatible with input tensor's size and stride"


def check_in_bounds(op: str, self: Tensor, size, stride, offset: int) -> None:
    """as_strided's checks: valid arguments, and (off meta) a view that fits in ``self``'s storage."""
    check_view_args(op, size, stride, offset)
    if not self.is_meta:
        check_storage_bounds(size, stride, offset, self._dtype.itemsize, self._storage.nbytes())
    check_numel(size)


def as_strided(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    offset = self._offset if storage_offset is None else storage_offset
    check_in_bounds("as_strided", self, size, stride, offset)
    return make_view(self, size, stride, offset)


KERNELS = {"view": view, "as_strided": as_strided}
