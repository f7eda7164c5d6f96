"""Padding modules: ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d`` and ``CircularPad1d/2d/3d``, each ``F.pad`` with its mode; an int pads every side.

>>> import openreg
>>> openreg.nn.ZeroPad2d((1, 0, 2, 0))(openreg.ones(1, 1, 2, 2)).shape
openreg.Size([1, 1, 4, 3])
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


def _sides(padding, nd: int) -> tuple:
    """An int repeated for both sides of ``nd`` dims, or the given ``2 * nd`` values."""
    if isinstance(padding, int):
        return (padding,) * (2 * nd)
    return tuple(padding)


class _PadNd(Module):
    _nd = 0
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sides(padding, self._nd)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``padding`` is an int or ``(left, right)``."""

    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: ``(left, right, top, bottom)``."""

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``: ``(left, right, top, bottom, front, back)``."""

    _nd = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros.

    >>> import openreg
    >>> openreg.nn.ZeroPad1d(1)(openreg.ones(1, 2)).tolist()
    [[0.0, 1.0, 1.0, 0.0]]
    """

    _nd = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dims with zeros."""

    _nd = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last three dims with zeros."""

    _nd = 3


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (the border element not repeated).

    >>> import openreg
    >>> openreg.nn.ReflectionPad1d(2)(openreg.tensor([[0.0, 1.0, 2.0]])).tolist()
    [[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0]]
    """

    _nd, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dims with their reflection."""

    _nd, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pad the last three dims with their reflection."""

    _nd, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its border elements.

    >>> import openreg
    >>> openreg.nn.ReplicationPad1d((1, 2))(openreg.tensor([[0.0, 1.0]])).tolist()
    [[0.0, 0.0, 1.0, 1.0, 1.0]]
    """

    _nd, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dims by repeating their border elements."""

    _nd, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pad the last three dims by repeating their border elements."""

    _nd, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pad the last dim by wrapping around.

    >>> import openreg
    >>> openreg.nn.CircularPad1d(1)(openreg.tensor([[0.0, 1.0, 2.0]])).tolist()
    [[2.0, 0.0, 1.0, 2.0, 0.0]]
    """

    _nd, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Pad the last two dims by wrapping around."""

    _nd, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Pad the last three dims by wrapping around."""

    _nd, _mode = 3, "circular"
