"""The raw CUDA kernels of cuda_kernels/, executed on the CPU by the host launcher, against NumPy.

Every kernel variant (contiguous/vectorised with head and tail, strided, zero strides, 32- and 64-bit
index math, every dtype, fused mm_plus_mm with odd sizes, K1 != K2, K = 0, transposed views, float16) runs
through ``HostLauncher``; the emulation's barrier checking runs on small kernels of the tests' own.
Needs a C++ compiler; skipped (with the reason) without one.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from openreg.backends.privateuseone import kernels as kl
from openreg.backends.privateuseone import launchers as hl

try:
    hl.find_compiler()
except RuntimeError as exc:  # pragma: no cover - depends on the machine
    pytest.skip(f"no C++ compiler for the host launcher: {exc}", allow_module_level=True)

RNG = np.random.default_rng(1234)
INT_DTYPES = [np.dtype(t) for t in ("int8", "int16", "int32", "int64")]
FLOAT_DTYPES = [np.dtype(t) for t in ("float16", "float32", "float64")]


@pytest.fixture(scope="module")
def launcher() -> hl.HostLauncher:
    launcher = hl.HostLauncher()
    sources = ("abs.cu", "copy.cu", "fill.cu", "mm_plus_mm.cu")
    with ThreadPoolExecutor(len(sources)) as pool:  # cold cache: build the four libraries in parallel
        list(pool.map(launcher.module, sources))
    return launcher


def values(shape, dtype, *, specials=True) -> np.ndarray:
    """Random values exact in every dtype involved, plus the awkward ones (INT_MIN, -0.0, inf, nan)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = RNG.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(dtype)
        if specials and x.size >= 2:
            x.flat[0], x.flat[-1] = info.min, info.max
        return x
    x = (RNG.standard_normal(shape) * 50).astype(dtype)
    if specials and x.size >= 4:
        x.flat[:4] = [-0.0, -np.inf, np.nan, 65504.0 if dtype == np.float16 else 1e30]
    return x


def counted(launcher: hl.HostLauncher, name: str) -> int:
    return launcher.launch_counts[name]


# ----------------------------------------------------------------------------------------------------------
# Launch configuration (pure Python)
# ----------------------------------------------------------------------------------------------------------
def test_python_constants_match_the_kernel_sources():
    text = "".join(p.read_text() for p in hl.kernel_dir().glob("*.cu*"))
    defines = dict(re.findall(r"#define (OPENREG_\w+) (\d+)", text))
    assert int(defines["OPENREG_POINTWISE_THREADS"]) == kl.POINTWISE_THREADS
    assert int(defines["OPENREG_MAX_DIMS"]) == kl.MAX_DIMS
    assert int(defines["OPENREG_MM_BM"]) == kl.MM_TILE_M
    assert int(defines["OPENREG_MM_BN"]) == kl.MM_TILE_N
    assert int(defines["OPENREG_MM_THREADS"]) == kl.MM_THREADS


