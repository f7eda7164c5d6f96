"""Direct GEMM calls into the BLAS that NumPy already loaded, for ``C = alpha*A@B + beta*C`` in place.

NumPy's ``matmul`` has no ``beta``: accumulating a second product into an existing output costs a
temporary and an extra pass. PyTorch's ``addmm_`` calls BLAS with ``beta=1`` instead; so do we, through
ctypes, using the OpenBLAS build bundled inside NumPy's wheel (its CBLAS symbols carry a ``scipy_`` prefix
and a ``64_`` suffix). When no such library is found, or the operands' layout is not one BLAS takes
(each matrix needs a unit stride in one dimension), ``gemm`` returns False and callers use NumPy.

>>> import numpy as np
>>> from openreg.backends.cpu import blas
>>> a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
>>> c = np.full((2, 2), 1.0, np.float32)
>>> blas.gemm(a, b, c, beta=1.0) or np.add(c, a @ b, out=c) is not None
True
>>> c.tolist()
[[4.0, 4.0], [4.0, 4.0]]
"""
from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# (symbol, integer type) pairs to try, most specific first: NumPy 2 wheels (scipy-openblas, ILP64), NumPy 1
# wheels (openblas64_), then a plain LP64 CBLAS.
_CANDIDATES = (("scipy_cblas_{}gemm64_", ctypes.c_int64), ("cblas_{}gemm64_", ctypes.c_int64),
               ("cblas_{}gemm", ctypes.c_int))
_gemms: dict | None = None


def _library_paths() -> list[str]:
    root = os.path.dirname(os.path.dirname(np.__file__))
    found = []
    for folder in (os.path.join(root, "numpy.libs"), os.path.join(os.path.dirname(np.__file__), ".dylibs")):
        found += sorted(glob.glob(os.path.join(folder, "*openblas*")))
    return found


def _load() -> dict:
    """{np.float32: fn, np.float64: fn} for the first library exposing CBLAS gemm; {} when none does."""
    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for pattern, int_t in _CANDIDATES:
            fns = {}
            for letter, dtype, scalar in (("s", np.float32, ctypes.c_float), ("d", np.float64, ctypes.c_double)):
                fn = getattr(lib, pattern.format(letter), None)
                if fn is None:
                    break
                fn.restype = None
                fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, int_t, int_t, int_t, scalar,
                               ctypes.c_void_p, int_t, ctypes.c_void_p, int_t, scalar, ctypes.c_void_p, int_t]
                fns[np.dtype(dtype)] = fn
            if len(fns) == 2:
                return fns
    return {}


def _operand(m: np.ndarray):
    """(transpose flag, leading dimension) for a row-major call, or None if BLAS can't read the layout."""
    item = m.itemsize
    rows, cols = m.shape
    rs, cs = m.strides
    if cs == item and rs % item == 0 and rs // item >= max(cols, 1):
        return _NO_TRANS, rs // item
    if rs == item and cs % item == 0 and cs // item >= max(rows, 1):
        return _TRANS, cs // item
    return None


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, alpha: float = 1.0, beta: float = 0.0) -> bool:
    """``c = alpha * a @ b + beta * c`` in place through BLAS; False (c untouched) when BLAS can't do it."""
    global _gemms
    if _gemms is None:
        _gemms = _load()
    fn = _gemms.get(c.dtype)
    if fn is None or a.dtype != c.dtype or b.dtype != c.dtype or not c.flags.writeable:
        return False
    m, k = a.shape
    n = b.shape[1]
    if m == 0 or n == 0:
        return True
    if c.strides[1] != c.itemsize or c.strides[0] % c.itemsize or c.strides[0] // c.itemsize < max(n, 1):
        return False
    if k == 0:
        if beta == 0.0:
            c[...] = 0
        elif beta != 1.0:
            c *= beta
        return True
    pa, pb = _operand(a), _operand(b)
    if pa is None or pb is None:
        return False
    fn(_ROW_MAJOR, pa[0], pb[0], m, n, k, alpha, a.ctypes.data, pa[1], b.ctypes.data, pb[1], beta,
       c.ctypes.data, c.strides[0] // c.itemsize)
    return True


def available() -> bool:
    """Whether a CBLAS gemm was found in NumPy's bundled BLAS."""
    global _gemms
    if _gemms is None:
        _gemms = _load()
    return bool(_gemms)
