"""``equal`` (same size and values), ``masked_select`` (the elements where a broadcast bool mask holds, as 1-D)
and ``meshgrid`` (coordinate grids, ``indexing="ij"`` or ``"xy"``).

Compositions of existing ops (``eq``/``all``, boolean indexing, ``view``/``expand``), so gradients and every
device come from them; ``meshgrid`` returns expanded views as PyTorch does. Test scripts compare results with
``torch.equal``; detection and positional-encoding code builds grids with ``meshgrid``.

>>> import openreg
>>> openreg.equal(openreg.ones(2), openreg.ones(2, dtype=openreg.float64))
True
>>> openreg.masked_select(openreg.arange(4), openreg.tensor([True, False, True, False])).tolist()
[0, 2]
>>> [g.tolist() for g in openreg.meshgrid(openreg.arange(2), openreg.arange(3), indexing="ij")]
[[[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]]]
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import common_device
from ..tensor import TensorBase as Tensor
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _equal(self, other) -> bool:
    common_device("equal", self, other)
    if self._vmap_levels or other._vmap_levels:       # a bool of batched values (PyTorch has no batching rule)
        from .._vmap_batched import refuse
        for t in (self, other):
            refuse(t, "Batching rule not implemented for aten::equal. We could not generate a fallback.")
    if tuple(self.shape) != tuple(other.shape):
        return False
    return bool(A.all(A.eq__Tensor(self, other)).item())


def _masked_select(self, mask):
    if mask.dtype is not _dt.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    common_device("masked_select", self, mask)
    s, m = A.broadcast_tensors([self, mask])
    return s[m]


def _meshgrid(tensors, indexing: str = "ij"):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    out = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        out.append(A.expand(A.view(t, view), shape))
    if swap:  # the grids of the swapped inputs, handed back in the inputs' order
        out[0], out[1] = out[1], out[0]
    return out


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids of 0-D/1-D tensors (given separately or as one list): ``indexing="ij"`` gives the
    inputs' order as dimensions, ``"xy"`` swaps the first two; without ``indexing`` PyTorch's warning and
    ``"ij"``.

    >>> import openreg
    >>> x, y = openreg.meshgrid(openreg.arange(3), openreg.arange(2), indexing="xy")
    >>> tuple(x.shape), y.tolist()
    ((2, 3), [[0, 0, 0], [1, 1, 1]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): expected Tensor as element of argument 'tensors', but got "
                            f"{type(t).__name__}")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        return tuple(A.meshgrid(list(tensors)))
    return tuple(A.meshgrid__indexing(list(tensors), indexing=indexing))


equal = Op("equal", "equal(Tensor self, Tensor other) -> bool", kernels={"equal": {CIA: _equal}},
           doc="""Whether two tensors have the same size and the same values (of any dtypes).

    >>> import openreg
    >>> openreg.equal(openreg.tensor([1, 2]), openreg.tensor([1, 3]))
    False
    """)

masked_select = Op(
    "masked_select", "masked_select(Tensor self, Tensor mask) -> Tensor", kernels={"masked_select": {CIA: _masked_select}},
    doc="""The elements of ``input`` where the bool ``mask`` (broadcast with it) is true, as a 1-D tensor.

    >>> import openreg
    >>> openreg.masked_select(openreg.arange(6).reshape(2, 3), openreg.tensor([[True], [False]])).tolist()
    [0, 1, 2]
    """)

meshgrid_op = Op(
    "meshgrid",
    """
    meshgrid(Tensor[] tensors) -> Tensor[]
    meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
    """,
    kernels={"meshgrid": {CIA: _meshgrid}, "meshgrid.indexing": {CIA: _meshgrid}},
    function=meshgrid, method=False)

register(equal, masked_select, meshgrid_op)
