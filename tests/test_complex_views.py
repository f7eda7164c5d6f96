"""Complex views and constructors (operators/complex.py): view_as_real / view_as_complex / real / imag share
storage, their errors, complex / polar / conj / angle against NumPy, and gradients through complex values
(PyTorch's convention: a real input's gradient is the real part; multiplication by a complex number passes
``grad * conj(other)``), including in-place changes through a complex or real view of a tensor in a graph."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None

RNG = np.random.default_rng(11)


def _c(arr, device, grad=False):
    return openreg.tensor(np.asarray(arr).tolist(), dtype=openreg.complex128, device=device, requires_grad=grad)


def _r(arr, device, grad=False, dtype=openreg.float64):
    return openreg.tensor(np.asarray(arr).tolist(), dtype=dtype, device=device, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


def test_view_as_real_shares_storage_and_geometry(devices):
    z = _c(np.arange(6).reshape(2, 3) + 1j * np.arange(6, 12).reshape(2, 3), devices)
    v = openreg.view_as_real(z[:, 1:])
    assert v.shape == (2, 2, 2) and v.stride() == (6, 2, 1) and v.storage_offset() == 2
    assert v.dtype is openreg.float64 and v._base is z
    np.testing.assert_array_equal(_np(v)[..., 0], [[1, 2], [4, 5]])
    v[0, 0, 1] = -7.0                       # a write through the real view is seen by the complex tensor
    assert z[0, 1].item() == 1 - 7j
    back = openreg.view_as_complex(openreg.view_as_real(z))
    assert back.dtype is openreg.complex128 and back.stride() == z.stride()
    np.testing.assert_array_equal(_np(back), _np(z))


def test_view_as_complex_of_float32(devices):
    x = _r(np.arange(8.0).reshape(2, 2, 2), devices, dtype=openreg.float32)
    c = openreg.view_as_complex(x)
    assert c.dtype is openreg.complex64 and c.shape == (2, 2) and c.stride() == (2, 1)
    np.testing.assert_array_equal(_np(c), [[1j, 2 + 3j], [4 + 5j, 6 + 7j]])
    c.mul_(2)
    np.testing.assert_array_equal(_np(x).ravel(), np.arange(8.0) * 2)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: openreg.ones(2, 3), "Tensor must have a last dimension of size 2"),
    (lambda: openreg.ones(2, dtype=openreg.int64), "only supported for half, float and double tensors, but got a tensor"),
    (lambda: openreg.ones(2, 2).t(), "Tensor must have a last dimension with stride 1"),
    (lambda: openreg.ones(3, 3)[:, 1:], "Tensor must have a stride divisible by 2 for all but last dimension"),
    (lambda: openreg.ones(7)[1:].view(3, 2), "Tensor must have a storage_offset divisible by 2"),
    (lambda: openreg.ones(()), "Input tensor must have one or more dimensions"),
])
def test_view_as_complex_errors(make, message):
    with pytest.raises(RuntimeError, match=message):
        openreg.view_as_complex(make())


def test_view_errors_and_real_of_real():
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        openreg.view_as_real(openreg.ones(2))
    x = openreg.ones(2)
    assert x.real is x and openreg.real(x) is x and x.conj() is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        _ = x.imag


def test_real_imag_views_and_setters(devices):
    z = _c([1 + 2j, 3 - 1j], devices)
    re, im = z.real, z.imag
    assert re.untyped_storage().data_ptr() == z.untyped_storage().data_ptr() and re.stride() == (2,)
    np.testing.assert_array_equal(_np(re), [1, 3])
    np.testing.assert_array_equal(_np(openreg.imag(z)), [2, -1])
    z.imag = _r([5.0, 6.0], devices)
    z.real = 0.5
    np.testing.assert_array_equal(_np(z), [0.5 + 5j, 0.5 + 6j])
    np.testing.assert_array_equal(_np(im), [5, 6])


def test_complex_polar_conj_angle_match_numpy(devices):
    a, b = RNG.uniform(-2, 2, (2, 3)), RNG.uniform(-2, 2, (1, 3))
    np.testing.assert_allclose(_np(openreg.complex(_r(a, devices), _r(b, devices))), a + 1j * b)
    np.testing.assert_allclose(_np(openreg.polar(_r(a, devices), _r(b, devices))), a * np.exp(1j * b), rtol=1e-14)
    z = a + 1j * RNG.uniform(-2, 2, (2, 3))
    np.testing.assert_array_equal(_np(openreg.conj(_c(z, devices))), np.conj(z))
    np.testing.assert_array_equal(_np(_c(z, devices).conj_physical()), np.conj(z))
    np.testing.assert_allclose(_np(openreg.angle(_c(z, devices))), np.angle(z), rtol=1e-15)
    got = openreg.angle(_r([-1.0, 0.0, 2.0, float("nan")], devices))
    np.testing.assert_array_equal(_np(got), [np.pi, 0.0, 0.0, np.nan])
    assert openreg.polar(_r(a, devices, dtype=openreg.float32), _r(b, devices, dtype=openreg.float32)).dtype \
        is openreg.complex64


def test_complex_and_polar_errors():
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got scalar type Double for "
                                           "second argument"):
        openreg.polar(openreg.ones(2), openreg.ones(2, dtype=openreg.float64))
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double tensors but got "
                                           "Long and Long"):
        openreg.complex(openreg.ones(2, dtype=openreg.int64), openreg.ones(2, dtype=openreg.int64))


def test_rotary_embedding_gradient(devices):
    """LLaMA's RoPE: x viewed as complex pairs, multiplied by unit complex numbers, viewed back as real. The
    map is a rotation of each pair, so the gradient is the rotation by the opposite angle."""
    theta = RNG.uniform(-3, 3, 4)
    x = _r(RNG.normal(size=(3, 4, 2)), devices, grad=True)
    freqs = openreg.polar(_r(np.ones(4), devices), _r(theta, devices))
    y = openreg.view_as_real(openreg.view_as_complex(x) * freqs).flatten(1)
    g = RNG.normal(size=(3, 8))
    y.backward(_r(g, devices))
    gc = (g[:, 0::2] + 1j * g[:, 1::2]) * np.exp(-1j * theta)
    np.testing.assert_allclose(_np(x.grad), np.stack([gc.real, gc.imag], -1), rtol=1e-12, atol=1e-14)


def test_gradients_of_abs_angle_and_polar(devices):
    z0 = np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j])
    z = _c(z0, devices, grad=True)
    (z.abs().sum() + 2 * z.angle().sum()).backward()
    # |z|' = z / |z|; angle' = i z / |z|^2 (PyTorch's convention: dL/dRe + i dL/dIm)
    expected = z0 / np.abs(z0) + 2 * 1j * z0 / np.abs(z0) ** 2
    np.testing.assert_allclose(_np(z.grad), expected, rtol=1e-12)
    r, t = _r([2.0, 0.5], devices, grad=True), _r([0.3, -1.2], devices, grad=True)
    w = openreg.polar(r, t)
    (w.real * 3 + w.imag).sum().backward()
    rr, tt = np.array([2.0, 0.5]), np.array([0.3, -1.2])
    np.testing.assert_allclose(_np(r.grad), 3 * np.cos(tt) + np.sin(tt), rtol=1e-12)
    np.testing.assert_allclose(_np(t.grad), -3 * rr * np.sin(tt) + rr * np.cos(tt), rtol=1e-12)


def test_real_input_times_complex_gets_real_gradient(devices):
    x = _r([1.0, 2.0], devices, grad=True)
    c = _c([2 - 1j, 1 + 3j], devices)
    openreg.view_as_real(x * c).sum().backward()
    assert x.grad.dtype is openreg.float64
    np.testing.assert_allclose(_np(x.grad), [2 - 1, 1 + 3])


def test_in_place_through_complex_and_real_views(devices):
    """In-place ops on dtype-changing views of a tensor in a graph: the base's gradient comes through
    CopySlices with the view's geometry counted in the view's elements (values checked by hand, equal to
    PyTorch's)."""
    x = _r(np.arange(12.0).reshape(2, 3, 2), devices, grad=True)
    b = x * 1
    openreg.view_as_complex(b).mul_(_c([1 + 2j, 2 - 1j, 0.5j], devices))
    (b * _r(np.arange(12.0).reshape(2, 3, 2), devices)).sum().backward()
    w = np.array([1 + 2j, 2 - 1j, 0.5j])
    g = np.arange(12.0).reshape(2, 3, 2)
    gc = (g[..., 0] + 1j * g[..., 1]) * np.conj(w)
    np.testing.assert_allclose(_np(x.grad), np.stack([gc.real, gc.imag], -1))

    z = _c([1 + 2j, 3 - 1j, 2j], devices, grad=True)
    u = z * 1
    u.real.mul_(3)
    u.imag.add_(u.real)          # imag += 3 * re
    (openreg.view_as_real(u) * _r(np.arange(6.0).reshape(3, 2), devices)).sum().backward()
    np.testing.assert_allclose(_np(z.grad), [3 + 1j, 15 + 3j, 27 + 5j])

    z2 = _c([1 + 2j, 3 - 1j], devices, grad=True)
    u2 = z2 * 1
    re = u2.real
    u2.mul_(2j)                  # the base changes: the view's history is regenerated from it
    (re * _r([1.0, 2.0], devices)).sum().backward()
    np.testing.assert_allclose(_np(z2.grad), [-2j, -4j])


def test_matches_torch_when_installed():
    torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")
    z0 = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
    x0 = RNG.normal(size=(3, 4, 2))

    def run(m):
        z = m.tensor(z0, requires_grad=True)
        x = m.tensor(x0, requires_grad=True)
        f = m.polar(m.ones(4, dtype=m.float64), m.tensor(np.linspace(0, 2, 4)))
        y = m.view_as_real(m.view_as_complex(x) * f * z).flatten(1)
        loss = (y * y).sum() + z.abs().sum() + z.angle().sum() + (z / (1 + z.conj())).real.sum()
        loss.backward()
        return loss.item(), z.grad.numpy(), x.grad.numpy()
    ours, theirs = run(openreg), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-13)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