def test_fastdiv_magic_numbers_divide_exactly():
    divisors = [1, 2, 3, 5, 6, 7, 64, 100, 1000, 65535, 65537, 2**20 + 1, 2**30, 2**31 - 1]
    divisors += RNG.integers(1, 2**31 - 1, size=40).tolist()
    ns = np.concatenate([np.arange(1000), RNG.integers(0, 2**31 - 1, size=2000), [2**31 - 1, 2**31 - 2]])
    ns = ns.astype(np.uint64)
    for d in divisors:
        magic, shift = kl.fastdiv_params(d)
        q = (((ns * np.uint64(magic)) >> np.uint64(32)) + ns) >> np.uint64(shift)
        np.testing.assert_array_equal(q, ns // np.uint64(d), err_msg=f"divisor {d}")


def test_coalesce_merges_orders_and_drops_unit_dims():
    assert kl.coalesce((2, 1, 3, 4), [(12, 99, 4, 1)]) == ([24], [[1]])
    assert kl.coalesce((3, 4), [(1, 3), (4, 1)]) == ([4, 3], [[3, 1], [1, 4]])  # output order wins
    assert kl.coalesce((5, 6), [(6, 1), (0, 0)]) == ([30], [[1], [0]])  # broadcast merges too
    assert kl.coalesce((), [()]) == ([], [[]])


def test_kernel_names_cover_every_dtype_combination():
    assert len(kl.all_kernel_names("abs.cu")) == 14
    assert len(kl.all_kernel_names("fill.cu")) == 18
    assert kl.kernel_name("copy", "contig", "bool", "uint8") == "copy_contig_b8_from_u8"


# ----------------------------------------------------------------------------------------------------------
# abs
# ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", kl.ABS_DTYPES, ids=str)
def test_abs_contiguous_vector_head_and_tail(launcher, dtype):
    name = kl.kernel_name("abs", "contig", dtype)
    for n in (1, 7, 8, 17, 1000, 4099):
        x = values(n + 1, dtype)
        for xs, os_ in ((slice(0, n), slice(0, n)), (slice(1, n + 1), slice(1, n + 1)),  # aligned, same phase
                        (slice(1, n + 1), slice(0, n))):  # different phases: scalar loop
            out = np.zeros(n + 1, dtype)
            before = counted(launcher, name)
            kl.abs_(launcher, out[os_], x[xs])
            assert counted(launcher, name) == before + 1
            np.testing.assert_array_equal(out[os_], np.abs(x[xs]))
            if dtype.kind == "f":
                assert not np.signbit(out[os_]).any()  # -0.0 -> +0.0, nan sign cleared


@pytest.mark.parametrize("dtype", kl.ABS_DTYPES, ids=str)
def test_abs_strided_input_and_output(launcher, dtype):
    name = kl.kernel_name("abs", "strided", dtype)
    x = values((4, 5, 3), dtype)
    for step in (2, 3):  # write into o[:, :, 0:6:2] and o[:, :, 0:6:3]
        o = np.zeros((4, 5, 6), dtype)
        before = counted(launcher, name)
        kl.abs_(launcher, o[:, :, 0:6:step], x[:, :, : len(range(0, 6, step))])
        assert counted(launcher, name) == before + 1
        expect = np.zeros_like(o)
        expect[:, :, 0:6:step] = np.abs(x[:, :, : len(range(0, 6, step))])
        np.testing.assert_array_equal(o, expect)
    t = values((6, 7, 8), dtype).transpose(2, 0, 1)[:, ::2, 1:]  # non-contiguous, offset input
    o = np.empty(t.shape, dtype)
    kl.abs_(launcher, o, t)
    np.testing.assert_array_equal(o, np.abs(t))
    row = values((1, 9), dtype)
    o = np.empty((5, 9), dtype)
    kl.abs_(launcher, o, np.broadcast_to(row, (5, 9)))  # zero strides in the input
    np.testing.assert_array_equal(o, np.abs(np.broadcast_to(row, (5, 9))))
    neg = values((3, 11), dtype)[:, ::-1]  # negative strides
    o = np.empty(neg.shape, dtype)
    kl.abs_(launcher, o, neg)
    np.testing.assert_array_equal(o, np.abs(neg))


def test_abs_in_place_and_64_bit_index_path(launcher):
    x = values((33, 65), np.float32)
    expect = np.abs(x)
    kl.abs_(launcher, x, x)
    np.testing.assert_array_equal(x, expect)
    y = values((7, 9, 11), np.int32)
    for fastdiv in (True, False):
        o = np.zeros((7, 9, 22), np.int32)
        view = o[:, :, ::2]
        launch = kl.abs_launch(launcher.operand(view), launcher.operand(y), fastdiv=fastdiv)
        assert int(launch.args[-1]["use_fastdiv"]) == int(fastdiv)
        launcher.launch(launch)
        np.testing.assert_array_equal(view, np.abs(y))
        assert not o[:, :, 1::2].any()


def test_abs_eight_dims_and_zero_size(launcher):
    x = values((2, 3, 2, 3, 2, 3, 2, 3), np.float64)[..., ::-1]
    o = np.zeros((2, 3, 2, 3, 2, 3, 2, 6))[..., ::2]
    kl.abs_(launcher, o, x.transpose(1, 0, 2, 3, 4, 5, 6, 7).transpose(1, 0, 2, 3, 4, 5, 6, 7))
    np.testing.assert_array_equal(o, np.abs(x))
    before = sum(launcher.launch_counts.values())
    kl.abs_(launcher, np.empty((0, 3), np.int8), np.empty((0, 3), np.int8))
    assert sum(launcher.launch_counts.values()) == before  # nothing to launch
    scalar = np.array(-2.5, np.float16)
    kl.abs_(launcher, scalar, scalar)
    assert float(scalar) == 2.5


def test_abs_rejects_bad_input_before_launching(launcher):
    x = values((4, 4), np.float32)
    out = np.full((4, 4), 7.0, np.float32)
    before = sum(launcher.launch_counts.values())
    cases = [
        (out, x.astype(np.float64), "dtype"),
        (out.astype(bool), x.astype(bool), "unsupported dtype bool"),
        (out, x[:3], "shape"),
        (np.lib.stride_tricks.as_strided(out, (4, 4), (0, 4)), x, "more than one element"),
    ]
    for o, i, message in cases:
        with pytest.raises(RuntimeError, match=message):
            kl.abs_(launcher, o, i)
    buf = values(20, np.float32)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        kl.abs_(launcher, buf[1:11], buf[0:10])  # partial overlap
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        kl.abs_(launcher, ro, np.ones(3, np.float32))

    class DeviceArray:  # what a CuPy array looks like to the host launcher
        def __init__(self):
            self.__cuda_array_interface__ = {"data": (0, False), "shape": (4, 4), "typestr": "<f4", "version": 3}

    with pytest.raises(RuntimeError, match="host array"):
        kl.abs_(launcher, out, DeviceArray())
    assert sum(launcher.launch_counts.values()) == before
    assert (out == 7.0).all()


def test_abs_disjoint_interleaved_views_are_allowed(launcher):
    o = values((4, 6), np.int16)
    even, odd = o[:, 0::2], o[:, 1::2]
    expect = np.abs(odd)
    kl.abs_(launcher, even, odd)  # same byte range, no shared element
    np.testing.assert_array_equal(even, expect)


# ----------------------------------------------------------------------------------------------------------
# copy (strided, with dtype conversion)
# ----------------------------------------------------------------------------------------------------------
def copy_source(dtype, shape, out_dtype) -> np.ndarray:
    """Values whose conversion is defined (in range, no NaN into integers) for the pair."""
    dtype, out_dtype = np.dtype(dtype), np.dtype(out_dtype)
    if dtype.kind == "f" and out_dtype.kind in "iub":
        x = (RNG.standard_normal(shape) * 40).astype(dtype)  # fractions truncate, negatives wrap in uint8
        if out_dtype == np.bool_ and x.size >= 3:
            x.flat[:3] = [0.0, -0.0, np.nan]
        return x
    return values(shape, dtype, specials=not (dtype.kind == "f" and out_dtype.kind in "iub"))


def reference_cast(x: np.ndarray, out_dtype) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(out_dtype)


@pytest.mark.parametrize("out_dtype", kl.COPY_DTYPES, ids=str)
def test_copy_every_dtype_pair_contiguous_and_strided(launcher, out_dtype):
    for in_dtype in kl.COPY_DTYPES:
        x = copy_source(in_dtype, (5, 37), out_dtype)
        expect = reference_cast(x, out_dtype)
        contig = kl.kernel_name("copy", "contig", out_dtype, in_dtype)
        strided = kl.kernel_name("copy", "strided", out_dtype, in_dtype)
        c0, s0 = counted(launcher, contig), counted(launcher, strided)

        o = np.zeros((5, 37), out_dtype)
        kl.copy_(launcher, o, x)
        np.testing.assert_array_equal(o, expect, err_msg=f"{in_dtype} -> {out_dtype} contiguous")
        o = np.zeros(5 * 37 + 1, out_dtype)
        kl.copy_(launcher, o[1:], x.ravel())  # phases differ (or not, for 1-byte types)
        np.testing.assert_array_equal(o[1:], expect.ravel(), err_msg=f"{in_dtype} -> {out_dtype} offset")
        assert counted(launcher, contig) == c0 + 2

        o = np.zeros((37, 15), out_dtype)
        kl.copy_(launcher, o[:, 0:15:3], x.T)  # transposed input into a strided output
        np.testing.assert_array_equal(o[:, 0:15:3], expect.T, err_msg=f"{in_dtype} -> {out_dtype} strided")
        assert not o[:, 1:15:3].astype(bool).any()
        assert counted(launcher, strided) == s0 + 1


def test_copy_broadcast_zero_size_and_64_bit_index(launcher):
    row = values((1, 1, 13), np.int64)
    o = np.zeros((3, 4, 13), np.float32)
    kl.copy_(launcher, o, np.broadcast_to(row, (3, 4, 13)))
    np.testing.assert_array_equal(o, np.broadcast_to(row, (3, 4, 13)).astype(np.float32))
    scalar = np.array(3.75)
    o = np.zeros((2, 3), np.float16)
    kl.copy_(launcher, o, np.broadcast_to(scalar, (2, 3)))
    assert (o == 3.75).all()
    kl.copy_(launcher, np.empty((4, 0), np.int8), np.empty((4, 0), np.float64))
    x = values((6, 10, 4), np.float64)
    o = np.zeros((4, 10, 6), np.float16).transpose(2, 1, 0)
    launcher.launch(kl.copy_launch(launcher.operand(o), launcher.operand(x), fastdiv=False))
    np.testing.assert_array_equal(o, reference_cast(x, np.float16))


def test_copy_float16_rounding_matches_numpy(launcher):
    # halfway cases, subnormals of float16 (normal in float32/64), overflow to inf: round-to-nearest-even
    pieces = [np.float64(1) + np.arange(-64, 64) * 2.0**-11, 2.0**-24 * np.arange(0.0, 40.0, 0.25),
              np.array([65504.0, 65519.99, 65520.0, 1e6, -1e6, 2.0**-25, 3 * 2.0**-26])]
    x64 = np.concatenate(pieces)
    for src in (x64, x64.astype(np.float32)):
        o = np.zeros(src.shape, np.float16)
        kl.copy_(launcher, o, src)
        np.testing.assert_array_equal(o.view(np.uint16), reference_cast(src, np.float16).view(np.uint16))
    back = np.zeros(o.shape, np.float64)
    kl.copy_(launcher, back, o)
    np.testing.assert_array_equal(back, o.astype(np.float64))


def test_copy_overlap_rules(launcher):
    x = values(16, np.int32)
    same = x.copy()
    kl.copy_(launcher, x, x)  # onto itself: nothing to do
    np.testing.assert_array_equal(x, same)
    f = values(8, np.float32, specials=False)
    expect = f.astype(np.int32)
    as_int = f.view(np.int32)
    kl.copy_(launcher, as_int, f)  # in-place conversion between same-size dtypes, element by element
    np.testing.assert_array_equal(as_int, expect)
    buf = np.arange(10, dtype=np.int64)
    with pytest.raises(RuntimeError, match="single memory location"):
        kl.copy_(launcher, buf[1:], buf[:-1])
    np.testing.assert_array_equal(buf, np.arange(10))
    with pytest.raises(RuntimeError, match="single memory location"):
        kl.copy_(launcher, buf.view(np.int32)[:10], buf[:10])  # same address, different item size
    with pytest.raises(RuntimeError, match="more than one element"):
        kl.copy_(launcher, np.lib.stride_tricks.as_strided(buf, (3, 3), (8, 8)), np.ones((3, 3), np.int64))
    with pytest.raises(RuntimeError, match="dtype complex64 is not supported"):
        kl.copy_(launcher, np.zeros(3, np.complex64), np.zeros(3, np.float32))


# ----------------------------------------------------------------------------------------------------------
# fill
# ----------------------------------------------------------------------------------------------------------
FILL_VALUES = {"bool": True, "uint8": 255, "int8": -128, "int16": -32768, "int32": 2**31 - 1, "int64": -(2**63),
               "float16": 1 / 3, "float32": -2.5e38, "float64": float("nan")}


@pytest.mark.parametrize("dtype", kl.FILL_DTYPES, ids=str)
def test_fill_contiguous_strided_and_expanded(launcher, dtype):
    value = FILL_VALUES[str(dtype)]
    expect = np.array(value).astype(dtype)
    contig, strided = kl.kernel_name("fill", "contig", dtype), kl.kernel_name("fill", "strided", dtype)
    c0, s0 = counted(launcher, contig), counted(launcher, strided)
    for n in (1, 5, 16, 33, 1001):
        o = np.zeros(n + 2, dtype)
        kl.fill_(launcher, o[1 : n + 1], value)  # unaligned head, vectors, tail
        np.testing.assert_array_equal(o[1 : n + 1], np.full(n, expect))
        assert not o[0] and not o[-1]
    assert counted(launcher, contig) == c0 + 5
    o = np.zeros((3, 4, 6), dtype)
    kl.fill_(launcher, o[:, :, 0:6:3], value)
    np.testing.assert_array_equal(o[:, :, 0:6:3], np.full((3, 4, 2), expect))
    assert not o[:, :, 1:6:3].astype(bool).any()
    base = np.zeros(8, dtype)
    expanded = np.lib.stride_tricks.as_strided(base, (5, 4), (0, 2 * dtype.itemsize))  # fill_ allows this
    kl.fill_(launcher, expanded, value)
    np.testing.assert_array_equal(base[::2], np.full(4, expect))
    assert not base[1::2].astype(bool).any()
    assert counted(launcher, strided) == s0 + 2


def test_fill_value_conversion_and_overflow(launcher):
    o = np.zeros(4, np.int16)
    kl.fill_(launcher, o, -3.9)
    assert (o == -3).all()
    kl.fill_(launcher, o, np.int64(12))
    assert (o == 12).all()
    h = np.zeros(3, np.float16)
    kl.fill_(launcher, h, float("-inf"))
    assert np.isneginf(h).all()
    for arr, value in ((np.zeros(3, np.int8), 128), (np.zeros(3, np.uint8), -1), (np.zeros(3, np.float16), 1e6),
                       (np.zeros(3, np.int32), float("nan")), (np.zeros(3, np.float32), 1 + 2j)):
        with pytest.raises(RuntimeError, match="fill_"):
            kl.fill_(launcher, arr, value)
        assert not arr.any()


# ----------------------------------------------------------------------------------------------------------
# mm_plus_mm
# ----------------------------------------------------------------------------------------------------------
def mm_operands(m, n, k1, k2, dtype, layouts="nnnn"):
    """a, b, c, d with 'n' (row-major) or 't' (a transposed view of a row-major array) layouts."""
    def make(rows, cols, layout):
        if layout == "t":
            return (RNG.standard_normal((cols, rows))).astype(dtype).T
        return RNG.standard_normal((rows, cols)).astype(dtype)

    return (make(m, k1, layouts[0]), make(k1, n, layouts[1]), make(m, k2, layouts[2]), make(k2, n, layouts[3]))


def check_mm(out, a, b, c, d):
    f64 = [x.astype(np.float64) for x in (a, b, c, d)]
    ref = f64[0] @ f64[1] + f64[2] @ f64[3]
    k = a.shape[1] + c.shape[1]
    if out.dtype == np.float16:  # float32 accumulation, one rounding to half
        np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=1e-6 * k + 2e-3)
    else:
        eps = np.finfo(out.dtype).eps
        np.testing.assert_allclose(out, ref, rtol=8 * k * eps, atol=8 * k * eps)


