"""float16/bfloat16 activations round as PyTorch's CPU kernels: the formula in float32 (opmath), rounded once to
the 16-bit type (autocast runs GELU, SiLU, ... in 16 bits). Each op is checked against a NumPy model of PyTorch's
kernel (runs everywhere) and bit for bit against PyTorch where it is installed, on the CPU and the device.

Kept out: bfloat16 ``gelu`` (erf form), which PyTorch runs through its float32 kernel (oneDNN's), not reproduced
bit for bit. Also here: ``exp``, ``sinc`` and ``add``/``sub``/``rsub`` with ``alpha`` (the product in float32 in
PyTorch's vectorized loop, rounded to float16 in its scalar loop: the last numel % 32 elements; bfloat16 keeps it
in float32 there too, as the device's raw kernel)."""
from __future__ import annotations

import math
import warnings

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

NP16 = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ["cpu", pytest.param("privateuseone:0", marks=needs_device)]
F32 = np.float32
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _rnd(v, dt):
    """float32 values rounded to the 16-bit type ``dt``, back in float32."""
    with np.errstate(all="ignore"):
        return np.asarray(v, F32).astype(NP16[dt]).astype(F32)


def _f64(fn, v):
    """``fn`` evaluated in float64, rounded to float32 (PyTorch's float32 Sleef functions, within an ulp)."""
    with np.errstate(all="ignore"):
        return fn(np.asarray(v, F32).astype(np.float64)).astype(F32)


def _fma(a, b, c):
    return (np.asarray(a, F32).astype(np.float64) * np.asarray(b, F32) + np.asarray(c, F32)).astype(F32)


def _erf_model(v):
    """PyTorch's vectorized float32 erf: Abramowitz & Stegun 7.1.26 by fused multiply-adds."""
    a = np.abs(v)
    t = F32(1) / _fma(F32(0.3275911), a, F32(1))
    r = np.full_like(t, F32(1.061405429))
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        r = _fma(r, t, F32(c))
    return np.copysign(_fma(-_f64(np.exp, -(v * v)) * t, r, F32(1)), v)


def _elu_model(v, alpha, scale, input_scale):
    with np.errstate(all="ignore"):
        return np.where(v >= 0, v * F32(scale), _f64(np.expm1, v * F32(input_scale)) * (F32(alpha) * F32(scale)))


def _tanh_model(v):
    """Sleef's float32 tanh: correctly rounded, +-1 beyond 12.5 ln 2."""
    return np.where(np.abs(v) > F32(12.5 * math.log(2)), np.copysign(F32(1), v), _f64(np.tanh, v))


def _logit_model(v, dt, eps):
    with np.errstate(all="ignore"):
        if eps is not None:
            lo = _rnd(eps, dt)[()]
            v = np.clip(v, lo, _rnd(F32(1) - lo, dt)[()])
        return _f64(np.log, _rnd(v / _rnd(F32(1) - v, dt), dt))


