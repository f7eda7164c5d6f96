"""float16/bfloat16 tensors with Python scalars round as PyTorch's CPU kernels do: the arithmetic runs in float32
and rounds once; ``mul``/``div`` (and rounded division) read a scalar second operand in float32, every other op
(add, sub, pow, remainder, fmod, comparisons, a scalar first operand) rounds it to the 16-bit type first, and
``alpha`` is rounded to the 16-bit type. Checked with NumPy models everywhere and bit for bit against PyTorch
where it is installed, on the CPU and the device (with and without its raw bfloat16 kernels).

``alpha * other`` stays in float32 in PyTorch's vectorized loop (the 1024 elements compared) and is rounded to the
16-bit type in its scalar loop (every element of a tensor under 32 elements, the last numel % 32 of longer ones):
the float16 alpha cases compare 28-element tensors (bfloat16 keeps the product in float32 there too, as the
device's raw kernel; test_half_activations checks both at several sizes)."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from device_params import needs_device

import openreg

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch")

SCALARS = [math.pi, 0.1, -1.7, 1 / 3, 3]
NP16 = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ["cpu", pytest.param("privateuseone:0", marks=needs_device),
           pytest.param("kernels", marks=needs_device, id="privateuseone:0-raw-kernels")]


@pytest.fixture(params=DEVICES)
def device(request, monkeypatch):
    if request.param == "kernels":     # the device's raw bfloat16 kernels (bf16.cu) on the emulated driver
        monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
        return "privateuseone:0"
    return request.param


def _values(s, n=1024):
    """Standard-normal values and the scalar's neighbours (a comparison must see equal values); 1024 of them:
    PyTorch's vectorized loop takes every element (lerp and addcmul fuse a multiply-add there)."""
    x = np.random.default_rng(0).standard_normal(n - 4)
    return np.concatenate([x, [s, -s, 2 * s, s / 2]])


def _bits(t) -> np.ndarray:
    """A result's bits (bool as it is), from an openreg or a torch tensor."""
    if t.dtype in (openreg.bool, getattr(torch, "bool", None)):
        return t.cpu().numpy()
    return t.float().cpu().numpy().view(np.uint32)


