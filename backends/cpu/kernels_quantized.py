"""Quantization kernels, written against the inputs' array module (NumPy here; the device reuses them).

>>> import openreg
>>> q = openreg.quantize_per_tensor(openreg.tensor([1.0, 2.5]), 0.5, 1, openreg.qint8)
>>> q.int_repr().tolist(), q.dequantize().tolist()
([3, 6], [1.0, 2.5])
"""
from __future__ import annotations

from openreg import dtypes as _dt
from openreg._array_bridge import to_compute, wrap_array
from openreg.aten.quantized_ops import QRANGE, UNDERLYING, check_quantize_args, check_quantized
from openreg.operators._compute import xp_of


def quantize_per_tensor(self, scale: float, zero_point: int, dtype):
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


def dequantize(self):
    xp = xp_of(self)
    if not self._dtype.is_quantized:
        out = to_compute(self).astype(xp.float32)
        return wrap_array(out, _dt.float32, self.device)
    check_quantized("dequantize", self)
    scale, zero_point = self._qparams
    q = self._array().astype(xp.float32)
    vals = (q - xp.float32(zero_point)) * xp.float32(scale)
    return wrap_array(vals.astype(xp.float32), _dt.float32, self.device)


def int_repr(self):
    check_quantized("int_repr", self)
    dtype = UNDERLYING[self._dtype]
    return wrap_array(self._array().astype(dtype.numpy, copy=True), dtype, self.device)


KERNELS = {"quantize_per_tensor": quantize_per_tensor, "dequantize.self": dequantize, "int_repr": int_repr}


def register(lib, dispatch_key: str) -> None:
    """Register the kernels on ``lib`` (an ``aten`` IMPL library) at ``dispatch_key``."""
    for name, fn in KERNELS.items():
        lib.impl(name, fn, dispatch_key)
