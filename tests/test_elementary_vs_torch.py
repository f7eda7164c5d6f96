"""The elementary float functions (operators/elementary.py) against PyTorch: values, result dtypes for integer,
bool, float16 and float64 inputs, errors, and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

UNARY = ["sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "log2", "log10", "exp2", "sinc",
         "deg2rad", "rad2deg", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"]
VALUES = [-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 3.0]
DTYPES = ["int64", "bool", "float16", "float32", "float64"]


def _pair(values, dtype, device="cpu"):
    arr = np.array(values)
    if dtype == "bool":
        arr = arr != 0
    elif "int" in dtype:
        arr = np.round(arr)
    ours = openreg.tensor(arr.tolist(), dtype=getattr(openreg, dtype), device=device)
    theirs = torch.tensor(arr.tolist(), dtype=getattr(torch, dtype))
    return ours, theirs


def _same(ours, theirs, tol=None):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a = np.asarray(ours.cpu().float().tolist() if ours.dtype == openreg.float16 else ours.cpu().tolist())
    b = np.asarray(theirs.float().tolist() if theirs.dtype == torch.float16 else theirs.tolist())
    rtol = tol or (1e-3 if theirs.dtype == torch.float16 else 1e-5 if theirs.dtype == torch.float32 else 1e-12)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_values_and_dtypes(name, dtype, devices):
    ours, theirs = _pair(VALUES, dtype, devices)
    _same(getattr(openreg, name)(ours), getattr(torch, name)(theirs))
    if dtype in ("float32", "float64"):
        _same(getattr(ours.clone(), name + "_")(), getattr(theirs.clone(), name + "_")())


@pytest.mark.parametrize("name", ["sinh", "asin", "atanh", "log2", "exp2", "sinc", "deg2rad", "acosh"])
def test_unary_gradients(name, devices):
    values = [1.2, 1.5, 2.0] if name == "acosh" else [-0.5, 0.0, 0.3] if name == "sinc" else [-0.4, 0.2, 0.7]
    x = openreg.tensor(values, dtype=openreg.float64, device=devices, requires_grad=True)
    y = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    getattr(openreg, name)(x).sum().backward()
    getattr(torch, name)(y).sum().backward()
    _same(x.grad, y.grad)


@pytest.mark.parametrize("name", ["xlogy", "logaddexp", "logaddexp2", "float_power"])
@pytest.mark.parametrize("dtype", ["int64", "float16", "float32", "float64"])
def test_binary_values_and_dtypes(name, dtype, devices):
    a, ta = _pair([0.0, 0.5, 1.0, 2.0, -1.0], dtype, devices)
    b, tb = _pair([float("nan") if "float" in dtype else 0.0, 0.0, 2.0, 0.5, 3.0], dtype, devices)
    try:
        expected = getattr(torch, name)(ta, tb)
    except (RuntimeError, NotImplementedError) as exc:
        with pytest.raises(type(exc), match=str(exc).split("'")[0][:20]):
            getattr(openreg, name)(a, b)
        return
    _same(getattr(openreg, name)(a, b), expected)
    if name in ("xlogy", "float_power"):     # the others take tensors only, in PyTorch too
        _same(getattr(openreg, name)(a, 2), getattr(torch, name)(ta, 2))
        _same(getattr(openreg, name)(3, b), getattr(torch, name)(3, tb))
    else:
        with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'other' \\(position 2\\) must be Tensor"):
            getattr(openreg, name)(a, 2)


def test_binary_gradients(devices):
    x = openreg.tensor([0.0, 0.5, 2.0], dtype=openreg.float64, device=devices, requires_grad=True)
    y = openreg.tensor([0.5, 1.5, 3.0], dtype=openreg.float64, device=devices, requires_grad=True)
    tx = torch.tensor([0.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    ty = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64, requires_grad=True)
    for name in ("xlogy", "logaddexp", "logaddexp2", "float_power"):
        x.grad = y.grad = tx.grad = ty.grad = None
        getattr(openreg, name)(x, y).sum().backward()
        getattr(torch, name)(tx, ty).sum().backward()
        _same(x.grad, tx.grad)
        _same(y.grad, ty.grad)


def test_float_power_inplace_needs_a_double_base():
    with pytest.raises(RuntimeError, match="float_power_ has dtype Float but the operation's result requires"):
        openreg.tensor([1.0]).float_power_(2)
    t = openreg.tensor([2.0], dtype=openreg.float64)
    assert t.float_power_(3) is t and t.tolist() == [8.0]
