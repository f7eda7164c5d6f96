"""``nn.functional.pad``: constant, reflect, replicate and circular padding of the trailing dims.

>>> import openreg
>>> openreg.nn.functional.pad(openreg.ones(1, 2), (1, 1), value=5.0).tolist()
[[5.0, 1.0, 1.0, 5.0]]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor

__all__ = ["pad"]


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad ``input``: ``pad`` lists (before, after) pairs starting from the last dim.

    >>> import openreg
    >>> openreg.nn.functional.pad(openreg.tensor([[1.0, 2.0, 3.0]]), (2, 0), mode="reflect").tolist()
    [[3.0, 2.0, 1.0, 2.0, 3.0]]
    """
    return A.pad(input, list(pad), mode, value)
