"""The CPU _mm_plus_mm path through BLAS (beta=1 accumulation) against NumPy, and its NumPy fallback."""
import numpy as np
import pytest
from openreg.backends.cpu import blas

import openreg


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k1,k2,n", [(5, 3, 4, 6), (1, 1, 1, 1), (7, 0, 3, 2), (33, 17, 65, 9)])
@pytest.mark.parametrize("transposed", [False, True])
def test_mm_plus_mm_matches_numpy(dtype, m, k1, k2, n, transposed):
    rng = np.random.default_rng(m * 100 + k1)
    A, B = rng.standard_normal((m, k1)).astype(dtype), rng.standard_normal((k1, n)).astype(dtype)
    C, D = rng.standard_normal((m, k2)).astype(dtype), rng.standard_normal((k2, n)).astype(dtype)
    a, b, c, d = (openreg.from_numpy(x) for x in (A, B, C, D))
    if transposed:  # column-major operands: BLAS reads them with the transpose flag, no copy
        a = openreg.from_numpy(np.ascontiguousarray(A.T)).t()
        d = openreg.from_numpy(np.ascontiguousarray(D.T)).t()
    out = openreg.empty(m, n, dtype=openreg.float32 if dtype == np.float32 else openreg.float64)
    openreg.ops.inductor._mm_plus_mm(a, b, c, d, out)
    np.testing.assert_allclose(out.numpy(), A.astype(np.float64) @ B + C.astype(np.float64) @ D,
                               rtol=1e-5, atol=1e-5)


def test_blas_gemm_accumulates_in_place_and_refuses_unsupported_layouts():
    if not blas.available():
        pytest.skip("NumPy's bundled BLAS exposes no CBLAS gemm on this platform")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 2), np.float32)
    c = np.ones((2, 2), np.float32)
    assert blas.gemm(a, b, c, beta=1.0)
    assert c.tolist() == [[4.0, 4.0], [13.0, 13.0]]
    expanded = np.broadcast_to(np.ones(3, np.float32), (2, 3))  # zero stride: not a BLAS layout
    assert not blas.gemm(expanded, b, c, beta=1.0)
    assert c.tolist() == [[4.0, 4.0], [13.0, 13.0]]  # untouched on refusal
    assert not blas.gemm(a.astype(np.float16), b.astype(np.float16), c.astype(np.float16))
