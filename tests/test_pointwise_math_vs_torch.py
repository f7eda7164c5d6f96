"""operators/pointwise_math.py and gamma_functions.py against PyTorch: values and result dtypes for int, bool,
float16 and float64 inputs, special values (poles, infinities, NaN), errors and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

VALUES = [-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 3.0]
OTHER = [1.0, -2.0, 0.5, 2.0, -0.75, 0.0, 1.5, -3.0, 2.5]
DTYPES = ["int64", "bool", "float16", "float32", "float64"]


def _pair(values, dtype, device="cpu"):
    arr = np.array(values)
    if dtype == "bool":
        arr = arr != 0
    elif "int" in dtype:
        arr = np.round(arr)
    return (openreg.tensor(arr.tolist(), dtype=getattr(openreg, dtype), device=device),
            torch.tensor(arr.tolist(), dtype=getattr(torch, dtype)))


def _same(ours, theirs, tol=None):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a = np.asarray(ours.cpu().double().tolist() if ours.dtype != openreg.bool else ours.cpu().tolist(), dtype=float)
    b = np.asarray(theirs.double().tolist() if theirs.dtype != torch.bool else theirs.tolist(), dtype=float)
    rtol = tol or (2e-3 if theirs.dtype in (torch.float16, torch.bfloat16) else 1e-5
                   if theirs.dtype == torch.float32 else 1e-10)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True)


UNARY = ["tan", "square", "sgn", "logit", "lgamma", "digamma", "erfinv", "isneginf", "isposinf"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_values_and_dtypes(name, dtype, devices):
    vals = [v / 3.5 for v in VALUES] if name in ("erfinv", "logit") else VALUES
    ours, theirs = _pair(vals, dtype, devices)
    _same(getattr(openreg, name)(ours), getattr(torch, name)(theirs))


@pytest.mark.parametrize("name", ["atan2", "fmod", "copysign", "fmax", "fmin", "heaviside"])
@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int64", "float32"), ("float16", "float32"),
                                    ("float64", "float64"), ("bool", "bool"), ("float16", "float16")])
def test_binary_values_dtypes_and_errors(name, dtypes, devices):
    other = [v if v != 0 else 1.0 for v in OTHER] if name == "fmod" else OTHER
    a, ta = _pair(VALUES, dtypes[0], devices)
    b, tb = _pair(other, dtypes[1], devices)
    try:
        expected = getattr(torch, name)(ta, tb)
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e), match=str(e).split("\n")[0][:40].replace("(", r"\(").replace(")", r"\)")):
            getattr(openreg, name)(a, b)
        return
    _same(getattr(openreg, name)(a, b), expected)
    _same(getattr(a, name)(b), expected)


@pytest.mark.parametrize("scalar", [2, -1.5, 0.5])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float16"])
def test_scalar_overloads(scalar, dtype):
    a, ta = _pair(VALUES, dtype)
    for name in ("fmod", "copysign"):
        _same(getattr(openreg, name)(a, scalar), getattr(torch, name)(ta, scalar))
    _same(openreg.isin(a, scalar), torch.isin(ta, scalar))
    _same(openreg.isin(scalar, a), torch.isin(scalar, ta))


def test_special_values():
    special = [0.0, -0.0, -1.0, -3.0, float("inf"), float("-inf"), float("nan"), 1e-300, 1e300, -0.5, 1e6]
    a, ta = _pair(special, "float64")
    for name in ("lgamma", "digamma"):
        _same(getattr(openreg, name)(a), getattr(torch, name)(ta))
    for n in (1, 2, 3):
        keep = [v for v in special if not (v <= 0 and v == np.floor(v) and np.isfinite(v))]  # poles differ
        b, tb = _pair(keep, "float64")
        _same(openreg.polygamma(n, b), torch.polygamma(n, tb), tol=1e-8)
    y, ty = _pair([-1.0, 1.0, 1.5, -2.0, 0.0, 1 - 1e-16, -1 + 1e-12, float("nan")], "float64")
    _same(openreg.erfinv(y), torch.erfinv(ty))
    p, tp = _pair([0.0, 1.0, 1.5, 0.5, -0.1], "float32")
    _same(openreg.logit(p), torch.logit(tp))
    _same(openreg.logit(p, eps=0.1), torch.logit(tp, eps=0.1))


def test_errors_match_torch():
    cases = [
        lambda m: m.lerp(m.ones(2, dtype=m.float16), m.ones(2), 0.5),
        lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float64)),
        lambda m: m.lerp(m.ones(2, dtype=m.long), m.ones(2, dtype=m.long), 0.5),
        lambda m: m.addcdiv(m.ones(2), m.ones(2, dtype=m.long), m.ones(2, dtype=m.long)),
        lambda m: m.addcmul(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)),
        lambda m: m.fmod(m.ones(2, dtype=m.long), 0),
        lambda m: m.fmod(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)),
        lambda m: m.heaviside(m.ones(2), m.ones(2, dtype=m.float64)),
        lambda m: m.atan2(m.ones(2), 2),
        lambda m: m.fmax(m.ones(2), 2),
        lambda m: m.addcmul(m.ones(2), m.ones(3), m.ones(2)),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(type(theirs.value)) as ours:
            case(openreg)
        assert str(theirs.value).split(".")[0][:60] in str(ours.value)


@pytest.mark.parametrize("dtypes", [("float32", "float32", "float32"), ("int64", "float32", "float64"),
                                    ("float16", "float16", "float16"), ("int64", "int64", "int64")])
@pytest.mark.parametrize("value", [1, 0.5, -2])
def test_addcmul_addcdiv_broadcast_and_promote(dtypes, value, devices):
    a, ta = _pair([1.0, -2.0, 3.0], dtypes[0], devices)
    b, tb = _pair([[0.5], [2.0]], dtypes[1], devices)
    c, tc = _pair([1.5, -1.0, 2.0], dtypes[2], devices)
    if not (dtypes[0] == "int64" and isinstance(value, float)):
        _same(openreg.addcmul(a, b, c, value=value), torch.addcmul(ta, tb, tc, value=value))
    if "float" in dtypes[1] or "float" in dtypes[2]:
        _same(openreg.addcdiv(a, b, c, value=value), torch.addcdiv(ta, tb, tc, value=value))


def test_inplace_and_lerp_forms(devices):
    a, ta = _pair([1.0, -2.0, 3.0], "float32", devices)
    b, tb = _pair([0.5, 2.0, -1.0], "float32", devices)
    w, tw = _pair([0.0, 0.4, 1.0], "float32", devices)
    _same(openreg.lerp(a, b, w), torch.lerp(ta, tb, tw))
    _same(openreg.lerp(a, b, 0.75), torch.lerp(ta, tb, 0.75))
    _same(a.clone().addcmul_(b, w, value=3), ta.clone().addcmul_(tb, tw, value=3))
    _same(a.clone().addcdiv_(b, b + 4, value=-1), ta.clone().addcdiv_(tb, tb + 4, value=-1))
    _same(a.clone().lerp_(b, 0.25), ta.clone().lerp_(tb, 0.25))
    _same(a.clone().lerp_(b, w), ta.clone().lerp_(tb, tw))
    _same(openreg.arctan2(a, b), torch.arctan2(ta, tb))
    _same(a.clone().square_(), ta.clone().square_())
    _same((a.abs() + 0.25).polygamma(1), (ta.abs() + 0.25).polygamma(1), tol=1e-6)  # poles: see test_special_values
    _same(openreg.isin(a, b, invert=True), torch.isin(ta, tb, invert=True))


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_and_lerp_gradients_match_torch(eps):
    vals = [-0.5, 0.05, 0.3, 0.7, 1.2]
    x = openreg.tensor(vals, dtype=openreg.float64, requires_grad=True)
    tx = torch.tensor(vals, dtype=torch.float64, requires_grad=True)
    openreg.logit(x, eps).sum().backward()
    torch.logit(tx, eps).sum().backward()
    _same(x.grad, tx.grad)
    y, ty = (t.detach().clone().requires_grad_() for t in (x, tx))
    w, tw = (t.detach().clone().requires_grad_() for t in (x, tx))
    (openreg.lerp(x, y * 2, w) * openreg.arange(5.0, dtype=openreg.float64)).sum().backward()
    (torch.lerp(tx, ty * 2, tw) * torch.arange(5.0, dtype=torch.float64)).sum().backward()
    for ours, theirs in ((y, ty), (w, tw)):
        _same(ours.grad, theirs.grad)