# (name, openreg/torch call, NumPy model of PyTorch's float32 computation (x, y: float32 values of the 16-bit
# inputs; the model's result is rounded once), inputs): "x" any real, "p" in (0, 1), "xy" two tensors
OPS = [
    ("gelu", lambda L, t, u: L.nn.functional.gelu(t),
     lambda x, y, dt: x * F32(0.5) * (F32(1) + _erf_model(x * F32(math.sqrt(0.5)))), "x"),
    ("gelu tanh", lambda L, t, u: L.nn.functional.gelu(t, approximate="tanh"),
     lambda x, y, dt: F32(0.5) * x * (F32(1) + _tanh_model(F32(math.sqrt(2 / math.pi)) * (x + F32(0.044715) * (x * x * x)))),
     "x"),
    ("silu", lambda L, t, u: L.nn.functional.silu(t), lambda x, y, dt: x / (F32(1) + _f64(np.exp, -x)), "x"),
    ("mish", lambda L, t, u: L.nn.functional.mish(t),
     lambda x, y, dt: x * np.tanh(np.log1p(np.exp(x))), "x"),
    ("hardswish", lambda L, t, u: L.nn.functional.hardswish(t),
     lambda x, y, dt: x * np.clip(x + F32(3), F32(0), F32(6)) / F32(6), "x"),
    ("hardsigmoid", lambda L, t, u: L.nn.functional.hardsigmoid(t),
     lambda x, y, dt: np.clip(x + F32(3), F32(0), F32(6)) / F32(6), "x"),
    ("elu", lambda L, t, u: L.nn.functional.elu(t, 0.7), lambda x, y, dt: _elu_model(x, 0.7, 1.0, 1.0), "x"),
    ("elu scaled", lambda L, t, u: L.ops.aten.elu(t, 0.7, 1.3, 0.6), lambda x, y, dt: _elu_model(x, 0.7, 1.3, 0.6), "x"),
    ("celu", lambda L, t, u: L.nn.functional.celu(t, 1.3), lambda x, y, dt: _elu_model(x, 1.3, 1.0, 1 / 1.3), "x"),
    ("selu", lambda L, t, u: L.nn.functional.selu(t), lambda x, y, dt: _elu_model(x, SELU_ALPHA, SELU_SCALE, 1.0), "x"),
    ("softshrink", lambda L, t, u: L.nn.functional.softshrink(t, 0.6),
     lambda x, y, dt: np.where(x > F32(0.6), x - F32(0.6), np.where(x < -F32(0.6), x + F32(0.6), x - x)), "x"),
    ("xlogy", lambda L, t, u: L.xlogy(t, u),
     lambda x, y, dt: np.where((x == 0) & ~np.isnan(y), F32(0), x * _rnd(_f64(np.log, y), dt)), "xy"),
    ("logit eps", lambda L, t, u: L.logit(t, 1e-3), lambda x, y, dt: _logit_model(x, dt, 1e-3), "p"),
    ("logit", lambda L, t, u: L.logit(t), lambda x, y, dt: _logit_model(x, dt, None), "p"),
    ("erf", lambda L, t, u: L.erf(t), lambda x, y, dt: _erf_model(x), "x"),
    ("exp", lambda L, t, u: L.exp(t), lambda x, y, dt: _f64(np.exp, x), "x"),
    ("sinc", lambda L, t, u: L.sinc(t),
     lambda x, y, dt: np.where(x == 0, F32(1), _f64(np.sin, F32(math.pi) * x) / (F32(math.pi) * x)), "x"),
]
# PyTorch's bfloat16 GELU (erf form) is its float32 kernel's result rounded (oneDNN's polynomial)
NOT_BITWISE = {("gelu", "bfloat16")}


def _inputs(kind, n, dt):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(F32) * 3
    y = np.abs(rng.standard_normal(n).astype(F32) * 3)
    if kind == "p":
        x = 1 / (1 + np.exp(-x))
        x[:4] = [0.0, 1.0, 5e-4, 0.9995]
    elif kind == "xy":
        x = np.abs(x)
        x[:3], y[:3] = 0.0, [0.0, np.nan, 2.0]
    else:
        x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.6]
    return _rnd(x, dt), _rnd(y, dt)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn,model,kind", OPS, ids=[o[0] for o in OPS])
@pytest.mark.parametrize("device", DEVICES)
def test_matches_float32_opmath_model(name, fn, model, kind, dt, device):
    """Every op, both 16-bit dtypes: the float32 formula of PyTorch's kernel, rounded once (NumPy only)."""
    if (name, dt) == ("gelu", "bfloat16"):
        pytest.skip("PyTorch's bfloat16 GELU is its float32 kernel, not modelled here")
    x, y = _inputs(kind, 4133, dt)
    d = getattr(openreg, dt)
    got = fn(openreg, openreg.tensor(x, device=device).to(d), openreg.tensor(y, device=device).to(d))
    assert got.dtype == d
    with np.errstate(all="ignore"):
        want = _rnd(model(x, y, dt), dt)
    got = got.float().cpu().numpy()
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (name, dt, bad.size, x[bad[:5]], got[bad[:5]], want[bad[:5]])


@needs_torch
@pytest.mark.parametrize("n", [20, 4133])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn,model,kind", OPS, ids=[o[0] for o in OPS])
@pytest.mark.parametrize("device", DEVICES)
def test_bitwise_pytorch(name, fn, model, kind, dt, n, device):
    """Bit for bit PyTorch 2.13's CPU result, over its vectorized loop and its scalar tail (n=20: all tail)."""
    if (name, dt) in NOT_BITWISE:
        pytest.skip("not bitwise reproduced (module docstring)")
    x, y = _inputs(kind, n, dt)
    got = fn(openreg, openreg.tensor(x, device=device).to(getattr(openreg, dt)),
             openreg.tensor(y, device=device).to(getattr(openreg, dt))).float().cpu().numpy()
    # ATen's CPU kernels, which openreg models: on a CPU with AVX512-FP16 PyTorch sends float16 (and float32) GELU
    # to oneDNN instead, whose values differ (gelu(inf) is NaN there)
    with warnings.catch_warnings(), torch.backends.mkldnn.flags(enabled=False):
        warnings.simplefilter("ignore", UserWarning)     # oneDNN's TF32 notice
        want = fn(torch, torch.tensor(x).to(getattr(torch, dt)), torch.tensor(y).to(getattr(torch, dt))).float().numpy()
    if name == "softshrink":   # PyTorch's zeros between -lambd and lambd: +0 (vectorized loop), x * 0 (its tail)
        got, want = got + 0, want + 0
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (name, dt, bad.size, x[bad[:5]], got[bad[:5]], want[bad[:5]])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_gradients_flow_in_16_bits(dt):
    """The float32 composites keep the 16-bit dtype of the input and its gradient."""
    d = getattr(openreg, dt)
    for f in (openreg.nn.functional.hardswish, openreg.nn.functional.mish, openreg.nn.functional.selu,
              lambda t: openreg.nn.functional.celu(t, 1.3), lambda t: openreg.nn.functional.softshrink(t, 0.6)):
        t = openreg.tensor([-2.0, -0.5, 0.25, 3.0], dtype=d, requires_grad=True)
        out = f(t)
        out.sum().backward()
        assert out.dtype == d and t.grad.dtype == d


