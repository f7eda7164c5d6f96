"""float16/bfloat16 GEMMs: float32 accumulation, one rounding; the cuBLAS gemmEx path over a cuBLAS double."""
import ctypes
import sys
import types

import numpy as np
import pytest
from device_params import DEVICES
from openreg.backends.privateuseone import gemm_16bit

import openreg
from openreg._array_bridge import from_float32, to_float32


def bf16_bits_to_float32(bits):
    """Raw bfloat16 bits (how cuBLAS sees the buffers) as float32."""
    return to_float32(np.asarray(bits).view(np.uint16), openreg.bfloat16)


def float32_to_bf16_bits(values):
    return from_float32(values, openreg.bfloat16).view(np.uint16)


class FakeArray(np.ndarray):
    """A host array standing in for a CuPy array: ``.data.ptr`` is its address, as cuBLAS would get it."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


def _reference(a32, b32, kind, alpha=1.0, beta=0.0, c32=None):
    prod = np.matmul(a32, b32) * np.float32(alpha)
    if beta:
        prod = prod + np.float32(beta) * c32
    return prod.astype(np.float16).astype(np.float32) if kind == "float16" else \
        bf16_bits_to_float32(float32_to_bf16_bits(prod))


def _ints(rng, *shape):
    return rng.integers(-8, 9, size=shape).astype(np.float32)   # exact in 16 bits and in float32 sums


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
def test_products_accumulate_in_float32_and_round_once(device, kind):
    dt = getattr(openreg, kind)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 300)).astype(np.float32), rng.standard_normal((300, 4)).astype(np.float32)
    ta, tb = openreg.tensor(a, dtype=dt, device=device), openreg.tensor(b, dtype=dt, device=device)
    a16, b16 = ta.cpu().float().numpy(), tb.cpu().float().numpy()
    np.testing.assert_array_equal(openreg.mm(ta, tb).cpu().float().numpy(), _reference(a16, b16, kind))
    np.testing.assert_array_equal((ta @ tb).cpu().float().numpy(), _reference(a16, b16, kind))
    np.testing.assert_array_equal(openreg.mm(tb.t(), ta.t()).cpu().float().numpy(),
                                  _reference(b16.T, a16.T, kind))     # transposed operands
    c = openreg.tensor(rng.standard_normal((5, 4)).astype(np.float32), dtype=dt, device=device)
    got = openreg.addmm(c, ta, tb, beta=0.5, alpha=2.0).cpu().float().numpy()
    np.testing.assert_array_equal(got, _reference(a16, b16, kind, 2.0, 0.5, c.cpu().float().numpy()))
    ba = openreg.tensor(rng.standard_normal((3, 5, 7)).astype(np.float32), dtype=dt, device=device)
    bb = openreg.tensor(rng.standard_normal((3, 7, 2)).astype(np.float32), dtype=dt, device=device)
    np.testing.assert_array_equal(openreg.bmm(ba, bb).cpu().float().numpy(),
                                  _reference(ba.cpu().float().numpy(), bb.cpu().float().numpy(), kind))
    out = openreg.empty(5, 4, dtype=dt, device=device)
    openreg.mm(ta, tb, out=out)
    np.testing.assert_array_equal(out.cpu().float().numpy(), _reference(a16, b16, kind))


@pytest.mark.parametrize("device", DEVICES)
def test_bf16_training_step_gradients(device):
    w = openreg.randn(4, 3, device=device).bfloat16().requires_grad_()
    x = openreg.randn(2, 4, device=device).bfloat16()
    (x @ w).float().sum().backward()
    expected = _reference(x.cpu().float().numpy().T, np.ones((2, 3), np.float32), "bfloat16")
    assert w.grad.dtype is openreg.bfloat16
    np.testing.assert_array_equal(w.grad.cpu().float().numpy(), expected)


# -- the cuBLAS path over a double that reads the column-major operands from their addresses ----------------
def _col_major(ptr, dtype, rows, cols, ld, trans):
    """op(X) (rows x cols) of a column-major matrix at ``ptr`` with leading dimension ``ld``."""
    item = np.dtype(dtype).itemsize
    extent = (rows - 1) * ld + cols if trans else (cols - 1) * ld + rows
    buf = (ctypes.c_char * (extent * item)).from_address(ptr)
    strides = (ld * item, item) if trans else (item, ld * item)
    return np.ndarray((rows, cols), dtype, buffer=buf, strides=strides)


def _fake_cublas(calls):
    cublas = types.ModuleType("cupy_backends.cuda.libs.cublas")
    cublas.CUBLAS_OP_N, cublas.CUBLAS_OP_T = 0, 1
    cublas.CUBLAS_COMPUTE_32F, cublas.CUBLAS_GEMM_DEFAULT = 68, -1
    cublas.CUBLAS_POINTER_MODE_HOST, cublas.CUBLAS_POINTER_MODE_DEVICE = 0, 1
    mode = [1]
    cublas.getPointerMode = lambda h: mode[0]
    cublas.setPointerMode = lambda h, m: mode.__setitem__(0, m)
    types_ = {14: np.uint16, 2: np.float16}

    def widen(x, t):
        return bf16_bits_to_float32(np.ascontiguousarray(x)) if t == 14 else x.astype(np.float32)

    def gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                compute, algo):
        assert mode[0] == cublas.CUBLAS_POINTER_MODE_HOST and compute == 68 and Atype == Btype == Ctype
        calls.append(("gemmEx", transa, transb, m, n, k, lda, ldb, ldc))
        dt = types_[Atype]
        al = ctypes.c_float.from_address(alpha).value
        be = ctypes.c_float.from_address(beta).value
        opa = widen(_col_major(A, dt, m, k, lda, transa == 1), Atype)
        opb = widen(_col_major(B, dt, k, n, ldb, transb == 1), Btype)
        c = _col_major(C, dt, m, n, ldc, False)
        res = al * (opa @ opb) + (be * widen(c, Ctype) if be else 0)
        c[...] = float32_to_bf16_bits(res) if Ctype == 14 else res.astype(np.float16)

    def gemm_strided(handle, transa, transb, m, n, k, alpha, A, Atype, lda, sa, B, Btype, ldb, sb, beta, C,
                     Ctype, ldc, sc, count, compute, algo):
        calls.append(("gemmStridedBatchedEx", count))
        for i in range(count):
            gemm_ex(handle, transa, transb, m, n, k, alpha, A + 2 * i * sa, Atype, lda, B + 2 * i * sb, Btype,
                    ldb, beta, C + 2 * i * sc, Ctype, ldc, compute, algo)
    cublas.gemmEx, cublas.gemmStridedBatchedEx = gemm_ex, gemm_strided
    return cublas


@pytest.fixture
def fake_cupy_backends(monkeypatch):
    calls = []
    runtime = types.ModuleType("cupy_backends.cuda.api.runtime")
    runtime.CUDA_R_16BF, runtime.CUDA_R_16F, runtime.CUDA_R_32F = 14, 2, 0
    cublas = _fake_cublas(calls)
    root, cuda, api, libs = (types.ModuleType(n) for n in ("cupy_backends", "cupy_backends.cuda",
                                                             "cupy_backends.cuda.api", "cupy_backends.cuda.libs"))
    root.cuda, cuda.api, cuda.libs, api.runtime, libs.cublas = cuda, api, libs, runtime, cublas
    for mod in (root, cuda, api, libs, runtime, cublas):
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
    cp = types.SimpleNamespace(cuda=types.SimpleNamespace(get_cublas_handle=lambda: 1234),
                               ascontiguousarray=lambda x: np.ascontiguousarray(x).view(FakeArray), matmul=np.matmul,
                               float32=np.float32)
    return cp, calls


def _raw(values, kind):
    arr = float32_to_bf16_bits(values) if kind == "bfloat16" else values.astype(np.float16)
    return arr.view(FakeArray)


@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "strided_copy"])
def test_cublas_gemm_ex_arguments(fake_cupy_backends, kind, layout):
    cp, calls = fake_cupy_backends
    rng = np.random.default_rng(1)
    a32, b32, c32 = _ints(rng, 6, 5), _ints(rng, 5, 3), _ints(rng, 6, 3)
    a = _raw(a32, kind) if layout[0] != "t" else _raw(a32.T.copy(), kind).T
    b = _raw(b32, kind) if layout[1] != "t" else _raw(b32.T.copy(), kind).T
    if layout == "strided_copy":
        a = _raw(np.repeat(a32, 2, axis=1), kind)[:, ::2]            # no unit stride: copied raw
    out = _raw(c32, kind).copy().view(FakeArray)
    gemm_16bit.cublas_gemm_16bit(cp, a, b, out, kind, alpha=2.0, beta=0.5)
    got = bf16_bits_to_float32(out) if kind == "bfloat16" else out.astype(np.float32)
    np.testing.assert_array_equal(got, _reference(a32, b32, kind, 2.0, 0.5, c32))
    assert calls[0][0] == "gemmEx"


@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
def test_cublas_batched(fake_cupy_backends, kind):
    cp, calls = fake_cupy_backends
    rng = np.random.default_rng(2)
    a32, b32 = _ints(rng, 3, 4, 5), _ints(rng, 3, 5, 2)
    out = _raw(np.zeros((3, 4, 2), np.float32), kind)
    gemm_16bit.cublas_gemm_16bit(cp, _raw(a32, kind), _raw(b32, kind), out, kind)
    got = bf16_bits_to_float32(out) if kind == "bfloat16" else out.astype(np.float32)
    np.testing.assert_array_equal(got, _reference(a32, b32, kind))
    assert calls[0] == ("gemmStridedBatchedEx", 3)


def test_cuda_driver_routes_16bit_gemms_to_cublas(monkeypatch):
    from openreg.backends.privateuseone import cuda_driver
    seen = []
    monkeypatch.setattr(gemm_16bit, "cublas_gemm_16bit", lambda cp, *a, **k: seen.append(a[3]) or a[2])
    monkeypatch.setattr(cuda_driver, "_cupy", lambda: types.SimpleNamespace())
    drv = object.__new__(cuda_driver.CudaDriver)
    out = np.zeros((1, 1), np.uint16)
    assert drv.gemm_16bit(np.zeros((1, 1), np.uint16), np.zeros((1, 1), np.uint16), out, "bfloat16") is out
    assert seen == ["bfloat16"]
