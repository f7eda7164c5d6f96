"""Memory formats (``openreg.contiguous_format``, ``preserve_format``, ``channels_last``, ``channels_last_3d``).

A memory format names a stride order for a new tensor; ops taking ``memory_format=`` accept these objects
or their schema names (``"contiguous_format"`` ...).

>>> import openreg
>>> x = openreg.empty(2, 3, 4, 5, memory_format=openreg.channels_last)
>>> x.stride(), x.is_contiguous(memory_format=openreg.channels_last)
((60, 1, 15, 3), True)
"""
from __future__ import annotations

from ._array_bridge import _contiguous_cache, _contiguous_strides
from ._named_constant import NamedConstant


class memory_format(NamedConstant):
    """One memory format; compares equal to its schema name."""

    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
_ALL = {m.name: m for m in (contiguous_format, preserve_format, channels_last, channels_last_3d)}
_BY_CODE = (contiguous_format, preserve_format, channels_last, channels_last_3d)  # c10::MemoryFormat's values


def normalize(fmt) -> memory_format:
    """``None`` -> preserve_format; objects, names and PyTorch's integer codes -> the object; else TypeError."""
    if fmt is None:
        return preserve_format
    if isinstance(fmt, memory_format):
        return fmt
    if isinstance(fmt, str) and fmt in _ALL:
        return _ALL[fmt]
    if isinstance(fmt, int) and not isinstance(fmt, bool) and 0 <= fmt < len(_BY_CODE):
        return _BY_CODE[fmt]
    raise TypeError(f"memory_format must be an openreg.memory_format, not {type(fmt).__name__}")


def strides_for(size, fmt: memory_format) -> tuple:
    """Strides (in elements) of a dense tensor of ``size`` laid out in ``fmt`` (not preserve_format)."""
    n = len(size)
    if fmt is channels_last or fmt is channels_last_3d:
        want = 4 if fmt is channels_last else 5
        if n != want:
            raise RuntimeError(f"required rank {want} tensor to use {fmt.name} format")
        # Order (fastest first): C, then spatial dims from last to first, then N.
        order = [1] + list(range(n - 1, 1, -1)) + [0]
        stride = [0] * n
        acc = 1
        for d in order:
            stride[d] = acc
            acc *= max(size[d], 1)
        return tuple(stride)
    return _contiguous_strides(tuple(size))


def is_dense_nonoverlapping(size, stride) -> bool:
    """Whether the elements fill a contiguous block exactly once (any dim order)."""
    dims = sorted((st, sz) for sz, st in zip(size, stride) if sz != 1)
    expected = 1
    for st, sz in dims:
        if sz == 0:
            return True
        if st != expected:
            return False
        expected *= sz
    return True


def preserved_strides(t) -> tuple:
    """PyTorch's preserve_format rule: keep ``t``'s strides when dense and non-overlapping, else contiguous."""
    stride = t._stride
    if stride == _contiguous_cache.get(t._size):  # the common case: already row-major
        return stride
    from .tensor import contiguous_strides
    if is_dense_nonoverlapping(t._size, stride):
        return tuple(t._stride)
    return contiguous_strides(t._size)


def _strides_like(size, stride, order) -> bool:
    """PyTorch's ``is_channels_last_strides_2d`` / ``_3d`` heuristic over the dims in ``order`` (fastest first)."""
    if stride[1] == 0:            # a broadcast channel dim: NCHW by default
        return False
    least = 0
    for d in order:
        if size[d] == 0 or stride[d] < least:
            return False
        if d == 0 and least == stride[1]:   # N111 and sliced N11W tensors: ambiguous, NCHW
            return False
        least = stride[d] * size[d] if size[d] > 1 else stride[d]
    return True


def suggest_memory_format(t) -> memory_format:
    """PyTorch's ``Tensor::suggest_memory_format()``: channels_last (channels_last_3d) for a 4-d (5-d) tensor whose
    strides order its dims like that format, else contiguous_format.

    >>> import openreg
    >>> suggest_memory_format(openreg.empty(2, 3, 4, 5, memory_format=openreg.channels_last)).name
    'channels_last'
    >>> suggest_memory_format(openreg.empty(2, 3, 1, 1)).name
    'contiguous_format'
    """
    n = len(t._size)
    if n == 4 and _strides_like(t._size, t._stride, (1, 3, 2, 0)):
        return channels_last
    if n == 5 and _strides_like(t._size, t._stride, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format
