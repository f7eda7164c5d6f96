"""View geometry shared by the view operators (``openreg/operators/views.py``) and the composite kernels:
``make_view`` (a tensor over the same storage, sharing the version counter), the no-copy stride rule, size
inference, bounds checks, and the composite kernels' version helpers (``fresh``, ``below_inplace_or_view``).

>>> import openreg
>>> t = openreg.arange(6.0)
>>> v = make_view(t, (2, 3), (3, 1), 0)
>>> v.untyped_storage() is t.untyped_storage(), v._base is t, compute_view_stride((2, 3), (3, 1), (3, 2))
(True, True, (2, 1))
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