def test_complex_products_pass_conjugate_gradients(devices):
    """mm/bmm/matmul/einsum/dot/outer of complex operands: the gradient of ``a`` in ``a @ b`` is
    ``grad @ b^H`` (checked by gradcheck through real views)."""
    from openreg.autograd import gradcheck

    def cx(t):
        return openreg.view_as_complex(t)

    a = openreg.tensor(RNG.normal(size=(2, 3, 4, 2)).tolist(), dtype=openreg.float64, device=devices,
                       requires_grad=True)
    b = openreg.tensor(RNG.normal(size=(3, 5, 4, 2)).tolist(), dtype=openreg.float64, device=devices,
                       requires_grad=True)
    v = openreg.tensor(RNG.normal(size=(4, 2)).tolist(), dtype=openreg.float64, device=devices, requires_grad=True)
    assert gradcheck(lambda x, y: openreg.view_as_real(openreg.einsum("bix,iox->box", cx(x), cx(y))), (a, b))
    assert gradcheck(lambda x, y: openreg.view_as_real(cx(x)[0] @ cx(y)[0].transpose(0, 1)), (a, b))
    assert gradcheck(lambda x, y: openreg.view_as_real(cx(x).matmul(cx(y))), (a[0, 0], v))
    w = (v.detach() * 2).requires_grad_()
    assert gradcheck(lambda x, y: openreg.view_as_real(openreg.dot(cx(x), cx(y))), (v, w))
    assert gradcheck(lambda x, y: openreg.view_as_real(openreg.outer(cx(x), cx(y))), (v, w))