@pytest.mark.parametrize("dtype", kl.MM_DTYPES, ids=str)
@pytest.mark.parametrize("m,n,k1,k2,layouts", [
    (67, 45, 33, 19, "nnnn"),  # odd sizes, K1 != K2
    (130, 70, 16, 48, "tnnt"),  # several tiles, transposed views (no copy)
    (1, 129, 5, 0, "ntnn"),  # K2 = 0
    (65, 1, 0, 0, "nnnn"),  # K1 = K2 = 0: out = 0
    (64, 64, 64, 17, "tttt"),  # exact tile multiples, every operand transposed
])
def test_mm_plus_mm_shapes_and_layouts(launcher, dtype, m, n, k1, k2, layouts):
    a, b, c, d = mm_operands(m, n, k1, k2, dtype, layouts)
    out = np.full((m, n), np.nan, dtype)
    name = kl.kernel_name("mm_plus_mm", None, dtype)
    before = counted(launcher, name)
    kl.mm_plus_mm(launcher, a, b, c, d, out)
    assert counted(launcher, name) == before + 1
    check_mm(out, a, b, c, d)


def test_mm_plus_mm_strided_out_and_zero_strides(launcher):
    a, b, c, d = mm_operands(40, 23, 9, 70, np.float32)
    big = np.zeros((40, 46), np.float32)
    kl.mm_plus_mm(launcher, a[:, :], b, c, d, big[:, ::2])
    check_mm(big[:, ::2], a, b, c, d)
    assert not big[:, 1::2].any()
    b0 = np.broadcast_to(RNG.standard_normal((1, 23)).astype(np.float32), (9, 23))  # zero row stride
    out = np.empty((23, 40), np.float32).T
    kl.mm_plus_mm(launcher, a, b0, c[:, ::-1], d[::-1], out)
    check_mm(out, a, b0, c[:, ::-1], d[::-1])
    kl.mm_plus_mm(launcher, a[:0], b, c[:0], d, np.empty((0, 23), np.float32))  # M = 0: nothing to launch


