"""bfloat16 reductions on the device accumulate in float32 inside a raw kernel (cuda_kernels/bf16_reduce.cu) and
round once: sum/mean, amax/amin, softmax/log_softmax. The kernel runs here through the host launcher and is
compared bitwise with a NumPy reference that adds in the kernel's fixed order (per-thread strided partial sums,
then a pairwise tree); through the device ops it equals the CPU's result (NumPy's pairwise float32 sums) up to a
last-bit difference where the two orders round to different sides of a bfloat16 boundary."""
import numpy as np
import pytest
from device_params import LAST_DEVICE
from openreg.backends.privateuseone import kernels
from openreg.backends.privateuseone.launchers import HostLauncher
from test_bf16_kernels import round_bf16, widen

import openreg
from openreg import _array_bridge

T = kernels.REDUCE_THREADS


@pytest.fixture(scope="module")
def launcher():
    return HostLauncher(workers=2)


def _block_sum(values):
    """Row sums (rows, n) in the kernel's order: thread t adds elements t, t+T, ... from +0, then a pairwise tree."""
    rows, n = values.shape
    partial = np.zeros((rows, T), np.float32)
    with np.errstate(all="ignore"):
        for k in range(0, n, T):
            chunk = values[:, k:k + T]
            partial[:, :chunk.shape[1]] += chunk
        s = T // 2
        while s:
            partial[:, :s] += partial[:, s:2 * s]
            s //= 2
    return partial[:, 0]


def _words(rng, shape, scale=3.0):
    return round_bf16((rng.standard_normal(shape) * scale).astype(np.float32))


@pytest.mark.parametrize("shape,dims", [((7, 300), (1,)), ((300, 5), (0,)), ((4, 6, 70), (0, 2)), ((1000,), (0,)),
                                        ((3, 0), (1,)), ((), ())])
def test_sum_and_mean_match_the_kernel_order_bitwise(launcher, shape, dims):
    rng = np.random.default_rng(len(shape))
    x = _words(rng, shape)
    kept = [d for d in range(len(shape)) if d not in dims]
    rows = widen(x).transpose(*kept, *dims).reshape(int(np.prod([shape[d] for d in kept])), -1)
    total = _block_sum(rows)
    count = np.float32(np.prod([shape[d] for d in dims]))
    out_shape = tuple(shape[d] for d in kept)
    out = np.empty(out_shape, np.uint16)
    kernels.bf16_reduce(launcher, "sum", out, x, dims)
    np.testing.assert_array_equal(out.ravel(), round_bf16(total))
    mean = np.empty(out_shape, np.float32)
    kernels.bf16_reduce(launcher, "sum", mean, x, dims, divisor=float(count))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(mean.ravel(), total / count)
    keep = np.empty(tuple(1 if d in dims else s for d, s in enumerate(shape)), np.uint16)
    kernels.bf16_reduce(launcher, "sum", keep, x, dims, keepdim=True)
    np.testing.assert_array_equal(keep.ravel(), round_bf16(total))


def test_sum_of_strided_words_and_special_values(launcher):
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).reshape(256, 256)[::2, ::-3]   # NaN, inf, -0 ...
    out = np.empty(x.shape[0], np.uint16)
    kernels.bf16_reduce(launcher, "sum", out, x, (1,))
    want = round_bf16(_block_sum(widen(x)))
    same = (out == want) | (np.isnan(widen(out)) & np.isnan(widen(want)))
    assert same.all()


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_extrema_are_exact(launcher, op):
    rng = np.random.default_rng(5)
    x = _words(rng, (9, 333))
    x[3, 17] = 0x7FC0                                           # NaN propagates
    out = np.empty(333, np.uint16)
    kernels.bf16_reduce(launcher, op, out, x, (0,))
    with np.errstate(all="ignore"):
        want = round_bf16(getattr(np, op)(widen(x), axis=0))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", kernels.BF16_SOFTMAX_OPS)
