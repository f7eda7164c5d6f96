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
UNARY_REFERENCE = {"neg": np.negative, "relu": lambda x: np.maximum(x, np.float32(0)), "exp": np.exp, "log": np.log,
                   "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x))}
BINARY_REFERENCE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
# libm's expf/logf/tanhf (and CUDA's) and NumPy's own float32 loops may differ in the last float32 bit; after the
# rounding to bfloat16 that shows only where the float32 result sits on a bfloat16 rounding boundary.
LIBM = {"exp", "log", "tanh", "sigmoid"}


def widen(words):
    """bfloat16 words as float32 (exact: a bfloat16 is the top half of a float32)."""
    return (np.asarray(words).astype(np.uint32) << 16).view(np.float32)


def round_bf16(values):
    """float32 -> bfloat16 words, round to nearest even; NaN -> 0x7FC0 (as PyTorch's and the kernel's)."""
    u = np.asarray(values, np.float32).view(np.uint32)
    out = ((u + ((u >> 16) & 1) + np.uint32(0x7FFF)) >> 16).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), out)


def _same_values(got, want):
    """Equal bfloat16 tensors: the same words, NaNs of either sign counting as equal."""
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
        return round_bf16(BINARY_REFERENCE[op](fa, fb if alpha == 1 else np.float32(alpha) * fb))


@pytest.mark.parametrize("op", kernels.BF16_UNARY_OPS)
def test_unary_kernel_on_every_bfloat16_word(launcher, op):
    out = np.empty_like(EVERY_WORD)
    kernels.bf16_unary(launcher, op, out, EVERY_WORD)
    ref = _unary_reference(op, EVERY_WORD)
    differ = np.nonzero(out != ref)[0]
    if op not in LIBM:
        assert differ.size == 0, [hex(w) for w in EVERY_WORD[differ[:5]]]     # exact IEEE arithmetic: bitwise
    else:
        assert differ.size <= 4, [hex(w) for w in EVERY_WORD[differ[:5]]]
        ulps = np.abs(out[differ].astype(np.int32) - ref[differ].astype(np.int32))
        assert (ulps <= 1).all() and not np.isnan(widen(ref[differ])).any()


@pytest.mark.parametrize("op", kernels.BF16_BINARY_OPS)
def test_binary_kernel_matches_the_reference_bitwise(launcher, op):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 1 << 16, 100_000).astype(np.uint16)    # every kind of word: NaN, inf, subnormal, zeros
    b = rng.integers(0, 1 << 16, 100_000).astype(np.uint16)
    for alpha in ((1.0, 0.3, -2.0) if op in ("add", "sub") else (1.0,)):
        out = np.empty_like(a)
        kernels.bf16_binary(launcher, op, out, a, b, alpha)
        np.testing.assert_array_equal(out, _binary_reference(op, a, b, alpha))
    # strided and broadcast operands, written in place into a strided view
    a2, b2 = a[:960].reshape(30, 32)[:, ::2], np.broadcast_to(b[:16], (30, 16))
    want = _binary_reference(op, a2, b2)
    kernels.bf16_binary(launcher, op, a2, a2, b2)
    np.testing.assert_array_equal(a2, want)


@pytest.mark.parametrize("op", kernels.BF16_BINARY_OPS)
def test_scalar_kernel_matches_the_reference_bitwise(launcher, op):
    """The scalar stays float32 (0.1 is not rounded to bfloat16 first), as in PyTorch's opmath."""
    a = EVERY_WORD.reshape(256, 256)[:, ::3]                     # every other-ish word, strided
    for value in (0.1, -3.0, 1e-30, 7):
        out = np.empty(a.shape, np.uint16)
        kernels.bf16_scalar(launcher, op, out, a, value)
        with np.errstate(all="ignore"):
            want = round_bf16(BINARY_REFERENCE[op](widen(a), np.float32(value)))
        np.testing.assert_array_equal(out, want)


def test_checks_leave_out_untouched(launcher):
    out = np.zeros(3, np.uint16)
    with pytest.raises(RuntimeError, match="unsupported dtype float32"):
        kernels.bf16_binary(launcher, "add", out, np.zeros(3, np.float32), out)
    with pytest.raises(RuntimeError, match="out has shape"):
        kernels.bf16_binary(launcher, "mul", out, np.zeros(4, np.uint16), out)
    with pytest.raises(RuntimeError, match="unknown op 'pow'"):
        kernels.bf16_binary(launcher, "pow", out, out, out)
    with pytest.raises(RuntimeError, match="unknown op 'sin'"):
        kernels.bf16_unary(launcher, "sin", out, out)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        kernels.bf16_unary(launcher, "neg", out[1:], out[:-1])
    assert out.tolist() == [0, 0, 0]


CASES = {**{op: (lambda x, y, op=op: getattr(openreg, op)(x, y)) for op in kernels.BF16_BINARY_OPS},
         "add_alpha": lambda x, y: openreg.add(x, y, alpha=2.5), "sub_alpha": lambda x, y: x.sub(y, alpha=0.5),
         "add_": lambda x, y: x.clone().add_(y), "mul_out": lambda x, y: openreg.mul(x, y, out=openreg.empty_like(x)),
         **{op: (lambda x, y, op=op: getattr(openreg, op)(x)) for op in kernels.BF16_UNARY_OPS},
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
    assert sum(n for k, n in counts.items() if k.startswith("bf16_")) == before + 1
    assert got.dtype is openreg.bfloat16 and got.device == dx.device
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
