"""``openreg.types``: the aliases programs annotate with, as ``torch.types`` defines them.

openreg has no symbolic shapes, so ``IntLikeType``/``FloatLikeType``/``BoolLikeType`` are the plain Python types
and ``py_sym_types`` is empty (nothing is a symbolic number).

>>> import openreg
>>> from openreg.types import Device, Number, _size
>>> def zeros(size: _size, device: Device = None) -> openreg.Tensor:
...     return openreg.zeros(size, device=device)
>>> zeros((2,), "cpu").tolist()
[0.0, 0.0]
>>> isinstance(3.5, openreg.types._Number), isinstance(3, openreg.types.Number)
(True, True)
"""
# ruff: noqa: PYI042, PYI047  (PyTorch's private alias names, for the programs importing them)
from __future__ import annotations

import os
from builtins import bool as _bool  # noqa: F401
from builtins import bytes as _bytes  # noqa: F401
from builtins import complex as _complex  # noqa: F401
from builtins import float as _float  # noqa: F401
from builtins import int as _int  # noqa: F401
from builtins import str as _str  # noqa: F401
from collections.abc import Sequence
from typing import IO, TypeAlias

from ._dispatch.keys import DispatchKey
from .devices import device as _device
from .dtypes import dtype as _dtype  # noqa: F401
from .layouts import layout as _layout  # noqa: F401
from .storage import UntypedStorage as Storage
from .tensor import Size, Tensor

__all__ = ["Device", "FileLike", "Number", "Storage"]

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_TensorOrTensorsOrGradEdge: TypeAlias = Tensor | Sequence[Tensor]
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]
_dispatchkey: TypeAlias = str | DispatchKey

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
py_sym_types: tuple[type, ...] = ()     # no symbolic numbers in openreg

Number: TypeAlias = int | float | bool
_Number = (int, float, bool)
FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]
Device: TypeAlias = _device | str | int | None