def test_float32_paths_unchanged():
    """float32 keeps its composites (not the 16-bit route): selu is elu(x, alpha) * scale there."""
    x = openreg.tensor(np.linspace(-3, 3, 101, dtype=F32))
    F = openreg.nn.functional
    assert openreg.equal(F.selu(x), F.elu(x, SELU_ALPHA) * SELU_SCALE)
    assert openreg.equal(F.celu(x, 1.3), F.elu(x / 1.3) * 1.3)


# add/sub/rsub with alpha: (name, call, sign of alpha * other in the model, which operand is scaled)
ALPHA_OPS = [
    ("add", lambda L, t, u: L.add(t, u, alpha=0.3), lambda x, y, p: x + p(y)),
    ("sub", lambda L, t, u: L.sub(t, u, alpha=-1.7), lambda x, y, p: x - p(y)),
    ("rsub", lambda L, t, u: L.rsub(t, u, alpha=0.3), lambda x, y, p: y - p(x)),
    ("add_", lambda L, t, u: t.clone().add_(u, alpha=0.3), lambda x, y, p: x + p(y)),
]
ALPHAS = {"add": 0.3, "sub": -1.7, "rsub": 0.3, "add_": 0.3}


def _finite(n, dt):
    rng = np.random.default_rng(n + 1)
    return _rnd(rng.standard_normal(n) * 3, dt), _rnd(rng.standard_normal(n) * 3, dt)


def _alpha_model(name, x, y, dt):
    """PyTorch's float16/bfloat16 kernel: alpha rounded to the type, alpha * other in float32 (vectorized loop),
    for float16 rounded to it in the last numel % 32 elements (scalar loop), the sum rounded once. (bfloat16 keeps
    the product in float32 there too, as the device's raw kernel; PyTorch rounds it.)"""
    a = _rnd(ALPHAS[name], dt)[()]
    n = x.size
    tail = (np.arange(n) >= n - n % 32) & (dt == "float16")
    model = {o[0]: o[2] for o in ALPHA_OPS}[name]
    with np.errstate(all="ignore"):
        return _rnd(model(x, y, lambda v: np.where(tail, _rnd(v * a, dt), v * a)), dt)


@pytest.mark.parametrize("n", [20, 1024, 4133])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn,model", ALPHA_OPS, ids=[o[0] for o in ALPHA_OPS])
@pytest.mark.parametrize("device", DEVICES)
def test_alpha_matches_model(name, fn, model, dt, n, device):
    x, y = _finite(n, dt)
    d = getattr(openreg, dt)
    got = fn(openreg, openreg.tensor(x, device=device).to(d), openreg.tensor(y, device=device).to(d))
    got = got.float().cpu().numpy()
    want = _alpha_model(name, x, y, dt)
    bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want))))
    assert bad.size == 0, (name, dt, n, bad[:10])


@needs_torch
@pytest.mark.parametrize("shape", [(20,), (1024,), (4133,), (7, 45), (64, 5)])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn,model", ALPHA_OPS, ids=[o[0] for o in ALPHA_OPS])
def test_alpha_bitwise_pytorch(name, fn, model, dt, shape):
    n = math.prod(shape)
    if dt == "bfloat16" and n % 32:
        pytest.skip("bfloat16 keeps alpha * other in float32 in PyTorch's scalar tail too (_scaled)")
    x, y = _finite(n, dt)
    x, y = x.reshape(shape), y.reshape(shape)
    got = fn(openreg, openreg.tensor(x).to(getattr(openreg, dt)), openreg.tensor(y).to(getattr(openreg, dt)))
    want = fn(torch, torch.tensor(x).to(getattr(torch, dt)), torch.tensor(y).to(getattr(torch, dt)))
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
