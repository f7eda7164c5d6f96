"""Per-tensor affine quantization: the operators, their argument checks and Meta kernels, and the public API.

A quantized tensor (dtype ``qint8``, ``quint8`` or ``qint32``) stores the integers ``q`` in its storage and
``(scale, zero_point)`` in ``Tensor._qparams``; it stands for the real values ``(q - zero_point) * scale``.
Quantizing rounds half to even and saturates: ``q = clamp(rint(x / scale) + zero_point, qmin, qmax)``.
Backends provide the array kernels (``openreg.backends.cpu.kernels_quantized``).

>>> import openreg
>>> q = openreg.quantize_per_tensor(openreg.tensor([-1.0, 0.0, 0.26, 100.0]), 0.1, 10, openreg.quint8)
>>> q.int_repr().tolist(), q.q_scale(), q.q_zero_point()
([0, 10, 13, 255], 0.1, 10)
>>> [round(v, 4) for v in q.dequantize().tolist()]
[-1.0, 0.0, 0.3, 24.5]
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.tags import Tag
from ..library import Library

SCHEMAS = [
    ("quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> Tensor", (Tag.core,)),
    ("dequantize.self(Tensor self) -> Tensor", (Tag.core,)),
    ("int_repr(Tensor self) -> Tensor", ()),
    ("q_scale(Tensor self) -> float", ()),
    ("q_zero_point(Tensor self) -> int", ()),
]

QUANTIZED_DTYPES = (_dt.qint8, _dt.quint8, _dt.qint32)
# The integer dtype holding a quantized dtype's values (what int_repr returns).
UNDERLYING = {_dt.qint8: _dt.int8, _dt.quint8: _dt.uint8, _dt.qint32: _dt.int32}
QRANGE = {_dt.qint8: (-128, 127), _dt.quint8: (0, 255), _dt.qint32: (-(2 ** 31), 2 ** 31 - 1)}


def check_quantize_args(self, scale: float, zero_point: int, dtype) -> None:
    """PyTorch's checks for ``quantize_per_tensor`` (input dtype, target dtype, scale, zero point)."""
    if dtype not in QUANTIZED_DTYPES:
        raise RuntimeError(f"quantize_per_tensor: expected dtype to be one of qint8, quint8, qint32, but got "
                           f"{dtype}")
    if self._dtype.is_quantized or not self._dtype.is_floating_point:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {self._dtype.name} (shape "
                           f"{list(self._size)}, device {self.device})")
    if not math.isfinite(scale) or scale <= 0:
        raise RuntimeError(f"quantize_per_tensor: scale must be a positive finite number, got {scale}")
    qmin, qmax = QRANGE[dtype]
    if zero_point > qmax:
        raise RuntimeError(f"quantize_per_tensor: zero_point {zero_point} is above upper bound {qmax} of "
                           f"{dtype.name}.")
    if zero_point < qmin:
        raise RuntimeError(f"quantize_per_tensor: zero_point {zero_point} is below lower bound {qmin} of "
                           f"{dtype.name}.")


def check_quantized(op: str, self) -> None:
    """Raise unless ``self`` is a quantized tensor (q_scale, q_zero_point, int_repr)."""
    if not self._dtype.is_quantized or self._qparams is None:
        raise RuntimeError(f"{op}: expected a quantized tensor (qint8, quint8 or qint32), but got a tensor of "
                           f"dtype {self._dtype.name} on {self.device}")


def new_quantized(size, dtype, device, qparams):
    """An uninitialised contiguous quantized tensor."""
    from .structured import empty_tensor
    out = empty_tensor(tuple(size), dtype, device)
    out._qparams = qparams
    return out


# -- Meta kernels (shapes, dtypes and quantization parameters; no data) ------------------------------------
def _meta_quantize(self, scale, zero_point, dtype):
    check_quantize_args(self, scale, zero_point, dtype)
    return new_quantized(self._size, dtype, self.device, (float(scale), int(zero_point)))


def _meta_dequantize(self):
    from .structured import empty_tensor
    return empty_tensor(tuple(self._size), _dt.float32, self.device)


def _meta_int_repr(self):
    from .structured import empty_tensor
    check_quantized("int_repr", self)
    return empty_tensor(tuple(self._size), UNDERLYING[self._dtype], self.device)


def q_scale(self) -> float:
    check_quantized("q_scale", self)
    return float(self._qparams[0])


def q_zero_point(self) -> int:
    check_quantized("q_zero_point", self)
    return int(self._qparams[1])


_def = Library("aten", "FRAGMENT")
for _schema, _tags in SCHEMAS:
    _def.define(_schema, tags=_tags)
_kernels = Library("aten", "IMPL")
# Reading the parameters needs no data: the same kernel serves every backend.
_kernels.impl("q_scale", q_scale, "CompositeExplicitAutograd")
_kernels.impl("q_zero_point", q_zero_point, "CompositeExplicitAutograd")
_kernels.impl("quantize_per_tensor", _meta_quantize, "Meta")
_kernels.impl("dequantize.self", _meta_dequantize, "Meta")
_kernels.impl("int_repr", _meta_int_repr, "Meta")

from .._dispatch.ops import A


def quantize_per_tensor(input, scale: float, zero_point: int, dtype):
    """Quantize a float tensor with one scale and zero point to ``qint8``, ``quint8`` or ``qint32``.

    >>> import openreg
    >>> q = openreg.quantize_per_tensor(openreg.tensor([0.5, -0.5]), 0.25, 0, openreg.qint8)
    >>> q.dtype, q.int_repr().tolist()
    (openreg.qint8, [2, -2])
    """
    return A.quantize_per_tensor(input, scale, zero_point, dtype)


def _dequantize_method(self):
    """The real values ``(q - zero_point) * scale`` as float32 (a float tensor is converted to float32)."""
    return A.dequantize__self(self)


def _int_repr_method(self):
    """The stored integers of a quantized tensor (int8, uint8 or int32)."""
    return A.int_repr(self)


def _q_scale_method(self) -> float:
    """The scale of a per-tensor quantized tensor."""
    return A.q_scale(self)


def _q_zero_point_method(self) -> int:
    """The zero point of a per-tensor quantized tensor."""
    return A.q_zero_point(self)
