"""Data types: the `openreg.dtype` objects, their NumPy storage types and PyTorch's type promotion.

>>> import openreg
>>> openreg.float32.itemsize, openreg.float32.is_floating_point
(4, True)
>>> openreg.promote_types(openreg.int32, openreg.float16)
openreg.float16

bfloat16 and the float8 types store as ml_dtypes' NumPy types (on the CPU and the emulated device):

>>> openreg.bfloat16.numpy, openreg.float8_e4m3fn.numpy
(dtype(bfloat16), dtype(float8_e4m3fn))
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = [
    "bfloat16",
    "bool",
    "complex64",
    "complex128",
    "dtype",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
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
        "is_narrow_float",
        "is_quantized",
        "is_reduced_float",
        "is_signed",
        "itemsize",
        "name",
        "numpy",
        "raw_numpy",
        "rounds_scalars",
        "scalar_name",
    )

    def __init__(self, name: str, np_type, category: int, rank: int, scalar_name: str, *,
                 quantized: _builtin_bool = False, aliases: tuple = ()):
        self.name = name
        self.scalar_name = scalar_name  # PyTorch's C++ ScalarType name, as its error messages spell it
        self.numpy = np.dtype(np_type)  # host storage: NumPy's type, or ml_dtypes' for bfloat16 and float8
        self.itemsize = self.numpy.itemsize
        # bfloat16 and float8 (ml_dtypes types, which CuPy cannot hold): kernels compute in float32, and the
        # cuda driver keeps their raw bits as unsigned integers of the same size (raw_numpy).
        self.is_narrow_float = self.numpy.type in _ML_FLOATS
        self.compute_numpy = np.dtype(np.float32) if self.is_narrow_float else self.numpy
        self.raw_numpy = np.dtype(f"u{self.itemsize}") if self.is_narrow_float else self.numpy
        # float16 and bfloat16 (PyTorch's reduced floating types): arithmetic runs in float32 "opmath" and rounds
        # once; a Python scalar operand is rounded to the type first, except where the kernel keeps it in float32
        self.is_reduced_float = name in ("float16", "bfloat16")
        self.rounds_scalars = self.is_reduced_float or self.is_narrow_float   # a scalar operand is rounded to it
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
_ML_FLOATS = (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fnuz,
              ml_dtypes.float8_e5m2fnuz)

bool = dtype("bool", np.bool_, BOOL, 0, "Bool")
uint8 = dtype("uint8", np.uint8, INTEGRAL, 1, "Byte")
int8 = dtype("int8", np.int8, INTEGRAL, 1, "Char")
int16 = dtype("int16", np.int16, INTEGRAL, 2, "Short", aliases=("short",))
int32 = dtype("int32", np.int32, INTEGRAL, 3, "Int", aliases=("int",))
int64 = dtype("int64", np.int64, INTEGRAL, 4, "Long", aliases=("long",))
float16 = dtype("float16", np.float16, FLOATING, 5, "Half", aliases=("half",))
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, FLOATING, 5, "BFloat16")
float32 = dtype("float32", np.float32, FLOATING, 6, "Float", aliases=("float",))
float64 = dtype("float64", np.float64, FLOATING, 7, "Double", aliases=("double",))
complex64 = dtype("complex64", np.complex64, COMPLEX, 8, "ComplexFloat", aliases=("cfloat",))
complex128 = dtype("complex128", np.complex128, COMPLEX, 9, "ComplexDouble", aliases=("cdouble",))
qint8 = dtype("qint8", np.int8, INTEGRAL, 1, "QInt8", quantized=True)
quint8 = dtype("quint8", np.uint8, INTEGRAL, 1, "QUInt8", quantized=True)
qint32 = dtype("qint32", np.int32, INTEGRAL, 3, "QInt32", quantized=True)
# float8 promotes with nothing but itself (promote_types refuses), as in PyTorch.
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn, FLOATING, 5, "Float8_e4m3fn")
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2, FLOATING, 5, "Float8_e5m2")
float8_e4m3fnuz = dtype("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, FLOATING, 5, "Float8_e4m3fnuz")
float8_e5m2fnuz = dtype("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, FLOATING, 5, "Float8_e5m2fnuz")
FLOAT8_DTYPES = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64,
              complex128, qint8, quint8, qint32, *FLOAT8_DTYPES)
_BY_NAME = {}
for _d in ALL_DTYPES:
    _BY_NAME[_d.name] = _d
    for _a in _d._aliases:
        _BY_NAME[_a] = _d
_BY_NUMPY = {d.numpy: d for d in (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
                                  complex64, complex128, *FLOAT8_DTYPES)}


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
                      14: "qint32", 15: "bfloat16", 23: "float8_e5m2", 24: "float8_e4m3fn",
                      25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz"}


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
                        "and bool (and ml_dtypes' bfloat16, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz and "
                        "float8_e5m2fnuz).") from None


_default_dtype = float32


def get_default_dtype() -> dtype:
    """The floating dtype factories use when none is given (``float32`` unless changed)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only floating point dtypes are allowed, as in PyTorch."""
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if d is not _default_dtype:
        _default_dtype = d
        for listener in default_dtype_listeners:
            listener()


# Called after every change of the default dtype (the structured kernels drop their cached meta results).
default_dtype_listeners: list = []


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both can be converted to without losing category."""
    if a is b:
        return a
    if a.is_quantized or b.is_quantized:
        raise RuntimeError(f"Promotion for quantized types is not supported, attempted to promote {a.name} "
                           f"and {b.name}")
    if a in FLOAT8_DTYPES or b in FLOAT8_DTYPES:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {a.scalar_name} "
                           f"and {b.scalar_name}")
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


_RAW_BY_NUMPY = {d.numpy: d.raw_numpy for d in (bfloat16, *FLOAT8_DTYPES)}
# ml_dtypes' NumPy dtypes that openreg has (their NumPy kind is "V" or "f", so check membership, not the kind).
NARROW_FLOAT_NUMPY = frozenset(_RAW_BY_NUMPY)


def raw_storage_numpy(np_dtype):
    """The NumPy dtype a device without ml_dtypes (CuPy) stores ``np_dtype`` as: the raw bits (uint16/uint8) of
    bfloat16 and float8, any other dtype as it is.

    >>> import openreg
    >>> raw_storage_numpy(openreg.bfloat16.numpy), raw_storage_numpy(openreg.float32.numpy)
    (dtype('uint16'), dtype('float32'))
    """
    d = np.dtype(np_dtype)
    return _RAW_BY_NUMPY.get(d, d)