# (name, f(lib, t, t2, t3, s)): t, t2, t3 are 16-bit tensors, s the Python scalar; both operand orders
OPS = [
    ("t + s", lambda L, t, u, v, s: t + s), ("s + t", lambda L, t, u, v, s: s + t),
    ("add(t, s, alpha)", lambda L, t, u, v, s: L.add(t, s, alpha=0.3)),
    ("add(t, u, alpha=s)", lambda L, t, u, v, s: L.add(t, u, alpha=s)),
    ("t - s", lambda L, t, u, v, s: t - s), ("s - t", lambda L, t, u, v, s: s - t),
    ("sub(t, u, alpha=s)", lambda L, t, u, v, s: L.sub(t, u, alpha=s)),
    ("rsub(t, s, alpha)", lambda L, t, u, v, s: L.rsub(t, s, alpha=1.3)),
    ("t * s", lambda L, t, u, v, s: t * s), ("s * t", lambda L, t, u, v, s: s * t),
    ("mul(s, t)", lambda L, t, u, v, s: L.mul(s, t)), ("t.mul_(s)", lambda L, t, u, v, s: t.clone().mul_(s)),
    ("t / s", lambda L, t, u, v, s: t / s), ("s / t", lambda L, t, u, v, s: s / t),
    ("div(s, t)", lambda L, t, u, v, s: L.div(s, t)),
    ("div floor", lambda L, t, u, v, s: L.div(t, s, rounding_mode="floor")),
    ("div trunc", lambda L, t, u, v, s: L.div(t, s, rounding_mode="trunc")), ("t // s", lambda L, t, u, v, s: t // s),
    ("|t| ** s", lambda L, t, u, v, s: t.abs() ** s), ("|s| ** t", lambda L, t, u, v, s: abs(s) ** t),
    ("t % s", lambda L, t, u, v, s: t % s), ("s % t", lambda L, t, u, v, s: s % t),
    ("fmod", lambda L, t, u, v, s: L.fmod(t * 4, s)),
    ("clamp", lambda L, t, u, v, s: L.clamp(t, -abs(s), abs(s))),
    ("clamp_min", lambda L, t, u, v, s: L.clamp_min(t, s)), ("clamp_max", lambda L, t, u, v, s: L.clamp_max(t, s)),
    ("lerp", lambda L, t, u, v, s: L.lerp(t, u, s)),
    ("addcmul", lambda L, t, u, v, s: L.addcmul(t, u, v, value=s)),
    ("addcdiv", lambda L, t, u, v, s: L.addcdiv(t, u, v, value=s)),
    ("where(c, t, s)", lambda L, t, u, v, s: L.where(t > 0, t, s)),
    ("where(c, s, t)", lambda L, t, u, v, s: L.where(t > 0, s, t)),
    ("maximum(t, 0-d)", lambda L, t, u, v, s: L.maximum(t, L.tensor(s))),
    ("minimum(0-d, t)", lambda L, t, u, v, s: L.minimum(L.tensor(s), t)),
    ("t + 0-d", lambda L, t, u, v, s: t + L.tensor(s)), ("t * 0-d", lambda L, t, u, v, s: t * L.tensor(s)),
    ("t == s", lambda L, t, u, v, s: t == s), ("t != s", lambda L, t, u, v, s: t != s),
    ("t < s", lambda L, t, u, v, s: t < s), ("t <= s", lambda L, t, u, v, s: t <= s),
    ("t > s", lambda L, t, u, v, s: t > s), ("s >= t", lambda L, t, u, v, s: s >= t),
]


def _operands(lib, dtype, s, device=None, n=1024):
    x = _values(s, n)
    kw = {} if device is None else {"device": device}
    t = lib.tensor(x, **kw).to(getattr(lib, dtype))
    return t, t.flip(0), t.roll(1)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name, op", OPS, ids=[name for name, _ in OPS])
def test_scalar_ops_match_pytorch_bitwise(device, dtype, name, op):
    for s in SCALARS:
        n = 28 if "alpha" in name and dtype == "float16" else 1024
        expected = op(torch, *_operands(torch, dtype, s, n=n), s)
        got = op(openreg, *_operands(openreg, dtype, s, device, n), s)
        assert str(got.dtype) == str(expected.dtype).replace("torch", "openreg")
        bad = int((_bits(got) != _bits(expected)).sum())
        assert bad == 0, f"{name} with {s}: {bad} elements differ from PyTorch"


# -- the same rules as NumPy models (run without PyTorch) ----------------------------------------------------

def _r16(v, dtype):
    """Rounded to the 16-bit type (through float32, as PyTorch converts), back as float32."""
    return np.asarray(np.asarray(v, np.float32).astype(NP16[dtype]), np.float32)


def _fma32(a, b, c):
    return (a.astype(np.float64) * b + c.astype(np.float64)).astype(np.float32)


def _remainder(a, b):
    m = np.fmod(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


# (name, f(t, u, s), model(x, y, s16, s32, r)): x, y the tensors' float32 values; s16 the scalar rounded to
# the 16-bit type, s32 in float32, r rounds to the 16-bit type. Arithmetic models give float32, rounded to the 16-bit type afterwards.
MODELS = [
    ("t + s", lambda t, u, s: t + s, lambda x, y, s16, s32, r: x + s16),
    ("s - t", lambda t, u, s: s - t, lambda x, y, s16, s32, r: s16 - x),
    # alpha: the product in float32 over 1024 elements (PyTorch's vectorized loop)
    ("add(t, u, alpha=s)", lambda t, u, s: openreg.add(t, u, alpha=s), lambda x, y, s16, s32, r: x + y * s16),
    ("t * s", lambda t, u, s: t * s, lambda x, y, s16, s32, r: x * s32),
    ("s * t", lambda t, u, s: s * t, lambda x, y, s16, s32, r: x * s32),
    ("t / s", lambda t, u, s: t / s, lambda x, y, s16, s32, r: x / s32),
    ("s / t", lambda t, u, s: s / t, lambda x, y, s16, s32, r: r(np.float32(1) / x) * s32),
    ("div(s, t)", lambda t, u, s: openreg.div(s, t), lambda x, y, s16, s32, r: s16 / x),
    ("t // s", lambda t, u, s: t // s, lambda x, y, s16, s32, r: np.floor_divide(x, s32)),
    ("|t| ** s", lambda t, u, s: t.abs() ** (s + 0.25), lambda x, y, s16, s32, r: np.abs(x) ** r(s32 + 0.25)),
    ("t % s", lambda t, u, s: t % s, lambda x, y, s16, s32, r: _remainder(x, s16)),
    ("s % t", lambda t, u, s: s % t, lambda x, y, s16, s32, r: _remainder(s16, x)),
    ("fmod", lambda t, u, s: openreg.fmod(t, s), lambda x, y, s16, s32, r: np.fmod(x, s16)),
    ("lerp", lambda t, u, s: openreg.lerp(t, u, s),
     lambda x, y, s16, s32, r: np.where(abs(s32) < 0.5, _fma32(s32, y - x, x), _fma32(x - y, 1 - s32, y))),
    ("addcmul", lambda t, u, s: openreg.addcmul(t, u, t, value=s), lambda x, y, s16, s32, r: _fma32(s32 * y, x, x)),
    ("t == s", lambda t, u, s: t == s, lambda x, y, s16, s32, r: x == s16),
    ("t < s", lambda t, u, s: t < s, lambda x, y, s16, s32, r: x < s16),
    ("s >= t", lambda t, u, s: s >= t, lambda x, y, s16, s32, r: s16 >= x),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name, op, model", MODELS, ids=[m[0] for m in MODELS])
def test_scalar_ops_match_the_numpy_opmath_model(device, dtype, name, op, model):
    for s in SCALARS:
        t, u, _ = _operands(openreg, dtype, s, device)
        x, y = t.float().cpu().numpy(), u.float().cpu().numpy()
        with np.errstate(all="ignore"):
            want = np.asarray(model(x, y, _r16(s, dtype), np.float32(s), lambda v: _r16(v, dtype)))
        if want.dtype != np.bool_:
            want = _r16(want, dtype).view(np.uint32)
        got = _bits(op(t, u, s))
        assert int((got != want).sum()) == 0, f"{name} with {s}"


def test_float16_times_pi_is_float32_pi_rounded_once():
    """The reported case: ``float16 * math.pi`` multiplies by float32(pi), not by float16(pi)."""
    x = _values(math.pi)
    t = openreg.tensor(x).to(openreg.float16)
    x16 = x.astype(np.float16).astype(np.float32)
    want = (x16 * np.float32(math.pi)).astype(np.float16)
    assert np.array_equal((t * math.pi).numpy().view(np.uint16), want.view(np.uint16))
    rounded_scalar = (x16 * np.float32(np.float16(math.pi))).astype(np.float16)
    assert not np.array_equal(want, rounded_scalar)     # the two rules differ on these values