def test_mm_plus_mm_rejects_bad_input_and_leaves_out_untouched(launcher):
    a, b, c, d = mm_operands(8, 6, 5, 4, np.float32)
    out = np.full((8, 6), 42.0, np.float32)
    before = sum(launcher.launch_counts.values())
    bad = [
        ((a.astype(np.int32), b.astype(np.int32), c.astype(np.int32), d.astype(np.int32), out.astype(np.int32)),
         "one dtype"),
        ((a, b.astype(np.float64), c, d, out), "one dtype"),
        ((a, b, c, d[:3], out), "shapes do not agree"),
        ((a, b, c, d, out[:7]), "shapes do not agree"),
        ((a, b[:, :5], c, d, out), "shapes do not agree"),
        ((a.ravel(), b, c, d, out), "2-d"),
    ]
    for args, message in bad:
        with pytest.raises(RuntimeError, match=message):
            kl.mm_plus_mm(launcher, *args)
    square = RNG.standard_normal((6, 6)).astype(np.float32)
    sq_out = square.copy()
    for args, name in (((sq_out, square, square, square), "a"), ((square, square, square, sq_out.T), "d")):
        with pytest.raises(RuntimeError, match=f"out overlaps input {name}"):
            kl.mm_plus_mm(launcher, *args, sq_out)
    np.testing.assert_array_equal(sq_out, square)
    assert (out == 42.0).all()
    assert sum(launcher.launch_counts.values()) == before


