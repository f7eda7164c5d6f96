"""bfloat16 elementwise ops on the device widen per element inside a raw kernel (cuda_kernels/bf16.cu): float32
in registers, one round-to-nearest-even, no float32 copy of an operand. The kernel runs here through the host
launcher and is compared with the array-module reference (NumPy: widen to float32, compute, round once)."""
import numpy as np
import pytest
from device_params import LAST_DEVICE
from openreg.backends.privateuseone import kernels
from openreg.backends.privateuseone.launchers import HostLauncher

import openreg
from openreg import _array_bridge

EVERY_WORD = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)   # every bfloat16 value, NaNs and infs included


def _cpu_float32(fn):
    """The CPU operator's own float32 code as a reference (what the bfloat16 reference computes after widening)."""
    def reference(*arrays):
        return fn(*(openreg.from_numpy(np.ascontiguousarray(a)) for a in arrays)).numpy()
    return reference


UNARY_REFERENCE = {"neg": np.negative, "relu": lambda x: np.maximum(x, np.float32(0)), "exp": np.exp, "log": np.log,
                   "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "abs": np.abs, "sqrt": np.sqrt,
                   "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos,
                   "gelu": _cpu_float32(openreg.nn.functional.gelu),
                   "gelu_tanh": _cpu_float32(lambda x: openreg.nn.functional.gelu(x, approximate="tanh"))}
BINARY_REFERENCE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
                    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                    "ge": np.greater_equal,
                    "gelu_backward": _cpu_float32(openreg.ops.aten.gelu_backward.default),
                    "gelu_tanh_backward": _cpu_float32(
                        lambda g, x: openreg.ops.aten.gelu_backward.default(g, x, approximate="tanh"))}
# libm's expf/logf/tanhf/sinf/cosf/powf (and CUDA's) and NumPy's own float32 loops may differ in the last float32
# bit; after the rounding to bfloat16 that shows only where the float32 result sits on a bfloat16 rounding boundary.
LIBM = {"exp", "log", "tanh", "sigmoid", "sin", "cos", "gelu", "gelu_tanh", "pow", "gelu_backward",
        "gelu_tanh_backward"}


def _rounded(op, values):
    """A reference result in the kernel's output form: bool for comparisons, else bfloat16 words."""
    return values if op in kernels.BF16_COMPARE_OPS else round_bf16(values)


def _assert_kernel_matches(op, got, want, words, x=None, scale=None):
    """Bitwise, except libm-based ops: at most a few words 1 bfloat16 ulp apart (never NaN against a number).

    gelu's tanh form cancels in ``1 + tanh(z)`` for x < -2.5: there the result is tanh's last-bit error magnified
    (NumPy's tanh and libm's tanhf differ in it), so those elements agree to an absolute bound instead."""
    if op.startswith("gelu_tanh"):
        cancels = (x < -2.5).ravel()
        g, w = widen(got.ravel()[cancels]), widen(want.ravel()[cancels])
        with np.errstate(all="ignore"):
            bound = 2.0 ** -21 * np.abs(x.ravel()[cancels]) * (1 if scale is None else np.abs(scale.ravel()[cancels]))
        one_ulp = np.abs(got.ravel()[cancels].astype(np.int32) - want.ravel()[cancels].astype(np.int32)) <= 1
        with np.errstate(invalid="ignore"):
            assert ((np.abs(g - w) <= bound) | one_ulp | (np.isnan(g) & np.isnan(w))).all()
        got, want, words = got.ravel()[~cancels], want.ravel()[~cancels], words.ravel()[~cancels]
    differ = np.nonzero(got.ravel() != want.ravel())[0]
    if op not in LIBM:
        assert differ.size == 0, [hex(w) for w in words.ravel()[differ[:5]]]
        return
    assert differ.size <= max(4, got.size // 2_000), (op, differ.size)
    ulps = np.abs(got.ravel()[differ].astype(np.int32) - want.ravel()[differ].astype(np.int32))
    assert (ulps <= 1).all() and not np.isnan(widen(want.ravel()[differ])).any()


def widen(words):
    """bfloat16 words as float32 (exact: a bfloat16 is the top half of a float32)."""
    return (np.asarray(words).astype(np.uint32) << 16).view(np.float32)


def round_bf16(values):
    """float32 -> bfloat16 words, round to nearest even; NaN -> 0x7FC0 (as PyTorch's and the kernel's)."""
    u = np.asarray(values, np.float32).view(np.uint32)
    out = ((u + ((u >> 16) & 1) + np.uint32(0x7FFF)) >> 16).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), out)


