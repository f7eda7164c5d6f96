"""Matrix products against NumPy: mm, bmm, addmm, dot, outer and every matmul dimension case."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg
from openreg._array_bridge import host_array

RNG = np.random.default_rng(3)


def T(arr, device="cpu"):
    t = openreg.from_numpy(np.array(arr, order="C"))
    return t if device == "cpu" else t.to(device)


def N(t) -> np.ndarray:
    return np.array(host_array(t))


def R(*shape, dtype=np.float32):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-3, 4, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)), ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
    ((1, 2, 3), (6, 3, 4)), ((2, 0, 3), (3, 4)), ((2, 3), (3, 0)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_matmul_matches_numpy(devices, dtype):
    for sa, sb in MATMUL_SHAPES:
        a, b = R(*sa, dtype=dtype), R(*sb, dtype=dtype)
        expected = np.matmul(a, b)
        r = openreg.matmul(T(a, devices), T(b, devices))
        assert r.dtype is openreg.dtypes.from_numpy(expected.dtype)
        assert tuple(r.shape) == expected.shape, (sa, sb)
        np.testing.assert_allclose(N(r), expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(N(T(a, devices) @ T(b, devices)), expected, rtol=1e-5, atol=1e-5)


def test_matmul_noncontiguous_operands(devices):
    a, b = R(4, 3), R(5, 4, 2)
    at = openreg.ops.aten.as_strided.default(T(a, devices), (3, 4), (1, 3))  # a.T as a strided view
    np.testing.assert_allclose(N(at @ T(b, devices)), a.T @ b, rtol=1e-5)
    bt = openreg.ops.aten.as_strided.default(T(b, devices), (5, 2, 4), (8, 1, 2))  # b.transpose(1, 2)
    c = R(3, 2)
    np.testing.assert_allclose(N(T(c, devices) @ bt), c @ np.swapaxes(b, 1, 2), rtol=1e-5)


def test_matmul_out(devices):
    a, b = R(5, 2, 3), R(3, 4)
    out = openreg.empty(0, device=devices)
    assert openreg.matmul(T(a, devices), T(b, devices), out=out) is out
    np.testing.assert_allclose(N(out), a @ b, rtol=1e-5)
    out2 = openreg.empty(0, device=devices)
    openreg.matmul(T(a[0], devices), T(b, devices), out=out2)
    np.testing.assert_allclose(N(out2), a[0] @ b, rtol=1e-5)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        openreg.matmul(T(a, devices), T(b, devices), out=openreg.empty(0, dtype=openreg.int64, device=devices))


def test_matmul_out_requiring_grad_is_refused_before_it_is_resized(devices):
    out = openreg.zeros(2, 3, device=devices, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"matmul\(\): functions with out=\.\.\. arguments don't support "
                                           r"automatic differentiation"):
        openreg.matmul(T(R(3, 2), devices), T(R(2, 2, 3), devices), out=out)
    assert out.shape == (2, 3) and out._version == 0


def test_matmul_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        openreg.matmul(openreg.ones(2, 3), openreg.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        openreg.ones(2, 3) @ openreg.ones(4, 5)
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        openreg.matmul(T(np.array(1.0)), openreg.ones(2))
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        openreg.matmul(openreg.ones(3), openreg.ones(4))
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        openreg.matmul(openreg.ones(2, 2, 3), openreg.ones(3, 3, 4))
    with pytest.raises(RuntimeError, match="Expected size for first two dimensions of batch2 tensor"):
        openreg.matmul(openreg.ones(2, 2, 3), openreg.ones(2, 4, 4))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        openreg.ones(2, 3) @ openreg.ones(3, 2, dtype=openreg.float64)
    with pytest.raises(TypeError, match="matmul.*other.*Tensor"):
        openreg.ops.aten.matmul.default(openreg.ones(2), [1.0, 2.0])


def test_mm_and_bmm(devices):
    a, b = R(2, 3), R(3, 4)
    np.testing.assert_allclose(N(T(a, devices).mm(T(b, devices))), a @ b, rtol=1e-5)
    out = openreg.empty(0, device=devices)
    openreg.mm(T(a, devices), T(b, devices), out=out)
    np.testing.assert_allclose(N(out), a @ b, rtol=1e-5)
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        openreg.mm(openreg.ones(3), openreg.ones(3, 2))
    x, y = R(4, 2, 3), R(4, 3, 5)
    np.testing.assert_allclose(N(openreg.bmm(T(x, devices), T(y, devices))), x @ y, rtol=1e-5)
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        openreg.bmm(openreg.ones(2, 3), openreg.ones(4, 3, 5))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: "
                                           r"\[4, 3\] but got: \[4, 5\]."):
        openreg.bmm(openreg.ones(4, 2, 3), openreg.ones(4, 5, 3))
    f16 = openreg.bmm(T(x, devices).to(openreg.float16), T(y, devices).to(openreg.float16))
    assert f16.dtype is openreg.float16
    np.testing.assert_allclose(N(f16), x @ y, atol=5e-2, rtol=1e-2)


def test_addmm(devices):
    c, a, b = R(4), R(2, 3), R(3, 4)
    x = openreg.addmm(T(c, devices), T(a, devices), T(b, devices), beta=0.5, alpha=2)
    np.testing.assert_allclose(N(x), 0.5 * c + 2 * (a @ b), rtol=1e-5)
    nan = T(np.full((2, 4), np.nan, dtype=np.float32), devices)
    np.testing.assert_allclose(N(openreg.addmm(nan, T(a, devices), T(b, devices), beta=0)), a @ b, rtol=1e-5)
    acc = T(np.ones((2, 4), dtype=np.float32), devices)
    assert acc.addmm_(T(a, devices), T(b, devices)) is acc
    np.testing.assert_allclose(N(acc), 1 + a @ b, rtol=1e-5)
    small = T(np.ones((4,), dtype=np.float32), devices)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        small.addmm_(T(a, devices), T(b, devices))
    assert N(small).tolist() == [1.0] * 4
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x4\)"):
        openreg.addmm(T(c), T(a), T(R(4, 4)))


def test_dot_and_outer(devices):
    a, b = R(5), R(5)
    r = openreg.dot(T(a, devices), T(b, devices))
    assert r.shape == () and r.item() == pytest.approx(float(a @ b), rel=1e-5)
    i = openreg.dot(T(np.array([1, 2]), devices), T(np.array([3, 4]), devices))
    assert i.dtype is openreg.int64 and i.item() == 11
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        openreg.dot(openreg.ones(2, 2), openreg.ones(2))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but found Float and Long"):
        openreg.dot(openreg.ones(2), openreg.ones(2, dtype=openreg.int64))
    with pytest.raises(RuntimeError, match="inconsistent tensor size, expected tensor \\[2\\] and src \\[3\\]"):
        openreg.dot(openreg.ones(2), openreg.ones(3))
    u, v = R(3), R(4, dtype=np.float64)
    o = openreg.outer(T(u, devices), T(v, devices))
    assert o.dtype is openreg.float64
    np.testing.assert_allclose(N(o), np.outer(u, v), rtol=1e-6)
    out = openreg.empty(0, dtype=openreg.float64, device=devices)
    openreg.outer(T(u, devices), T(v, devices), out=out)
    np.testing.assert_allclose(N(out), np.outer(u, v), rtol=1e-6)
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument self, but got 2-D"):
        openreg.outer(openreg.ones(2, 2), openreg.ones(2))


@pytest.mark.parametrize("rows", [8, 64, 300])
def test_mm_and_addmm_of_a_transposed_weight_are_row_major_and_exact(rows):
    # x @ w.t() (a linear layer) may be computed as (w @ x.t()).t() for speed: same values, row-major result
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 256)).astype(np.float32)
    w = rng.standard_normal((200, 256)).astype(np.float32)
    b = rng.standard_normal(200).astype(np.float32)
    ox, ow, ob = openreg.from_numpy(x), openreg.from_numpy(w), openreg.from_numpy(b)
    want = x.astype(np.float64) @ w.T.astype(np.float64)
    for got, ref in ((openreg.mm(ox, ow.t()), want), (openreg.addmm(ob, ox, ow.t()), want + b)):
        assert got.is_contiguous() and tuple(got.shape) == (rows, 200)
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-4, atol=1e-3)
    y = openreg.nn.functional.linear(ox, ow, ob)
    np.testing.assert_array_equal(y.numpy(), openreg.addmm(ob, ox, ow.t()).numpy())


def _grads(build, create_graph):
    """The gradients of ``build()``'s parameters and input after one backward pass."""
    openreg.manual_seed(0)
    params, loss = build()
    loss.backward(create_graph=create_graph)
    return [N(p.grad) for p in params]


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("rows,features,out", [(3, 5, 4), (64, 256, 256), (8, 300, 1024)])
def test_linear_backward_skips_dispatch_with_the_same_bits(dtype, rows, features, out):
    """Without create_graph, mm/addmm gradients are computed on the arrays (linalg._plain_cpu_arrays); with it,
    through the operators. Both must give the same bits: a Linear (weight.t(), a transposed mat2), an n-d
    input, and ``x.mm(w)`` with a row-major mat2."""
    def build():
        lin = openreg.nn.Linear(features, out, dtype=dtype)
        x = openreg.randn(rows, features, dtype=dtype, requires_grad=True)
        x3 = openreg.randn(2, rows, features, dtype=dtype, requires_grad=True)
        w = openreg.randn(features, out, dtype=dtype, requires_grad=True)
        loss = (lin(x) ** 2).sum() + lin(x3).sum() + (x.mm(w) * 0.5).sum()
        return [lin.weight, lin.bias, x, x3, w], loss
    from openreg.operators import linalg
    taken = []
    real = linalg._plain_cpu_arrays

    def spy(a, b):
        taken.append(real(a, b) is not None)
        return real(a, b)
    linalg._plain_cpu_arrays = spy
    try:
        fast_grads, slow_grads = _grads(build, False), _grads(build, True)
    finally:
        linalg._plain_cpu_arrays = real
    assert any(taken) and not all(taken)     # the shortcut without create_graph, the operators with it
    for fast, slow in zip(fast_grads, slow_grads):
        assert fast.dtype == slow.dtype and fast.view(np.uint8).tobytes() == slow.view(np.uint8).tobytes()


def test_mm_backward_runs_a_registered_cpu_kernel():
    """A CPU kernel registered over aten::mm (openreg.library) is what the backward pass calls, not the shortcut."""
    from openreg.library import Library
    calls = []

    def mm_kernel(a, b):
        calls.append(tuple(a.shape))
        return openreg.from_numpy(N(a) @ N(b))
    lib = Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # "overriding a previously registered kernel"
            lib.impl("mm", mm_kernel, "CPU")
        x = openreg.randn(3, 4, requires_grad=True)
        w = openreg.randn(4, 2, requires_grad=True)
        openreg.mm(x, w).sum().backward()
    finally:
        lib._destroy()
    assert len(calls) == 3 and x.grad.shape == (3, 4) and w.grad.shape == (4, 2)
    np.testing.assert_allclose(N(x.grad), np.ones((3, 2)) @ N(w).T, rtol=1e-6)
