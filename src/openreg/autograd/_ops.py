"""Small helpers the autograd package uses to build tensors through the dispatcher (so that they are
recorded under ``create_graph``).

>>> import openreg
>>> from openreg.autograd._ops import zeros_with_geometry
>>> zeros_with_geometry(openreg.ones(2, 3).t()).stride()
(1, 3)
"""
from __future__ import annotations

from .._array_bridge import wrap_array
from .._dispatch.ops import A
from ..operators._host_path import plain_cpu_arrays
from ..operators.reduction import host_sum


def zeros_with_geometry(t, size=None, stride=None, dtype=None):
    """Zeros with ``t``'s sizes, strides and dtype (or the given ones), offset 0, on ``t``'s device."""
    size = tuple(t._size) if size is None else tuple(size)
    stride = tuple(t._stride) if stride is None else tuple(stride)
    out = A.empty_strided(size, stride, dtype=t._dtype if dtype is None else dtype, device=t.device)
    return A.zero_(out)


def clone_like(g, like):
    """A copy of ``g`` with ``like``'s strides when ``like`` is dense, else contiguous."""
    from ..memory_format import is_dense_nonoverlapping
    dense = is_dense_nonoverlapping(like._size, like._stride)
    stride = like._stride if dense and tuple(g._size) == tuple(like._size) else None
    if stride is None:
        from ..tensor import contiguous_strides
        stride = contiguous_strides(g._size)
    out = A.empty_strided(tuple(g._size), tuple(stride), dtype=g._dtype, device=g.device)
    return A.copy_(out, g)


def sum_to(g, size):
    """Reduce ``g`` by summation to ``size`` (the inverse of broadcasting)."""
    size = tuple(size)
    gs = tuple(g._size)
    if gs == size:
        return g
    lead = len(gs) - len(size)
    dims = list(range(lead))
    for i, s in enumerate(size):
        if s == 1 and gs[lead + i] != 1:
            dims.append(lead + i)
    if dims and len(dims) == lead:   # only broadcast leading dims: one reduction, no view
        arrays = plain_cpu_arrays(A.sum__dim_IntList, g)
        if arrays is not None:      # a bias gradient in a backward pass: the operator's sum, on the array
            return wrap_array(host_sum(arrays[0], tuple(dims), arrays[0].dtype), g._dtype)
        return A.sum__dim_IntList(g, dims, False)
    if dims:
        g = A.sum__dim_IntList(g, dims, True)
    if lead or tuple(g._size) != size:
        g = A.view(g, size) if g.is_contiguous() else A.view(clone_like(g, g), size)
    return g


def expandable_to(shape, desired) -> bool:
    """Whether ``shape`` broadcasts to ``desired``."""
    if len(shape) > len(desired):
        return False
    for i in range(1, len(shape) + 1):
        if shape[-i] != desired[-i] and shape[-i] != 1:
            return False
    return True