def test_complex_random_factories(devices):
    openreg.manual_seed(0)
    u = openreg.rand(4000, dtype=openreg.cfloat, device=devices)
    assert u.dtype is openreg.complex64
    parts = openreg.view_as_real(u).cpu().numpy()
    assert parts.min() >= 0 and parts.max() < 1 and abs(parts.mean() - 0.5) < 0.02
    n = openreg.randn(4000, dtype=openreg.cdouble, device=devices)
    parts = openreg.view_as_real(n).cpu().numpy()
    # PyTorch: each part has variance 1/2, so E|z|^2 = 1
    assert abs(parts.std(0) - np.sqrt(0.5)).max() < 0.03
    t = openreg.empty(3, 2, dtype=openreg.complex64, device=devices).t().normal_(2.0, 0.0)
    assert t.cpu().numpy().tolist() == [[2 + 2j] * 3] * 2


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal",
                                  "pow"])
def test_analytic_functions_pass_conjugate_gradients(name, devices):
    """``f(z)`` analytic: the gradient of ``z`` is ``grad * conj(f'(z))`` (gradcheck through real views), and
    forward mode gives ``f'(z) * tangent``."""
    from openreg.autograd import gradcheck
    fn = (lambda t: t.pow(3)) if name == "pow" else getattr(openreg, name)
    x = openreg.tensor((RNG.uniform(0.3, 1.0, size=(4, 2)) * [1, 0.7]).tolist(), dtype=openreg.float64,
                       device=devices, requires_grad=True)
    assert gradcheck(lambda t: openreg.view_as_real(fn(openreg.view_as_complex(t))), (x,), check_forward_ad=True)


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "asinh", "acosh", "atanh", "sinh", "cosh", "log2",
                                  "log10", "sgn"])
