"""CPU kernels that are not structured: copies between layouts and dtypes, and the fused mm-plus-mm.

>>> import openreg
>>> a = openreg.zeros(2, 2)
>>> a.copy_(openreg.tensor([1, 2])).tolist()
[[1.0, 2.0], [1.0, 2.0]]
"""
from __future__ import annotations

import numpy as np

from openreg._array_bridge import from_compute, to_compute, wrap_array
from openreg.aten.structured import empty_tensor
from openreg.devices import CPU
from openreg.operators.copy import check_copy, keep_backend_meta, layout_for
from openreg.operators.shape import cat_meta
from openreg.scalar_conversion import check_scalar_fits


def copy_(self, src, non_blocking: bool = False):
    """Broadcasting, dtype-converting copy between CPU tensors (src may overlap self)."""
    check_copy(self, src)
    if self._storage.device._type != "cpu" or src._storage.device._type != "cpu":
        raise RuntimeError(f"copy_: the CPU kernel cannot copy from {src.device} to {self.device}")
    if self._dtype is src._dtype and not self._dtype.is_quantized:
        dst, value = self._array(), src._array()
        if np.may_share_memory(dst, value):
            value = value.copy()
        np.copyto(dst, value, casting="unsafe")
        return self
    value = to_compute(src)
    if src._dtype.is_complex and not self._dtype.is_complex:
        value = value.real
    dst = self._array()
    if np.may_share_memory(dst, value):
        value = value.copy()
    dst[...] = from_compute(value, self._dtype)
    return self


def cat(tensors, dim: int = 0):
    """One NumPy concatenate (converting to the promoted dtype on the fly) instead of a copy_ per input."""
    size, dtype, dev, parts, d = cat_meta(tensors, dim)
    if dev._type != "cpu":
        raise RuntimeError(f"cat: the CPU kernel got tensors on {dev}")
    if not parts:
        return wrap_array(np.empty(size, dtype=dtype.numpy), dtype, CPU)
    arrays = [to_compute(t) for _, t in parts]
    work = np.result_type(*arrays) if dtype.is_narrow_float else dtype.numpy
    out = np.concatenate(arrays, axis=d, dtype=work, casting="unsafe")
    return wrap_array(from_compute(out, dtype), dtype, CPU)


def clone(self, *, memory_format=None):
    """A copy in the requested layout, written with one NumPy copy (no nested dispatch)."""
    out = empty_tensor(self._size, self._dtype, self._storage.device, stride=layout_for(self, memory_format))
    np.copyto(out._array(), self._array())
    keep_backend_meta(self, out)
    return out


def fill_(self, value):
    check_scalar_fits(value, self._dtype)
    self._array()[...] = from_compute(np.asarray(value), self._dtype)
    return self


def zero_(self):
    self._array()[...] = 0
    return self


def mm_plus_mm(a, b, c, d, out):
    """out = a@b + c@d with no temporary: two BLAS GEMMs into ``out``, the second with beta=1.

    Falls back to NumPy (one M x N temporary for c@d) for float16 and layouts BLAS can't read.
    """
    from openreg.operators.inductor import check_mm_plus_mm

    from . import blas
    check_mm_plus_mm(a, b, c, d, out)
    dst = out._array()
    xa, xb, xc, xd = to_compute(a), to_compute(b), to_compute(c), to_compute(d)
    if blas.gemm(xa, xb, dst, beta=0.0) and blas.gemm(xc, xd, dst, beta=1.0):
        return out
    np.matmul(xa, xb, out=dst)
    dst += np.matmul(xc, xd)
    return out


__all__ = ["cat", "clone", "copy_", "fill_", "mm_plus_mm", "zero_"]