# ----------------------------------------------------------------------------------------------------------
# The emulation itself: barriers, shared memory, errors, cache
# ----------------------------------------------------------------------------------------------------------
BARRIER_KERNELS = textwrap.dedent("""
    #include "common.cuh"
    // Reverses each 64-element block through shared memory: wrong without a working barrier.
    extern "C" __global__ void reverse_block(int* out, const int* in, int skip_from) {
      __shared__ int tile[64];
      const int t = threadIdx.x;
      tile[t] = in[blockIdx.x * 64 + t];
      if (t < skip_from) __syncthreads();
      out[blockIdx.x * 64 + t] = tile[63 - t];
    }
    extern "C" __global__ void two_barriers(int* out) {
      if (threadIdx.x % 2) { __syncthreads(); } else { __syncthreads(); }
      out[threadIdx.x] = 1;
    }
""")


@pytest.mark.parametrize("defines", [(), ("OPENREG_EMU_UCONTEXT",)], ids=["asm-switch", "ucontext"])
def test_barrier_and_shared_memory(defines):
    module = hl.HostLauncher(defines=defines).compile(BARRIER_KERNELS, "barrier_test.cu")
    assert set(module.kernels) == {"reverse_block", "two_barriers"} and module.uses_fibers
    x = np.arange(5 * 64, dtype=np.int32)
    out = np.zeros_like(x)
    args = (np.uint64(out.ctypes.data), np.uint64(x.ctypes.data))
    module.launch("reverse_block", (5, 1, 1), (64, 1, 1), 0, (*args, np.int32(64)), workers=2)
    np.testing.assert_array_equal(out, x.reshape(5, 64)[:, ::-1].ravel())
    with pytest.raises(RuntimeError, match=r"thread \(10,0,0\) exited without reaching the __syncthreads\(\)"):
        module.launch("reverse_block", (5, 1, 1), (64, 1, 1), 0, (*args, np.int32(10)))
    with pytest.raises(RuntimeError, match="another __syncthreads.. call on the same line"):
        module.launch("two_barriers", (1, 1, 1), (8, 1, 1), 0, (np.uint64(out.ctypes.data),))
    with pytest.raises(RuntimeError, match="takes parameters of"):
        module.launch("reverse_block", (1, 1, 1), (64, 1, 1), 0, args)
    with pytest.raises(RuntimeError, match="invalid configuration"):
        module.launch("reverse_block", (1, 1, 1), (2048, 1, 1), 0, (*args, np.int32(64)))