@pytest.mark.parametrize("shape,dim", [((6, 300), 1), ((40, 7), 0), ((3, 5, 9), 1), ((5,), 0)])
def test_softmax_matches_the_kernel_order(launcher, op, shape, dim):
    """exp/log are libm's (NumPy's float32 loops may differ in a last float32 bit): at most one bfloat16 ulp on
    a few elements; the rest bitwise."""
    rng = np.random.default_rng(7)
    x = _words(rng, shape)
    moved = np.moveaxis(widen(x), dim, -1)
    rows = moved.reshape(-1, shape[dim])
    m = rows.max(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        shifted = rows - m
        s = _block_sum(np.exp(shifted))[:, None]
        ref = shifted - np.log(s) if op == "log_softmax" else np.exp(shifted) / s
    want = np.moveaxis(round_bf16(ref).reshape(moved.shape), -1, dim)
    out = np.empty(shape, np.uint16)
    kernels.bf16_softmax(launcher, op, out, x, dim)
    ulps = np.abs(out.astype(np.int32) - want.astype(np.int32))
    assert ulps.max() <= 1 and (ulps > 0).sum() <= max(2, out.size // 200)


def test_checks_leave_out_untouched(launcher):
    out = np.zeros(3, np.uint16)
    x = np.zeros((3, 4), np.uint16)
    with pytest.raises(RuntimeError, match="unknown op 'prod'"):
        kernels.bf16_reduce(launcher, "prod", out, x, (1,))
    with pytest.raises(RuntimeError, match=r"out has shape \(3,\), expected \(4,\)"):
        kernels.bf16_reduce(launcher, "sum", out, x, (0,))
    with pytest.raises(RuntimeError, match="unsupported dtype float32"):
        kernels.bf16_reduce(launcher, "amax", np.zeros(3, np.float32), x, (1,))
    with pytest.raises(RuntimeError, match="unknown op 'sum'"):
        kernels.bf16_softmax(launcher, "sum", x, x.copy(), 1)
    assert out.tolist() == [0, 0, 0]


CASES = {"sum": lambda x: x.sum(), "sum_dim": lambda x: x.sum(0), "sum_keepdim": lambda x: x.sum((0, 2), True),
         "sum_f32": lambda x: x.sum(1, dtype=openreg.float32), "mean": lambda x: x.mean(),
         "mean_dim": lambda x: x.mean(-1), "mean_f32": lambda x: x.mean(1, dtype=openreg.float32),
         "amax": lambda x: x.amax(1), "amin": lambda x: x.amin((0, 1)), "softmax": lambda x: x.softmax(-1),
         "log_softmax": lambda x: openreg.log_softmax(x, 1), "softmax_0": lambda x: openreg.softmax(x, 0)}


@pytest.mark.parametrize("case", CASES)
def test_device_reductions_run_the_kernel_and_match_the_cpu(monkeypatch, case):
    """With raw kernels on, the op launches bf16_reduce.cu once and never widens its input into a float32 copy
    (the widening helper is made to fail); the result equals the CPU's (NumPy's pairwise float32 sums) to within a
    bfloat16 ulp on the rare elements where the two summation orders round apart."""
    x = openreg.tensor(np.random.default_rng(2).standard_normal((6, 20, 9)).astype(np.float32) * 2,
                       dtype=openreg.bfloat16)
    want = CASES[case](x)
    dx = x.to(LAST_DEVICE)
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    counts = kernels.launcher().launch_counts
    before = sum(n for k, n in counts.items() if k.startswith("bf16_"))

    def no_widening(*args):
        raise AssertionError("a bfloat16 operand was widened into a float32 copy")
    monkeypatch.setattr(_array_bridge, "to_float32", no_widening)
    got = CASES[case](dx)
    monkeypatch.undo()
    assert sum(n for k, n in counts.items() if k.startswith("bf16_")) == before + 1
    assert got.dtype is want.dtype and got.shape == want.shape and got.device == dx.device
    g, w = got.cpu().float().numpy(), want.float().numpy()
    if case.startswith(("amax", "amin")):
        np.testing.assert_array_equal(g, w)
    else:
        tol = 2.0 ** -7 if want.dtype is openreg.bfloat16 else 2.0 ** -20
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * np.abs(w).max())
