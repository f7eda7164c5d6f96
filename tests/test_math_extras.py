"""torch.* math and query functions composed of openreg operators (gcd, lcm, ldexp, frexp, fix, isreal, vdot,
msort, cov, corrcoef, trapezoid, cumulative_trapezoid, vander, unravel_index, renorm, narrow_copy, adjoint,
absolute, result_type, can_cast, ...) and their Tensor methods: against NumPy on both devices, against PyTorch
(values, dtypes, gradients) when it is installed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(0)
INTS_A, INTS_B = rng.integers(-30, 30, (3, 4)), rng.integers(-30, 30, (4,))
Y, XS = rng.standard_normal((3, 5)), np.sort(rng.standard_normal(5))
OBS = rng.standard_normal((3, 6))
_np_trapezoid = getattr(np, "trapezoid", None) or np.trapz


def test_numpy_values(devices):
    def t(a):
        return openreg.tensor(a, device=devices)
    np.testing.assert_array_equal(openreg.gcd(t(INTS_A), t(INTS_B)).cpu().numpy(), np.gcd(INTS_A, INTS_B))
    np.testing.assert_array_equal(t(INTS_A).lcm(t(INTS_B)).cpu().numpy(), np.lcm(INTS_A, INTS_B))
    x = np.array([8.0, -3.0, 0.0, 1e-300, 5.5])
    m, e = openreg.frexp(t(x))
    nm, ne = np.frexp(x)
    np.testing.assert_array_equal(m.cpu().numpy(), nm)
    assert e.dtype == openreg.int32 and e.cpu().tolist() == ne.tolist()
    keep = [0, 1, 2, 4]   # 2**-996 underflows in ldexp's float32 power, as in PyTorch
    np.testing.assert_array_equal(openreg.ldexp(t(nm[keep]), e[keep]).cpu().numpy(), x[keep])
    np.testing.assert_array_equal(t(Y * 3).fix().cpu().numpy(), np.fix(Y * 3))
    np.testing.assert_allclose(openreg.cov(t(OBS)).cpu().numpy(), np.cov(OBS), rtol=1e-12)
    fw, aw = np.array([1, 2, 0, 3, 1, 1]), rng.random(6)
    np.testing.assert_allclose(openreg.cov(t(OBS), fweights=t(fw), aweights=t(aw), correction=0).cpu().numpy(),
                               np.cov(OBS, fweights=fw, aweights=aw, ddof=0), rtol=1e-12)
    np.testing.assert_allclose(t(OBS).corrcoef().cpu().numpy(), np.corrcoef(OBS), rtol=1e-12)
    np.testing.assert_allclose(openreg.trapezoid(t(Y), t(XS)).cpu().numpy(), _np_trapezoid(Y, XS), rtol=1e-12)
    np.testing.assert_allclose(openreg.trapz(t(Y), dx=0.5, dim=0).cpu().numpy(), _np_trapezoid(Y, dx=0.5, axis=0))
    cum = np.cumsum((Y[:, 1:] + Y[:, :-1]) * np.diff(XS) / 2, axis=1)
    np.testing.assert_allclose(openreg.cumulative_trapezoid(t(Y), t(XS)).cpu().numpy(), cum, rtol=1e-12)
    np.testing.assert_array_equal(openreg.vander(t(np.array([1, 2, 3]))).cpu().numpy(), np.vander([1, 2, 3]))
    np.testing.assert_allclose(openreg.vander(t(XS), 3, True).cpu().numpy(), np.vander(XS, 3, True))
    flat = np.array([[4, 5], [0, 3]])
    for got, ref in zip(openreg.unravel_index(t(flat), (2, 3)), np.unravel_index(flat, (2, 3))):
        assert got.cpu().tolist() == ref.tolist()
    np.testing.assert_allclose(openreg.vdot(t(XS), t(XS)).item(), np.vdot(XS, XS))
    np.testing.assert_array_equal(t(Y).msort().cpu().numpy(), np.sort(Y, axis=0))
    r = openreg.renorm(t(Y), 2, 0, 1.0).cpu().numpy()
    norms = np.linalg.norm(Y, axis=1, keepdims=True)
    np.testing.assert_allclose(r, np.where(norms > 1.0, Y / (norms + 1e-7), Y), rtol=1e-12)
    z = t(Y).clone()
    assert z.renorm_(2, 0, 1.0) is z and np.allclose(z.cpu().numpy(), r)
    assert openreg.isreal(t(Y)).all().item() and openreg.narrow_copy(t(Y), 1, 1, 2).cpu().tolist() == \
        Y[:, 1:3].tolist()
    assert t(Y).adjoint().cpu().tolist() == Y.T.tolist() and t(-Y).absolute().cpu().tolist() == np.abs(Y).tolist()
    assert t(Y).sum_to_size(1, 5).cpu().numpy() == pytest.approx(Y.sum(0, keepdims=True))
    assert openreg.get_device(t(Y)) == (-1 if devices == "cpu" else 0)
    v = t(np.array([2.5, 4.0]))
    np.testing.assert_allclose(v.mvlgamma(2).cpu().numpy(), [0.5 * np.log(np.pi) + math.lgamma(2.5) + math.lgamma(2.0),
                                                             0.5 * np.log(np.pi) + math.lgamma(4.0) + math.lgamma(3.5)])


def test_ldexp_gradient_is_two_to_the_other():
    # (PyTorch 2.13's LdexpBackward computes 2**other in integers: 0 for negative exponents)
    x = openreg.tensor([1.0, 2.0, 3.0], dtype=openreg.float64, requires_grad=True)
    openreg.ldexp(x, openreg.tensor([1, -1, 0])).sum().backward()
    assert x.grad.tolist() == [2.0, 0.5, 1.0]


def test_nextafter(devices):
    a = np.array([1.0, 2.0, 0.0, -1.0])
    b = np.array([2.0, 0.0, 1.0, -1.0])
    got = openreg.nextafter(openreg.tensor(a, device=devices), openreg.tensor(b, device=devices))
    np.testing.assert_array_equal(got.cpu().numpy(), np.nextafter(a, b))
    f32 = openreg.tensor([1.0], device=devices)
    assert f32.nextafter(openreg.tensor([2.0], device=devices)).item() == float(np.nextafter(np.float32(1), np.float32(2)))
    x = openreg.tensor([1.0], requires_grad=True)
    openreg.nextafter(x, openreg.tensor([2.0])).sum().backward()
    assert x.grad.tolist() == [1.0]
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        openreg.nextafter(openreg.tensor([1]), openreg.tensor([2]))


def test_inplace_aliases_and_queries():
    x = openreg.tensor([4.0, 6.0])
    assert x.divide_(2) is x and x.multiply_(3).tolist() == [6.0, 9.0]
    assert x.subtract_(1, alpha=2).tolist() == [4.0, 7.0] and x.true_divide_(2).tolist() == [2.0, 3.5]
    assert openreg.tensor([1.0, 3.0]).greater_(2).tolist() == [0.0, 1.0]
    assert openreg.tensor([1.0, 3.0]).less_equal_(1).tolist() == [1.0, 0.0]
    assert openreg.tensor([1.0, 3.0]).not_equal_(1).tolist() == [0.0, 1.0]
    i = openreg.tensor([4, 6])
    assert i.gcd_(openreg.tensor([6, 9])) is i and i.tolist() == [2, 3]
    assert openreg.tensor([1.0]).is_signed() and not openreg.is_signed(openreg.tensor([True]))
    assert openreg.result_type(openreg.tensor([1, 2]), 1.0) == openreg.float32
    assert openreg.can_cast(openreg.float64, openreg.float32) and not openreg.can_cast(openreg.float32, openreg.int32)
    assert openreg.is_same_size(openreg.zeros(2, 3), openreg.ones(2, 3))
    assert not openreg.is_inference(openreg.zeros(1)) and openreg.typename(openreg.zeros(1)) == "openreg.FloatTensor"


def test_errors():
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        openreg.gcd(openreg.ones(2), openreg.ones(2))
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        openreg.frexp(openreg.tensor([1]))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        openreg.vdot(openreg.ones(2, 2), openreg.ones(2))
    with pytest.raises(RuntimeError, match="x must be a one-dimensional tensor"):
        openreg.vander(openreg.ones(2, 2))
    with pytest.raises(RuntimeError, match="non-positive-norm not supported"):
        openreg.renorm(openreg.ones(2, 2), 0.0, 1, 1.0)
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        openreg.ones(2, 3).sum_to_size(3, 1)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        openreg.trapezoid(openreg.ones(3), 2.0)
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        openreg.unravel_index(openreg.ones(2), (2, 3))


CASES = [
    ("gcd", (INTS_A, INTS_B), {}), ("lcm", (INTS_A.astype(np.int32), INTS_B), {}),
    ("ldexp", (Y[0], np.array([1, -2, 3, 0, 5])), {}), ("ldexp", (np.array([1, 2], np.int32),) * 2, {}),
    ("frexp", (np.array([8.0, -3.0, 0.0], np.float32),), {}), ("fix", (Y * 3,), {}), ("isreal", (Y,), {}),
    ("vdot", (XS, XS[::-1].copy()), {}), ("msort", (Y,), {}), ("cov", (OBS,), {"correction": 0}),
    ("cov", (np.array([1, 2, 4]),), {}), ("cov", (OBS,), {"fweights": np.array([1, 2, 0, 3, 1, 1]),
                                                          "aweights": rng.random(6), "correction": 2}),
    ("corrcoef", (np.array([[0, 1, 2], [2, 1, 5]]),), {}), ("trapezoid", (Y, XS), {}), ("trapezoid", (Y,), {"dim": 0}),
    ("trapz", (Y,), {"dx": 3}), ("trapezoid", (Y, np.sort(rng.standard_normal((3, 5)), axis=1)), {}),
    ("cumulative_trapezoid", (Y, XS), {}), ("cumulative_trapezoid", (Y,), {"dim": 0, "dx": 2.0}),
    ("vander", (np.array([1, 2, 3], np.int32),), {}), ("vander", (XS,), {"N": 3, "increasing": True}),
    ("unravel_index", (np.array([[4, 5], [0, 7]]), (2, 3)), {}), ("renorm", (Y, 1, 1, 0.5), {}),
    ("narrow_copy", (Y, 1, 1, 3), {}), ("adjoint", (Y,), {}), ("absolute", (-Y,), {}),
]


def _conv(module, v):
    return module.tensor(v) if isinstance(v, np.ndarray) else v


@needs_torch
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_pytorch(name, args, kwargs):
    got = getattr(openreg, name)(*[_conv(openreg, a) for a in args], **{k: _conv(openreg, v) for k, v in kwargs.items()})
    ref = getattr(torch, name)(*[_conv(torch, a) for a in args], **{k: _conv(torch, v) for k, v in kwargs.items()})
    pairs = zip(got, ref) if isinstance(ref, tuple) else [(got, ref)]
    for g, r in pairs:
        assert str(g.dtype).split(".")[1] == str(r.dtype).split(".")[1] and tuple(g.shape) == tuple(r.shape)
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", ["renorm", "frexp", "cov", "corrcoef", "cumulative_trapezoid"])
def test_gradients_match_pytorch(name):
    a = rng.standard_normal((3, 4))
    args = {"renorm": (2, 0, 0.5)}.get(name, ())
    x, xt = openreg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    out = getattr(openreg, name)(x, *[_conv(openreg, v) for v in args])
    ref = getattr(torch, name)(xt, *[_conv(torch, v) for v in args])
    (out[0] if isinstance(out, tuple) else out).sum().backward()
    (ref[0] if isinstance(ref, tuple) else ref).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-12)