def _same_values(got, want):
    """Equal bfloat16 tensors: the same words, NaNs of either sign counting as equal (bool tensors: equal)."""
    if want.dtype is openreg.bool:
        assert got.cpu().tolist() == want.tolist()
        return
    g, w = got.cpu().view(openreg.int16).numpy(), want.view(openreg.int16).numpy()
    gnan, wnan = np.isnan(got.cpu().float().numpy()), np.isnan(want.float().numpy())
    np.testing.assert_array_equal(gnan, wnan)
    np.testing.assert_array_equal(g[~gnan], w[~wnan])


@pytest.fixture(scope="module")
def launcher():
    return HostLauncher(workers=2)


def _unary_reference(op, words):
    with np.errstate(all="ignore"):
        return round_bf16(UNARY_REFERENCE[op](widen(words)))


def _binary_reference(op, a, b, alpha=1.0):
    fa, fb = widen(a), widen(b)
    with np.errstate(all="ignore"):
        return _rounded(op, BINARY_REFERENCE[op](fa, fb if alpha == 1 else np.float32(alpha) * fb))


@pytest.mark.parametrize("op", kernels.BF16_UNARY_OPS)
def test_unary_kernel_on_every_bfloat16_word(launcher, op):
    out = np.empty_like(EVERY_WORD)
    kernels.bf16_unary(launcher, op, out, EVERY_WORD)
    _assert_kernel_matches(op, out, _unary_reference(op, EVERY_WORD), EVERY_WORD, widen(EVERY_WORD))


@pytest.mark.parametrize("op", kernels.BF16_BINARY_OPS)
def test_binary_kernel_matches_the_reference_bitwise(launcher, op):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 1 << 16, 100_000).astype(np.uint16)    # every kind of word: NaN, inf, subnormal, zeros
    b = rng.integers(0, 1 << 16, 100_000).astype(np.uint16)
    out_dtype = bool if op in kernels.BF16_COMPARE_OPS else np.uint16
    for alpha in ((1.0, 0.3, -2.0) if op in ("add", "sub") else (1.0,)):
        out = np.empty(a.shape, out_dtype)
        kernels.bf16_binary(launcher, op, out, a, b, alpha)
        _assert_kernel_matches(op, out, _binary_reference(op, a, b, alpha), a, widen(b), widen(a))
    # strided and broadcast operands (written in place into a strided view when the result is bfloat16)
    a2, b2 = a[:960].reshape(30, 32)[:, ::2], np.broadcast_to(b[:16], (30, 16))
    want = _binary_reference(op, a2, b2)
    out = a2 if out_dtype is np.uint16 else np.empty(a2.shape, bool)
    x2 = widen(b2).copy()
    kernels.bf16_binary(launcher, op, out, a2, b2)
    _assert_kernel_matches(op, out, want, a2, x2, widen(a2.copy()) if out is not a2 else None)


