"""float16/bfloat16 matrix products with float32 accumulation, rounded once: ``out = alpha*a@b + beta*out``.

Operands and ``out`` are storage arrays (float16, or bfloat16 as raw uint16 bits), 2-d ``(m, k) @ (k, n)`` or
batched 3-d; ``out`` is a contiguous ``(…, m, n)`` array of the same kind. As PyTorch does on CUDA, the
products accumulate in float32 and each result is rounded to 16 bits once.

- ``host_gemm_16bit`` (array module code; the emulated driver): widen inside this kernel, float32 ``matmul``,
  one rounding.
- ``cublas_gemm_16bit`` (the cuda driver): cuBLAS ``gemmEx`` / ``gemmStridedBatchedEx`` through CuPy's bindings
  on the raw 16-bit buffers (``CUDA_R_16BF`` / ``CUDA_R_16F`` inputs and output, ``CUBLAS_COMPUTE_32F``), so no
  operand is ever widened in memory. cuBLAS is column-major: the row-major product ``C = A @ B`` is computed as
  ``C^T = B^T @ A^T``, each operand's layout giving its transpose flag and leading dimension.

>>> import numpy as np
>>> from openreg.backends.privateuseone.gemm_16bit import host_gemm_16bit
>>> a = np.full((1, 4096), 1.0, np.float16)        # float16 accumulation would stop at 2048
>>> out = np.empty((1, 1), np.float16)
>>> host_gemm_16bit(np, a, a.T.copy(), out, "float16").tolist()
[[4096.0]]
"""
from __future__ import annotations

import numpy as np

from openreg import dtypes as _dt
from openreg._array_bridge import from_float32, to_float32


def _widen(xp, arr, kind: str):
    return to_float32(arr, _dt.bfloat16) if kind == "bfloat16" else arr.astype(xp.float32)


def _narrow(arr, kind: str):
    return from_float32(arr, _dt.bfloat16) if kind == "bfloat16" else arr.astype(np.float16)


def host_gemm_16bit(xp, a, b, out, kind: str, alpha: float = 1.0, beta: float = 0.0):
    """``out = alpha * a @ b + beta * out`` with float32 accumulation and one rounding (array module code)."""
    prod = xp.matmul(_widen(xp, a, kind), _widen(xp, b, kind))
    if alpha != 1.0:
        prod *= xp.float32(alpha)
    if beta != 0.0:
        prod += xp.float32(beta) * _widen(xp, out, kind)
    out[...] = _narrow(prod, kind)
    return out


def _layout(strides: tuple, shape: tuple, item: int):
    """(transposed?, leading dimension) of a row-major matrix view for cuBLAS, or None if neither dimension
    has unit stride."""
    rows, cols = shape
    rs, cs = strides
    if cs == item and rs % item == 0 and rs // item >= max(cols, 1):
        return False, rs // item
    if rs == item and cs % item == 0 and cs // item >= max(rows, 1):
        return True, cs // item
    return None


def cublas_gemm_16bit(cp, a, b, out, kind: str, alpha: float = 1.0, beta: float = 0.0):
    """``out = alpha * a @ b + beta * out`` by cuBLAS on the raw 16-bit buffers (current device and stream)."""
    from cupy_backends.cuda.api import runtime
    from cupy_backends.cuda.libs import cublas

    data_type = runtime.CUDA_R_16BF if kind == "bfloat16" else runtime.CUDA_R_16F
    batched = out.ndim == 3
    m, n = out.shape[-2:]
    k = a.shape[-1]
    if m == 0 or n == 0:
        return out
    if k == 0:   # nothing to accumulate: only the beta term (an elementwise kernel)
        return host_gemm_16bit(cp, a, b, out, kind, alpha, beta)
    item = out.itemsize
    layouts = []
    operands = []
    for x in (a, b):
        lay = _layout(x.strides[-2:], x.shape[-2:], item)
        if lay is None:                     # neither dim contiguous: a raw 16-bit copy (never a widening)
            x = cp.ascontiguousarray(x)
            lay = _layout(x.strides[-2:], x.shape[-2:], item)
        layouts.append(lay)
        operands.append(x)
    a, b = operands
    (a_t, lda), (b_t, ldb) = layouts
    op = {False: cublas.CUBLAS_OP_N, True: cublas.CUBLAS_OP_T}
    # Host scalars (float32, the compute type), kept alive for the call.
    alpha_h, beta_h = np.array(alpha, np.float32), np.array(beta, np.float32)
    handle = cp.cuda.get_cublas_handle()
    mode = cublas.getPointerMode(handle)
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
    try:
        # Row-major C = A @ B is column-major C^T = B^T @ A^T: cuBLAS's "A" is our b, its "B" is our a.
        if not batched:
            cublas.gemmEx(handle, op[b_t], op[a_t], n, m, k, alpha_h.ctypes.data, b.data.ptr, data_type, ldb,
                          a.data.ptr, data_type, lda, beta_h.ctypes.data, out.data.ptr, data_type, n,
                          cublas.CUBLAS_COMPUTE_32F, cublas.CUBLAS_GEMM_DEFAULT)
        else:
            cublas.gemmStridedBatchedEx(
                handle, op[b_t], op[a_t], n, m, k, alpha_h.ctypes.data,
                b.data.ptr, data_type, ldb, b.strides[0] // item,
                a.data.ptr, data_type, lda, a.strides[0] // item,
                beta_h.ctypes.data, out.data.ptr, data_type, n, m * n, out.shape[0],
                cublas.CUBLAS_COMPUTE_32F, cublas.CUBLAS_GEMM_DEFAULT)
    finally:
        cublas.setPointerMode(handle, mode)
    return out


__all__ = ["cublas_gemm_16bit", "host_gemm_16bit"]
