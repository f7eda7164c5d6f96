"""Data types: the `openreg.dtype` objects, their NumPy storage types and PyTorch's type promotion.

>>> import openreg
>>> openreg.float32.itemsize, openreg.float32.is_floating_point
(4, True)
>>> openreg.promote_types(openreg.int32, openreg.float16)
openreg.float16
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "bfloat16",
    "bool",
    "complex64",
    "complex128",
    "dtype",
    "float16",
    "float32",
    "float64",
    "get_default_dtype",
    "int8",
    "int16",
    "int32",
    "int64",
    "promote_types",
    "qint8",
    "qint32",
    "quint8",
    "set_default_dtype",
    "uint8",
]

_builtin_bool = bool


class dtype:
    """A tensor element type. Compare with `is`/`==`; each one is a singleton."""

    __slots__ = (
        "_aliases",
        "_rank",
        "category",
        "compute_numpy",
        "is_complex",
        "is_floating_point",
        "is_quantized",
        "is_signed",
        "itemsize",
        "name",
        "numpy",
    )

    def __init__(self, name: str, np_type, category: int, rank: int, *, quantized: _builtin_bool = False,
                 aliases: tuple = ()):
        self.name = name
        self.numpy = np.dtype(np_type)
        self.itemsize = self.numpy.itemsize
        # What kernels compute in: bfloat16 (stored as raw uint16 bits) computes in float32.
        self.compute_numpy = np.dtype(np.float32) if name == "bfloat16" else self.numpy
        self.category = category  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = category == 2 and not quantized
        self.is_complex = category == 3
        self.is_quantized = quantized
        self.is_signed = name not in ("bool", "uint8", "quint8")
        self._rank = rank
        self._aliases = aliases

    def __repr__(self) -> str:
        return f"openreg.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_complex(self) -> dtype:
        return complex128 if self is float64 else complex64

    def to_real(self) -> dtype:
        return float64 if self is complex128 else (float32 if self is complex64 else self)


BOOL, INTEGRAL, FLOATING, COMPLEX = 0, 1, 2, 3

bool = dtype("bool", np.bool_, BOOL, 0)
uint8 = dtype("uint8", np.uint8, INTEGRAL, 1)
int8 = dtype("int8", np.int8, INTEGRAL, 1)
int16 = dtype("int16", np.int16, INTEGRAL, 2, aliases=("short",))
int32 = dtype("int32", np.int32, INTEGRAL, 3, aliases=("int",))
int64 = dtype("int64", np.int64, INTEGRAL, 4, aliases=("long",))
float16 = dtype("float16", np.float16, FLOATING, 5, aliases=("half",))
# NumPy has no bfloat16: storage holds the raw 16 bits; kernels widen to float32 and round back.
bfloat16 = dtype("bfloat16", np.uint16, FLOATING, 5)
float32 = dtype("float32", np.float32, FLOATING, 6, aliases=("float",))
float64 = dtype("float64", np.float64, FLOATING, 7, aliases=("double",))
complex64 = dtype("complex64", np.complex64, COMPLEX, 8, aliases=("cfloat",))
complex128 = dtype("complex128", np.complex128, COMPLEX, 9, aliases=("cdouble",))
qint8 = dtype("qint8", np.int8, INTEGRAL, 1, quantized=True)
quint8 = dtype("quint8", np.uint8, INTEGRAL, 1, quantized=True)
qint32 = dtype("qint32", np.int32, INTEGRAL, 3, quantized=True)

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64,
              complex128, qint8, quint8, qint32)
_BY_NAME = {}
for _d in ALL_DTYPES:
    _BY_NAME[_d.name] = _d
    for _a in _d._aliases:
        _BY_NAME[_a] = _d
_BY_NUMPY = {d.numpy: d for d in (bool, uint8, int8, int16, int32, int64, float16, float32, float64,
                                  complex64, complex128)}


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_name(name: str) -> dtype:
    """The dtype for a schema/PyTorch name such as ``"float32"``, ``"long"`` or ``"half"``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError(f"unknown dtype name {name!r}") from None


_SCALAR_TYPE_CODES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16", 6: "float32",
                      7: "float64", 9: "complex64", 10: "complex128", 11: "bool", 12: "qint8", 13: "quint8",
                      14: "qint32", 15: "bfloat16"}


def from_scalar_type_code(code: int) -> dtype:
    """The dtype for PyTorch's integer ScalarType code (how schemas print dtype defaults: ``long`` is 4)."""
    try:
        return _BY_NAME[_SCALAR_TYPE_CODES[code]]
    except KeyError:
        raise TypeError(f"ScalarType code {code} has no openreg dtype") from None


def from_numpy(np_dtype) -> dtype:
    """The openreg dtype that stores like a NumPy dtype (``np.float32`` -> ``openreg.float32``)."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.") from None


_default_dtype = float32


def get_default_dtype() -> dtype:
    """The floating dtype factories use when none is given (``float32`` unless changed)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only floating point dtypes are allowed, as in PyTorch."""
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both can be converted to without losing category."""
    if a is b:
        return a
    if a.is_quantized or b.is_quantized:
        raise RuntimeError(f"Promotion for quantized types is not supported, attempted to promote {a.name} "
                           f"and {b.name}")
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.is_complex and lo.category == FLOATING and lo is float64:
            return complex128
        return hi
    if {a, b} == {uint8, int8}:
        return int16
    if {a, b} == {float16, bfloat16}:
        return float32
    return a if a._rank >= b._rank else b


def scalar_category(value) -> int:
    """The dtype category of a Python scalar: bool < int < float < complex."""
    if isinstance(value, (_builtin_bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INTEGRAL
    if isinstance(value, (float, np.floating)):
        return FLOATING
    if isinstance(value, (complex, np.complexfloating)):
        return COMPLEX
    raise TypeError(f"expected a Python number, got {type(value).__name__}")


def default_dtype_for_category(category: int) -> dtype:
    """The dtype a lone Python scalar of this category becomes (``3`` -> int64, ``3.0`` -> default float)."""
    if category == BOOL:
        return bool
    if category == INTEGRAL:
        return int64
    if category == FLOATING:
        return _default_dtype
    return complex128 if _default_dtype is float64 else complex64