@pytest.mark.parametrize("op", kernels.BF16_MIXED_OPS)
def test_mixed_kernel_matches_the_float32_reference_bitwise(launcher, op):
    """bfloat16 with a float32 operand (either side): the float32 result of the widened word, not rounded."""
    rng = np.random.default_rng(3)
    words = rng.integers(0, 1 << 16, 20_000).astype(np.uint16)
    f = (rng.standard_normal(20_000) * 10).astype(np.float32)
    for alpha in ((1.0, 0.3) if op in ("add", "sub") else (1.0,)):
        for a, b in ((words, f), (f, words)):
            fa = widen(a) if a.dtype == np.uint16 else a
            fb = widen(b) if b.dtype == np.uint16 else b
            with np.errstate(all="ignore"):
                want = BINARY_REFERENCE[op](fa, fb if alpha == 1 else np.float32(alpha) * fb)
            out = np.empty(a.shape, np.float32)
            kernels.bf16_binary(launcher, op, out, a, b, alpha)
            np.testing.assert_array_equal(out.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
            assert np.isnan(out[np.isnan(want)]).all()


@pytest.mark.parametrize("op", kernels.BF16_SCALAR_OPS)
def test_scalar_kernel_matches_the_reference_bitwise(launcher, op):
    """The scalar stays float32 (0.1 is not rounded to bfloat16 first), as in PyTorch's opmath; rsub computes
    ``value - alpha * a`` with the product rounded to float32 first, as the reference does."""
    a = EVERY_WORD.reshape(256, 256)[:, ::3]                     # every other-ish word, strided
    for value in (0.1, -3.0, 1e-30, 7, 2, 0.5):
        for alpha in ((1.0, 2.5) if op == "rsub" else (1.0,)):
            out = np.empty(a.shape, bool if op in kernels.BF16_COMPARE_OPS else np.uint16)
            kernels.bf16_scalar(launcher, op, out, a, value, alpha)
            with np.errstate(all="ignore"):
                if op == "rsub":
                    want = round_bf16(np.float32(value) - np.float32(alpha) * widen(a))
                else:
                    want = _rounded(op, BINARY_REFERENCE[op](widen(a), np.float32(value)))
            _assert_kernel_matches(op, out, want, a)


def test_conversions_match_the_reference_bitwise(launcher):
    """bfloat16 words to every kernel dtype and back: the reference's conversions through float32."""
    from openreg.backends.privateuseone.launchers import ALL_DTYPES
    finite = EVERY_WORD[~np.isnan(widen(EVERY_WORD)) & ~np.isinf(widen(EVERY_WORD))]
    for dtype in ALL_DTYPES:
        src = finite if dtype.kind == "f" or dtype == np.bool_ else finite[np.abs(widen(finite)) < 100]
        out = np.empty(src.shape, dtype)
        kernels.bf16_copy(launcher, out, src)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(out, widen(src).astype(dtype))
        back = np.empty(src.shape, np.uint16)
        kernels.bf16_copy(launcher, back, out[::-1].copy())
        with np.errstate(all="ignore"):
            want = round_bf16(out[::-1].astype(np.float32))
        np.testing.assert_array_equal(back, want)
    big = np.array([1.0e300, -3.3e38, 1 + 2.0 ** -9, 2.0 ** 40 + 1], np.float64)   # double rounding, overflow
    back = np.empty(4, np.uint16)
    kernels.bf16_copy(launcher, back, big)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(back, round_bf16(big.astype(np.float32)))
    strided = EVERY_WORD.reshape(256, 256)[::3, ::-2]                # a word copy between any layouts
    out = np.empty(strided.shape, np.uint16)
    np.testing.assert_array_equal(kernels.bf16_copy(launcher, out, strided), strided)


def test_checks_leave_out_untouched(launcher):
    out = np.zeros(3, np.uint16)
    with pytest.raises(RuntimeError, match="unsupported dtype float32"):
        kernels.bf16_binary(launcher, "pow", out, np.zeros(3, np.float32), out)
    with pytest.raises(RuntimeError, match="out has shape"):
        kernels.bf16_binary(launcher, "mul", out, np.zeros(4, np.uint16), out)
    with pytest.raises(RuntimeError, match="unknown op 'atan2'"):
        kernels.bf16_binary(launcher, "atan2", out, out, out)
    with pytest.raises(RuntimeError, match="out has unsupported dtype uint16"):     # bf16 + float32 is float32
        kernels.bf16_binary(launcher, "add", out, np.zeros(3, np.float32), out)
    with pytest.raises(RuntimeError, match="one side must be bfloat16"):
        kernels.bf16_copy(launcher, np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(RuntimeError, match="unknown op 'tan'"):
        kernels.bf16_unary(launcher, "tan", out, out)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        kernels.bf16_unary(launcher, "neg", out[1:], out[:-1])
    assert out.tolist() == [0, 0, 0]


F = openreg.nn.functional
CASES = {**{op: (lambda x, y, op=op: getattr(openreg, op)(x, y))
            for op in (*kernels.BF16_ARITHMETIC_OPS, *kernels.BF16_COMPARE_OPS)},
         "gelu_backward": lambda x, y: openreg.ops.aten.gelu_backward.default(y.expand(6, 5), x),
         "gelu_tanh_backward": lambda x, y: openreg.ops.aten.gelu_backward.default(x, x, approximate="tanh"),
         "gelu_tanh": lambda x, y: F.gelu(x, approximate="tanh"), "gelu_": lambda x, y: F.gelu(x),
         "rsub": lambda x, y: openreg.rsub(x, y, alpha=2), "rsub_scalar": lambda x, y: 1 - x,
         "rsub_scalar_alpha": lambda x, y: openreg.rsub(x, 3, alpha=0.5), "pow_scalar": lambda x, y: x ** 2,
         "sqrt_scalar_pow": lambda x, y: x.abs() ** 0.5, "le_scalar": lambda x, y: x <= 0,
         "gt_scalar": lambda x, y: x > 0.1, "eq_scalar": lambda x, y: x == 1,
         "add_alpha": lambda x, y: openreg.add(x, y, alpha=2.5), "sub_alpha": lambda x, y: x.sub(y, alpha=0.5),
         "add_": lambda x, y: x.clone().add_(y), "mul_out": lambda x, y: openreg.mul(x, y, out=openreg.empty_like(x)),
         **{op: (lambda x, y, op=op: getattr(openreg, op)(x)) for op in kernels.BF16_UNARY_OPS
            if not op.startswith("gelu")},
         "relu_": lambda x, y: x.clone().relu_(), "sigmoid_nn": lambda x, y: openreg.nn.functional.sigmoid(x),
         "mul_scalar": lambda x, y: x * 0.1, "add_scalar_alpha": lambda x, y: openreg.add(x, 0.3, alpha=3),
         "sub_scalar": lambda x, y: x - 1, "div_scalar_": lambda x, y: x.clone().div_(3),
         "mul_zero_dim": lambda x, y: x * openreg.tensor(0.7, dtype=openreg.float64)}


def _bf16(shape, seed):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 3
    return openreg.tensor(values, dtype=openreg.bfloat16)


@pytest.mark.parametrize("case", CASES)
def test_device_ops_run_the_kernel_and_equal_the_cpu(monkeypatch, case):
    """On the device with raw kernels on, the op launches bf16.cu once on the words -- no float32 widening of an
    operand anywhere (the widening helper is made to fail) -- and equals the CPU's result bitwise (a NaN's sign
    aside: the kernel's NaN is PyTorch's 0x7FC0, ml_dtypes keeps the float32 NaN's sign)."""
    x, y = _bf16((6, 5), 1), _bf16((5,), 2)
    want = CASES[case](x, y)
    dx, dy = x.to(LAST_DEVICE), y.to(LAST_DEVICE)
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    counts = kernels.launcher().launch_counts
    before = sum(n for k, n in counts.items() if k.startswith("bf16_"))

    def no_widening(*args):
        raise AssertionError("a bfloat16 operand was widened into a float32 copy")
    monkeypatch.setattr(_array_bridge, "to_float32", no_widening)
    got = CASES[case](dx, dy)
    monkeypatch.undo()
    assert sum(n for k, n in counts.items() if k.startswith("bf16_")) == before + (2 if "scalar_pow" in case else 1)
    assert got.dtype is want.dtype and got.device == dx.device
    assert want.dtype in (openreg.bfloat16, openreg.bool)
    _same_values(got, want)
    # raw kernels off (the emulated driver's default): the array-module path, the same words
    if openreg.privateuseone.driver() == "emulated":
        _same_values(CASES[case](dx, dy), want)


def test_mixed_cases_keep_the_array_module_path(monkeypatch):
    """bfloat16 with a float32 tensor, or a rounding mode, is not the kernel's case: same results as the CPU."""
    x, f = _bf16((4, 3), 3), openreg.ones(3)
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    dx = x.to(LAST_DEVICE)
    for fn in (lambda a, b: a + b, lambda a, b: a * 0.1, lambda a, b: a.div(a, rounding_mode="floor")):
        got, want = fn(dx, f.to(LAST_DEVICE)), fn(x, f)
        assert got.dtype is want.dtype
        np.testing.assert_array_equal(got.cpu().float().numpy(), want.float().numpy())
