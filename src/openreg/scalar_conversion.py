"""Whether a Python scalar fits a dtype: PyTorch's ``checked_convert`` (``c10::overflows``) rule.

Ops that store a scalar in a tensor of a given dtype (``fill_``, ``full``, ``masked_fill``, ``clamp``'s bounds,
``where``'s scalar, ``add``'s ``alpha`` ...) refuse a value that does not fit instead of wrapping it. The rule
is PyTorch's: anything fits ``bool``; infinities fit floating types, NaN only floating types; a negative int fits
an unsigned type when its magnitude does (two's complement wrapping, so ``uint8.clamp_min(-1)`` clamps to 255);
a complex value with an imaginary part fits only complex types. Ops that compute with a wrapped scalar
(``int8_tensor + 300``) do not check, as in PyTorch.

>>> import openreg
>>> from openreg.scalar_conversion import as_tensor_scalar, check_scalar_fits
>>> check_scalar_fits(-1, openreg.uint8)
>>> check_scalar_fits(65536, openreg.int16)
Traceback (most recent call last):
RuntimeError: value cannot be converted to type int16_t without overflow
"""
from __future__ import annotations

import math

_CPP_NAMES = {"bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
              "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38,
              "float64": 1.7976931348623157e308, "complex64": 3.4028234663852886e38,
              "complex128": 1.7976931348623157e308}
_INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-(2**15), 2**15 - 1),
              "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def overflows(value, dtype) -> bool:
    """Whether converting ``value`` (bool, int, float or complex) to ``dtype`` is an overflow for PyTorch."""
    name = dtype.name
    if isinstance(value, bool) or name == "bool":
        return False
    if isinstance(value, complex):
        if not dtype.is_complex and value.imag != 0:
            return True
        return overflows(value.real, dtype) or overflows(value.imag, dtype)
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        value = float(value)  # a Scalar holds ints beyond int64 as doubles
    if name in _INT_RANGE:
        lo, hi = _INT_RANGE[name]
        if isinstance(value, int):
            if lo == 0:  # unsigned: negative values wrap when their magnitude fits
                return value > hi or -value > hi
            return value < lo or value > hi
        if math.isnan(value) or math.isinf(value):
            return True
        return value < lo or value > hi
    if name in _FLOAT_MAX:
        value = float(value)
        if math.isinf(value) or math.isnan(value):
            return False
        return abs(value) > _FLOAT_MAX[name]
    return False  # quantized and other dtypes: no scalar rule


def check_scalar_fits(value, dtype) -> None:
    """Raise PyTorch's error when ``value`` cannot be stored in ``dtype`` (see ``overflows``)."""
    if isinstance(value, (int, float, complex)) and overflows(value, dtype):
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES.get(dtype.name, dtype.name)} without "
                           f"overflow")



def as_tensor_scalar(value, dtype):
    """The value PyTorch stores when it wraps a scalar in a 0-dim tensor of ``dtype`` (``t[i] = v``,
    ``scalar_tensor``): float16 and bfloat16 round an overflowing real value to infinity instead of raising
    (the others raise in ``fill_``).

    >>> import openreg
    >>> as_tensor_scalar(70000.0, openreg.float16), as_tensor_scalar(300, openreg.int8)
    (inf, 300)
    """
    if (dtype.name in ("float16", "bfloat16") and isinstance(value, (int, float)) and not isinstance(value, bool)
            and overflows(value, dtype)):
        return math.copysign(math.inf, value)
    return value


__all__ = ["as_tensor_scalar", "check_scalar_fits", "overflows"]
