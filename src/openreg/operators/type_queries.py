"""A tensor's type as a question or as a target: ``is_floating_point``, ``is_complex`` (``openreg.<fn>``; the
methods are on ``Tensor``) and ``type_as`` (the other tensor's dtype and device, as PyTorch's legacy ``type``).

>>> import openreg
>>> openreg.is_floating_point(openreg.ones(1)), openreg.is_complex(openreg.ones(1))
(True, False)
>>> openreg.tensor([1, 2]).type_as(openreg.ones(1)).tolist()
[1.0, 2.0]
"""
from __future__ import annotations

from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _type_as(self, other):
    return self.to(device=other.device, dtype=other.dtype)


type_as = Op(
    "type_as",
    """
    type_as(Tensor self, Tensor other) -> Tensor
    """,
    kernels={"type_as": {CIA: _type_as}}, function=False,
    doc="""``self`` converted to ``other``'s dtype and device (itself when they already match).

    >>> import openreg
    >>> openreg.ones(2, dtype=openreg.int64).type_as(openreg.ones(1, dtype=openreg.float64)).dtype
    openreg.float64
    """,
)

is_floating_point = Op(
    "is_floating_point",
    """
    is_floating_point(Tensor self) -> bool
    """,
    kernels={"is_floating_point": {CIA: lambda self: self._dtype.is_floating_point}}, method=False,
    doc="""Whether ``input``'s dtype is a floating-point type.

    >>> import openreg
    >>> openreg.is_floating_point(openreg.tensor([1, 2]))
    False
    """,
)

is_complex = Op(
    "is_complex",
    """
    is_complex(Tensor self) -> bool
    """,
    kernels={"is_complex": {CIA: lambda self: self._dtype.is_complex}}, method=False,
    doc="""Whether ``input``'s dtype is a complex type.

    >>> import openreg
    >>> openreg.is_complex(openreg.tensor([1j]))
    True
    """,
)

register(type_as, is_floating_point, is_complex)
