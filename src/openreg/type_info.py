"""``openreg.finfo`` / ``openreg.iinfo``: the numerical limits of a floating / integer dtype, as PyTorch's.

Attributes of ``finfo``: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
``resolution`` and ``dtype`` (the name, a string); a complex dtype describes its real part. ``iinfo`` has
``bits``, ``max``, ``min`` and ``dtype``. bfloat16 and the float8 types take their limits from ml_dtypes.

>>> import openreg
>>> openreg.finfo(openreg.bfloat16).eps, openreg.finfo(openreg.float16).max, openreg.finfo().dtype
(0.0078125, 65504.0, 'float32')
>>> openreg.iinfo(openreg.int8).min, openreg.iinfo(openreg.uint8).max, openreg.iinfo(openreg.int64).bits
(-128, 255, 64)
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from . import dtypes as _dt


def _check_dtype(fn: str, type) -> _dt.dtype:
    if not isinstance(type, _dt.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not {type.__class__.__name__}")
    return type


def _fmt(v) -> str:
    return f"{v:g}"


class finfo:
    """Limits of a floating point dtype (the default dtype when none is given)."""

    __slots__ = ("bits", "dtype", "eps", "max", "min", "resolution", "smallest_normal", "tiny")

    def __init__(self, type: _dt.dtype | None = None) -> None:
        d = _dt.get_default_dtype() if type is None else _check_dtype("finfo", type)
        if d.is_complex:
            d = d.to_real()
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = ml_dtypes.finfo(d.numpy) if d.is_narrow_float else np.finfo(d.numpy)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = float(10.0 ** -math.floor(-math.log10(self.eps)))
        self.dtype = d.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={_fmt(self.resolution)}, min={_fmt(self.min)}, max={_fmt(self.max)}, "
                f"eps={_fmt(self.eps)}, smallest_normal={_fmt(self.smallest_normal)}, tiny={_fmt(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype."""

    __slots__ = ("bits", "dtype", "max", "min")

    def __init__(self, type: _dt.dtype) -> None:
        d = _check_dtype("iinfo", type)
        if d is _dt.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.category != _dt.INTEGRAL:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        info = np.iinfo(d.numpy)
        self.bits, self.min, self.max = int(info.bits), int(info.min), int(info.max)
        self.dtype = d.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_fmt(self.min)}, max={_fmt(self.max)}, dtype={self.dtype})"


__all__ = ["finfo", "iinfo"]