def test_inverse_trig_and_sgn_take_complex_inputs_and_gradients(name, devices):
    """The inverse trigonometric/hyperbolic functions (and sinh, cosh, log2, log10) on complex inputs give NumPy's
    principal values (C99's, as PyTorch) and pass ``grad * conj(f'(z))``; ``sgn = z / |z|``, not analytic,
    passes PyTorch's ``(g - sgn**2 conj(g)) / (2 |z|)``: gradcheck through real views, forward mode too."""
    from openreg.autograd import gradcheck
    z = (RNG.uniform(-1.5, 1.5, size=(4, 2)) * [1, 0.9]).view(np.complex128).ravel()
    ours = getattr(openreg, name)(openreg.tensor(z, device=devices)).cpu().numpy()
    ref = z / np.abs(z) if name == "sgn" else getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan",
                                                           "asinh": "arcsinh", "acosh": "arccosh",
                                                           "atanh": "arctanh"}.get(name, name))(z)
    np.testing.assert_allclose(ours, ref, rtol=1e-12)
    x = openreg.tensor(z.view(np.float64).reshape(4, 2), device=devices, requires_grad=True)
    fn = getattr(openreg, name)
    assert gradcheck(lambda t: openreg.view_as_real(fn(openreg.view_as_complex(t))), (x,), check_forward_ad=True)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", ["asin", "acos", "atan", "asinh", "acosh", "atanh", "sgn"])
def test_complex_gradients_equal_pytorchs(name):
    z = (RNG.uniform(-2.0, 2.0, size=(6, 2))).view(np.complex128).ravel()
    w = (RNG.uniform(-1.0, 1.0, size=(6, 2))).view(np.complex128).ravel()
    grads, values = [], []
    for lib in (torch, openreg):
        t = lib.tensor(z, requires_grad=True)
        y = getattr(lib, name)(t)
        (y * lib.tensor(w)).real.sum().backward()
        grads.append(t.grad.numpy())
        values.append(y.detach().numpy())
    np.testing.assert_allclose(values[1], values[0], rtol=1e-12)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10)