def test_compile_errors_show_the_compiler_log(tmp_path):
    launcher = hl.HostLauncher(cache_dir=tmp_path)
    with pytest.raises(RuntimeError, match=r"(?s)compiling broken.cu failed.*broken.cu:3.*undeclared_name"):
        launcher.compile('#include "common.cuh"\nextern "C" __global__ void k(int* p) {\n  p[0] = undeclared_name;\n}\n',
                         "broken.cu")


def test_missing_compiler_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    with pytest.raises(RuntimeError, match="not an executable compiler"):
        hl.find_compiler()
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(RuntimeError, match="no C\\+\\+ compiler found"):
        hl.find_compiler()


def test_two_processes_racing_on_one_cache_entry(tmp_path):
    script = textwrap.dedent(f"""
        import numpy as np
        from openreg.backends.privateuseone import launchers as hl
        m = hl.HostLauncher(cache_dir={str(tmp_path)!r}).compile(
            'extern "C" __global__ void seven(int* p) {{ p[threadIdx.x] = 7 + {os.getpid()}*0; }}', "race.cu")
        x = np.zeros(4, np.int32)
        m.launch("seven", (1, 1, 1), (4, 1, 1), 0, (np.uint64(x.ctypes.data),))
        assert (x == 7).all()
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # import openreg as we do
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    libraries = list(tmp_path.glob("race-*.so"))
    assert len(libraries) == 1 and not list(tmp_path.glob("build-*"))


# ----------------------------------------------------------------------------------------------------------
# The CUDA launcher's decisions (no GPU needed)
# ----------------------------------------------------------------------------------------------------------
def test_cupy_launcher_imports_without_cupy_and_routes_big_gemms_to_cublas():

    launcher = hl.CupyLauncher()
    assert not launcher.prefers_blas(np.float32, 64, 64, 64, 64)  # launch-bound: stay fused
    assert launcher.prefers_blas(np.float32, 2048, 2048, 1024, 1024)
    assert launcher.prefers_blas(np.float64, 64, 64, 10**6, 10**6)  # few tiles, long K
    assert not launcher.prefers_blas(np.float16, 8192, 8192, 8192, 8192)  # no half path in cupy.cublas.gemm
    assert not launcher.prefers_blas(np.float32, 4096, 4096, 0, 8192)  # K = 0 stays fused
    with pytest.raises(RuntimeError, match="device array"):
        launcher.operand(np.zeros(3))


class FakeDeviceArray:
    """What the CUDA launcher sees of a CuPy array: ``__cuda_array_interface__`` and ``.device.id``
    (here over host memory, so the fake CuPy below can run the kernels with the host launcher)."""

    def __init__(self, array: np.ndarray, device: int = 0):
        self.array = array
        self.__cuda_array_interface__ = {"data": array.__array_interface__["data"], "shape": array.shape,
                                         "strides": array.strides, "typestr": array.dtype.str, "version": 3}
        self.device = types.SimpleNamespace(id=device)


@pytest.fixture
def fake_cupy(monkeypatch):
    """A CuPy stand-in whose RawModule compiles the code it is given with the host launcher and whose
    kernels run there: the CUDA launcher's module cache, devices, grids and packed arguments are real."""
    host = hl.HostLauncher()
    record = {"modules": [], "betas": []}

    class Device:
        current = 0

        def __init__(self, index=None):
            self.id = Device.current if index is None else index

        def __enter__(self):
            self.previous, Device.current = Device.current, self.id
            return self

        def __exit__(self, *exc):
            Device.current = self.previous

    class RawModule:
        def __init__(self, code, options=()):
            record["modules"].append((Device.current, tuple(options)))
            name = re.match(r'#line 1 "([^"]+)"', code).group(1)  # load_source's first line names the file
            self.module = host.build(code, name)

        def get_function(self, name):
            def kernel(grid, block, args, shared_mem=0):
                self.module.launch(name, grid, block, shared_mem, args)
            return kernel

    def gemm(transa, transb, a, b, out=None, alpha=1.0, beta=0.0):
        assert (transa, transb) == ("N", "N")
        record["betas"].append(beta)
        out.array[...] = alpha * (a.array @ b.array) + (beta * out.array if beta else 0)

    cupy = types.ModuleType("cupy")
    cupy.RawModule = RawModule
    cupy.cuda = types.SimpleNamespace(Device=Device, compiler=types.SimpleNamespace(CompileException=Exception))
    cupy.cublas = types.SimpleNamespace(gemm=gemm)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    return record


def test_cupy_launcher_runs_the_same_launches(fake_cupy):

    launcher = hl.CupyLauncher()
    x = values((6, 10), np.float32)
    out = np.zeros((6, 20), np.float32)
    kl.abs_(launcher, FakeDeviceArray(out[:, ::2]), FakeDeviceArray(x))
    np.testing.assert_array_equal(out[:, ::2], np.abs(x))
    kl.fill_(launcher, FakeDeviceArray(out[:, 1::2]), 5.0)
    assert (out[:, 1::2] == 5.0).all()
    y = np.zeros(10, np.float32)
    kl.abs_(launcher, FakeDeviceArray(y, device=1), FakeDeviceArray(-np.arange(10, dtype=np.float32), device=1))
    assert y.tolist() == list(range(10))
    assert launcher.launch_counts == {"abs_strided_f32": 1, "fill_strided_f32": 1, "abs_contig_f32": 1}
    # one RawModule per (source, device), NVRTC options from launchers.nvrtc_options
    assert fake_cupy["modules"] == [(0, hl.nvrtc_options()), (0, hl.nvrtc_options()), (1, hl.nvrtc_options())]
    with pytest.raises(RuntimeError, match="one device"):
        kl.abs_(launcher, FakeDeviceArray(y, device=0), FakeDeviceArray(y.copy(), device=1))
    with pytest.raises(RuntimeError, match="device array"):
        kl.abs_(launcher, y, y)


def test_cupy_launcher_mm_plus_mm_fused_and_cublas(fake_cupy):

    launcher = hl.CupyLauncher()
    small = mm_operands(70, 33, 20, 9, np.float32, "ntnn")
    out = np.zeros((70, 33), np.float32)
    kl.mm_plus_mm(launcher, *map(FakeDeviceArray, small), FakeDeviceArray(out))
    check_mm(out, *small)
    assert launcher.launch_counts == {"mm_plus_mm_f32": 1} and fake_cupy["betas"] == []
    big = mm_operands(256, 256, 1600, 1700, np.float32)  # 2*M*N*(K1+K2) > CUBLAS_CROSSOVER_FLOPS
    out = np.full((256, 256), np.nan, np.float32)
    kl.mm_plus_mm(launcher, *map(FakeDeviceArray, big), FakeDeviceArray(out))
    check_mm(out, *big)
    assert fake_cupy["betas"] == [0.0, 1.0] and launcher.launch_counts["cublas_gemm"] == 2


# ----------------------------------------------------------------------------------------------------------
# The device ops end to end: OPENREG_EMULATE_KERNELS=1 routes them through the real host launcher
# ----------------------------------------------------------------------------------------------------------
def test_device_ops_go_through_the_launcher_only_when_enabled(monkeypatch):
    import openreg

    if openreg.privateuseone.driver() != "emulated":
        pytest.skip("the OPENREG_EMULATE_KERNELS switch is for the emulated driver")
    lnch = kl.launcher()
    dev = "privateuseone:0"
    x_np = values((3, 4, 6), np.float32, specials=False)
    x = openreg.tensor(x_np, device=dev)

    def launched(fn) -> int:
        before = sum(lnch.launch_counts.values())
        fn()
        return sum(lnch.launch_counts.values()) - before

    out = openreg.zeros(3, 4, 6, device=dev)
    a, b = openreg.tensor(x_np[0], device=dev), openreg.tensor(x_np[1].T.copy(), device=dev)
    mm_out = openreg.empty(4, 4, device=dev)
    ops = {
        "abs": lambda: openreg.abs(x[:, :, 1:4]),
        "abs.out": lambda: openreg.ops.aten.abs.out(x[:, :, 1:4], out=out[:, :, 0:6:2]),
        "abs_": lambda: x.clone().abs_(),
        "copy_": lambda: out.copy_(x.transpose(0, 1).reshape(3, 4, 6)),
        "to(dtype)": lambda: x.transpose(0, 2).to(openreg.float64),
        "fill_": lambda: out.fill_(2.5),
        "_mm_plus_mm": lambda: openreg.ops.inductor._mm_plus_mm(a, b, a, b, mm_out),
    }
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "0")
    assert {name: launched(fn) for name, fn in ops.items()} == dict.fromkeys(ops, 0)
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    counts = {name: launched(fn) for name, fn in ops.items()}
    assert all(n >= 1 for n in counts.values()), counts
    # and the launched kernels computed the right thing
    openreg.ops.aten.abs.out(x[:, :, 1:4], out=out[:, :, 0:6:2])
    np.testing.assert_array_equal(out.cpu().numpy()[:, :, 0:6:2], np.abs(x_np[:, :, 1:4]))
    np.testing.assert_array_equal(x.transpose(0, 2).to(openreg.float64).cpu().numpy(),
                                  x_np.transpose(2, 1, 0).astype(np.float64))
    openreg.ops.inductor._mm_plus_mm(a, b, a, b, mm_out)
    ref = 2 * (x_np[0].astype(np.float64) @ x_np[1].T.astype(np.float64))
    np.testing.assert_allclose(mm_out.cpu().numpy(), ref, rtol=1e-5, atol=1e-4)


def test_abs_of_a_cached_signature_follows_the_raw_kernel_switch(monkeypatch):
    """A contiguous float32 ``abs`` repeated on the device takes the structured kernel's ufunc shortcut while raw
    kernels are off; switching ``OPENREG_EMULATE_KERNELS`` on afterwards sends the same (cached) signature
    through the raw kernel again, and off again back to the ufunc, with the same values."""
    import openreg

    if openreg.privateuseone.driver() != "emulated":
        pytest.skip("the OPENREG_EMULATE_KERNELS switch is for the emulated driver")
    lnch = kl.launcher()
    x_np = values((5, 7), np.float32, specials=False)
    x = openreg.tensor(x_np, device="privateuseone:0")

    def launched() -> int:
        before = sum(lnch.launch_counts.values())
        np.testing.assert_array_equal(x.abs().cpu().numpy(), np.abs(x_np))
        return sum(lnch.launch_counts.values()) - before

    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "0")
    assert [launched() for _ in range(3)] == [0, 0, 0]
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    assert all(n >= 1 for n in (launched(), launched()))
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "0")
    assert launched() == 0
