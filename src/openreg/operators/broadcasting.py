"""Broadcasting made explicit: ``broadcast_to``, ``broadcast_tensors`` (expanded views, CompositeImplicitAutograd
over ``expand``, whose gradient sums over the broadcast dimensions) and ``openreg.broadcast_shapes``.

>>> import openreg
>>> a, b = openreg.broadcast_tensors(openreg.ones(2, 1), openreg.zeros(3))
>>> a.shape, b.shape, b.stride()
(openreg.Size([2, 3]), openreg.Size([2, 3]), (0, 1))
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import broadcast_shapes as _broadcast
from ..tensor import Size
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _broadcast_tensors(tensors) -> list:
    shape = _broadcast(*[t.shape for t in tensors])
    return [t if tuple(t.shape) == shape else A.expand(t, list(shape)) for t in tensors]


def broadcast_tensors(*tensors) -> tuple:
    """The inputs expanded (as views) to their common broadcast shape.

    >>> import openreg
    >>> [t.shape for t in openreg.broadcast_tensors(openreg.ones(3, 1), openreg.ones(1, 4))]
    [openreg.Size([3, 4]), openreg.Size([3, 4])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(A.broadcast_tensors(list(tensors)))


def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (ints count as 1-d shapes).

    >>> import openreg
    >>> openreg.broadcast_shapes((2, 1), (3,), 1)
    openreg.Size([2, 3])
    """
    sizes = []
    for s in shapes:
        if isinstance(s, int):
            s = (s,)
        if any(int(n) < 0 for n in s):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(int(n) for n in s)}: "
                               f"{list(s)}")
        sizes.append(tuple(int(n) for n in s))
    return Size(_broadcast(*sizes))


def _broadcast_to_method(self, *size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    return A.broadcast_to(self, list(size))


broadcast_to = Op(
    "broadcast_to",
    """
    broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)
    """,
    kernels={"broadcast_to": {CIA: lambda self, size: A.expand(self, list(size))}},
    method=_broadcast_to_method,
    doc="""``input`` expanded (a view) to ``size``; ``-1`` keeps a dimension.

    >>> import openreg
    >>> openreg.broadcast_to(openreg.tensor([1, 2]), (2, 2)).tolist()
    [[1, 2], [1, 2]]
    """,
)

broadcast_tensors_op = Op(
    "broadcast_tensors",
    """
    broadcast_tensors(Tensor[] tensors) -> Tensor[]
    """,
    kernels={"broadcast_tensors": {CIA: _broadcast_tensors}},
    function=broadcast_tensors, method=False, extra_functions={"broadcast_shapes": broadcast_shapes},
    doc=broadcast_tensors.__doc__,
)

register(broadcast_to, broadcast_tensors_op)
