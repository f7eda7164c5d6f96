"""Per-tensor affine quantization: ``quantize_per_tensor``, ``dequantize``, ``int_repr``, ``q_scale`` and
``q_zero_point``.

A quantized tensor (dtype ``qint8``, ``quint8`` or ``qint32``) stores the integers ``q`` in its storage and
``(scale, zero_point)`` in ``Tensor._qparams``; it stands for the real values ``(q - zero_point) * scale``.
Quantizing rounds half to even and saturates: ``q = clamp(rint(x / scale) + zero_point, qmin, qmax)``.
The kernels are written against the inputs' array module, so the CPU and the device share them.

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
from .._array_bridge import to_compute, wrap_array
from ..aten.structured import empty_tensor
from ._compute import xp_of
from ._record import Op, register

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
    out = empty_tensor(tuple(size), dtype, device)
    out._qparams = qparams
    return out



# -- kernels (array module of the input) ---------------------------------------------------------------
def _quantize_per_tensor(self, scale: float, zero_point: int, dtype):
    check_quantize_args(self, scale, zero_point, dtype)
    xp = xp_of(self)
    x = to_compute(self).astype(xp.float32, copy=False)
    inv_scale = xp.float32(1.0) / xp.float32(scale)    # PyTorch multiplies by the float32 reciprocal
    q = xp.rint(x * inv_scale).astype(xp.float64) + zero_point
    qmin, qmax = QRANGE[dtype]
    q = xp.clip(xp.nan_to_num(q, nan=float(zero_point)), qmin, qmax).astype(dtype.numpy)
    out = wrap_array(q, dtype, self.device)
    out._qparams = (float(scale), int(zero_point))
    return out


def _dequantize(self):
    xp = xp_of(self)
    if not self._dtype.is_quantized:
        out = to_compute(self).astype(xp.float32)
        return wrap_array(out, _dt.float32, self.device)
    check_quantized("dequantize", self)
    scale, zero_point = self._qparams
    q = self._array().astype(xp.float32)
    vals = (q - xp.float32(zero_point)) * xp.float32(scale)
    return wrap_array(vals.astype(xp.float32), _dt.float32, self.device)


def _int_repr(self):
    check_quantized("int_repr", self)
    dtype = UNDERLYING[self._dtype]
    return wrap_array(self._array().astype(dtype.numpy, copy=True), dtype, self.device)



# -- Meta kernels (shapes, dtypes and quantization parameters; no data) ------------------------------------
def _meta_quantize(self, scale, zero_point, dtype):
    check_quantize_args(self, scale, zero_point, dtype)
    return new_quantized(self._size, dtype, self.device, (float(scale), int(zero_point)))


def _meta_dequantize(self):
    return empty_tensor(tuple(self._size), _dt.float32, self.device)


def _meta_int_repr(self):
    check_quantized("int_repr", self)
    return empty_tensor(tuple(self._size), UNDERLYING[self._dtype], self.device)


def _q_scale(self) -> float:
    check_quantized("q_scale", self)
    return float(self._qparams[0])


def _q_zero_point(self) -> int:
    check_quantized("q_zero_point", self)
    return int(self._qparams[1])



quantize_per_tensor = Op(
    "quantize_per_tensor",
    """
    quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> Tensor  [core]
    """,
    kernels={"quantize_per_tensor": {"Backend": _quantize_per_tensor, "Meta": _meta_quantize}},
    method=False,
    doc="""Quantize a float tensor with one scale and zero point to ``qint8``, ``quint8`` or ``qint32``.

    >>> import openreg
    >>> q = openreg.quantize_per_tensor(openreg.tensor([0.5, -0.5]), 0.25, 0, openreg.qint8)
    >>> q.dtype, q.int_repr().tolist()
    (openreg.qint8, [2, -2])
    """,
)

dequantize = Op(
    "dequantize",
    """
    dequantize.self(Tensor self) -> Tensor  [core]
    """,
    kernels={"dequantize.self": {"Backend": _dequantize, "Meta": _meta_dequantize}},
    doc="""The real values ``(q - zero_point) * scale`` as float32 (a float tensor is converted to float32).

    >>> import openreg
    >>> openreg.quantize_per_tensor(openreg.tensor([1.0, 2.5]), 0.5, 1, openreg.qint8).dequantize().tolist()
    [1.0, 2.5]
    """,
)

int_repr = Op(
    "int_repr",
    """
    int_repr(Tensor self) -> Tensor
    """,
    kernels={"int_repr": {"Backend": _int_repr, "Meta": _meta_int_repr}},
    doc="""The stored integers of a quantized tensor (int8, uint8 or int32).

    >>> import openreg
    >>> openreg.quantize_per_tensor(openreg.tensor([1.0, 2.5]), 0.5, 1, openreg.quint8).int_repr().tolist()
    [3, 6]
    """,
)

# Reading the parameters needs no data: one kernel serves every backend.
q_scale = Op("q_scale", "q_scale(Tensor self) -> float",
             kernels={"q_scale": {"CompositeExplicitAutograd": _q_scale}},
             doc="""The scale of a per-tensor quantized tensor.

    >>> import openreg
    >>> openreg.quantize_per_tensor(openreg.tensor([1.0]), 0.5, 1, openreg.qint8).q_scale()
    0.5
    """)
q_zero_point = Op("q_zero_point", "q_zero_point(Tensor self) -> int",
                  kernels={"q_zero_point": {"CompositeExplicitAutograd": _q_zero_point}},
                  doc="""The zero point of a per-tensor quantized tensor.

    >>> import openreg
    >>> openreg.quantize_per_tensor(openreg.tensor([1.0]), 0.5, 1, openreg.qint8).q_zero_point()
    1
    """)

register(quantize_per_tensor, dequantize, int_repr, q_scale, q_zero_point)
