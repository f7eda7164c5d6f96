"""Arithmetic operators: ``hypot`` (more of the family joins as it migrates to records).

>>> import openreg
>>> openreg.tensor([3.0, 5.0]).hypot(openreg.tensor([4.0, 12.0])).tolist()
[5.0, 13.0]
"""
from __future__ import annotations

from ._compute import pair, quiet, upcast
from ._pointwise import float_spec
from ._record import Deriv, Op, register


def _hypot_compute(spec, self, other):
    xp, a, b = pair(spec, self, other)
    with quiet():
        return xp.hypot(upcast(a, xp), upcast(b, xp))


hypot = Op(
    "hypot",
    """
    hypot(Tensor self, Tensor other) -> Tensor  [pointwise]
    hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    hypot_(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
    """,
    meta=lambda self, other: float_spec("hypot", self, other),
    compute=_hypot_compute,
    elementwise=True,
    derivatives={"hypot": Deriv(save="self other result", pointwise=True,
                                self=lambda g, a: g * a.self / a.result,
                                other=lambda g, a: g * a.other / a.result)},
    doc="""Elementwise ``sqrt(input**2 + other**2)``, without overflow for large inputs.

    >>> import openreg
    >>> openreg.hypot(openreg.tensor([3.0, 5.0]), openreg.tensor([4.0, 12.0])).tolist()
    [5.0, 13.0]
    """,
)

register(hypot)
