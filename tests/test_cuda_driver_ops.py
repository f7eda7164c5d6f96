"""Operators on the cuda driver over the strict CuPy double, compared with the CPU backend.

The compute code is shared between NumPy (CPU, emulated device) and CuPy (cuda driver); on the strict double
every array-module call it makes must be one real CuPy accepts (names, keywords, dtypes, no host arrays where
CuPy refuses them), so a call that would fail on a GPU fails here.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
from openreg.backends.privateuseone import kernels
from openreg.backends.privateuseone.cuda_driver import CudaDriver
from openreg.backends.privateuseone.driver_select import use_driver
from test_cuda_driver import _current, _NumpyKernels, make_fake_cupy, use_stand_in_kernels

import openreg

F = openreg.nn.functional


@pytest.fixture(scope="module")
def cuda_device():
    cp = make_fake_cupy(count=2, memory=256 << 20)
    saved = sys.modules.get("cupy")
    sys.modules["cupy"] = cp
    _current[0] = 0
    mp = pytest.MonkeyPatch()
    use_stand_in_kernels(mp, _StrictKernels)
    for name in ("attention_fwd", "attention_bwd", "lstm_cell_fwd", "lstm_cell_bwd", "gru_cell_fwd", "gru_cell_bwd"):
        mp.setattr(kernels, name, getattr(_StrictKernels, name))
    with use_driver(CudaDriver()):
        yield "privateuseone:0"
    mp.undo()
    if saved is None:
        sys.modules.pop("cupy", None)
    else:
        sys.modules["cupy"] = saved


class _StrictKernels(_NumpyKernels):
    """The raw kernels' stand-ins, reading the double's arrays through their host memory."""

    @classmethod
    def abs_(cls, launcher, out, inp):
        np.abs(inp._a, out=out._a)

    @classmethod
    def copy_(cls, launcher, out, inp):
        out._a[...] = inp._a

    @classmethod
    def fill_(cls, launcher, out, value):
        out._a[...] = value

    @classmethod
    def mm_plus_mm(cls, launcher, a, b, c, d, out):
        out._a[...] = a._a @ b._a + c._a @ d._a

    # fused attention and recurrent cells: the array code on the host copies
    @staticmethod
    def _mask(mask, shape):
        if mask is None:
            return None
        bh, heads, L, S = (int(shape[f]) for f in ("bh", "heads", "q_len", "k_len"))
        return np.broadcast_to(mask._a, (bh // heads, heads, L, S)).reshape(bh, L, S)

    @classmethod
    def attention_fwd(cls, launcher, out, lse, q, k, v, mask, shape):
        from openreg.operators import _flash_attention as flash
        o, m = flash.forward(np, q._a, k._a, v._a, cls._mask(mask, shape), bool(shape["causal"]), float(shape["scale"]))
        out._a[...], lse._a[...] = o, m

    @classmethod
    def attention_bwd(cls, launcher, dq, dk, dv, row_dot, q, k, v, out, grad_out, lse, mask, shape):
        from openreg.operators import _flash_attention as flash
        grads = flash.backward(np, grad_out._a, q._a, k._a, v._a, out._a, lse._a, cls._mask(mask, shape),
                               bool(shape["causal"]), float(shape["scale"]))
        dq._a[...], dk._a[...], dv._a[...] = grads[:3]

    @classmethod
    def lstm_cell_fwd(cls, launcher, hy, cy, ws, ig, hg, cx, ib, hb):
        from openreg.operators import recurrent
        gates = ig._a + hg._a + (0 if ib is None else ib._a + hb._a)
        hy._a[...], cy._a[...], ws._a[...] = recurrent.lstm_cell_arrays(np, gates, cx._a)

    @classmethod
    def lstm_cell_bwd(cls, launcher, grad_gates, grad_cx, grad_hy, grad_cy, cx, cy, ws):
        from openreg.operators import recurrent
        grad_gates._a[...], grad_cx._a[...] = recurrent.lstm_cell_backward_arrays(
            np, None if grad_hy is None else grad_hy._a, None if grad_cy is None else grad_cy._a, cx._a, cy._a, ws._a)

    @classmethod
    def gru_cell_fwd(cls, launcher, hy, ws, ig, hg, hx, ib, hb):
        from openreg.operators import recurrent
        i, h = (ig._a, hg._a) if ib is None else (ig._a + ib._a, hg._a + hb._a)
        hy._a[...], ws._a[...] = recurrent.gru_cell_arrays(np, i, h, hx._a)

    @classmethod
    def gru_cell_bwd(cls, launcher, grad_input, grad_hidden, grad_hx, grad_hy, ws):
        from openreg.operators import recurrent
        grad_input._a[...], grad_hidden._a[...], grad_hx._a[...] = recurrent.gru_cell_backward_arrays(
            np, grad_hy._a, ws._a)


def _x(dtype=openreg.float32, shape=(3, 4), lo=-3, hi=3):
    rng = np.random.default_rng(0)
    if dtype is openreg.bool:
        return openreg.tensor(rng.random(shape) > 0.5)
    a = rng.integers(lo, hi, shape) if not dtype.is_floating_point else rng.uniform(lo, hi, shape)
    return openreg.tensor(a, dtype=dtype)


def _i(n, hi, shape):
    return openreg.tensor(np.random.default_rng(1).integers(0, hi, shape), dtype=openreg.int64)


def _ctc_loss_and_grad(x):
    """CTC loss of two samples (a repeated label, a shorter input) and its gradient, stacked: both recursions."""
    y = x.detach().requires_grad_()
    lp = openreg.stack([y, y.flip(0)], 1).log_softmax(2)
    loss = F.ctc_loss(lp, openreg.tensor([[1, 1], [2, 3]]).to(x.device), [3, 2], [2, 1], reduction="sum")
    return openreg.cat([loss.detach().reshape(1, 1).expand(1, 4), openreg.autograd.grad(loss, y)[0]])


def _layers_and_grads(x):
    """GroupNorm, LayerNorm, BatchNorm and (depthwise) convolutions with their gradients, flattened."""
    y = x.detach().reshape(1, 4, 3).requires_grad_()
    w = (x[0].detach() * 0.5 + 1).requires_grad_()
    k = x[:, :2].detach().reshape(1, 2, 3)[:, :, :2].reshape(2, 1, 2).requires_grad_()
    outs = [F.group_norm(y, 2, w, w * 0.1), F.layer_norm(y, (3,)), F.batch_norm(y, None, None, w, None, training=True),
            F.conv1d(y, k.repeat(2, 1, 1), padding=1, groups=4), F.conv1d(y, k.reshape(1, 2, 2).repeat(2, 2, 1))]
    total = sum((o * o).sum() for o in outs)
    grads = openreg.autograd.grad(total, (y, w, k))
    return openreg.cat([t.reshape(-1) for t in [*outs, *grads]])


CASES = {
    "add": lambda x: x + x * 2,
    "sub_scalar": lambda x: x - 1.5,
    "div": lambda x: x / (x.abs() + 1),
    "floor_divide": lambda x: openreg.floor_divide(x, 2),
    "remainder": lambda x: x % 2,
    "pow": lambda x: x.abs() ** 1.5,
    "exp_log": lambda x: (x.exp() + 1).log(),
    "sqrt_rsqrt": lambda x: (x.abs() + 1).sqrt() + (x.abs() + 1).rsqrt(),
    "trig": lambda x: x.sin() + x.cos() + x.tanh() + x.sigmoid(),
    "relu": lambda x: x.relu(),
    "neg_abs": lambda x: -x.abs(),
    "clamp": lambda x: x.clamp(-1, 1),
    "clamp_tensor": lambda x: openreg.clamp(x, x * 0 - 1, x * 0 + 1),
    "where": lambda x: openreg.where(x > 0, x, x * 0),
    "compare": lambda x: (x > 0) & (x <= 2) | (x == 1),
    "maximum": lambda x: openreg.maximum(x, x.t().t() * 0.5),
    "sum_dims": lambda x: x.sum(0) + x.sum(1, keepdim=True).sum(),
    "mean_prod": lambda x: x.mean(1) + x.prod(0).sum(),
    "amax_amin": lambda x: x.amax(1) + x.amin(1),
    "argmax": lambda x: x.argmax(1),
    "softmax": lambda x: x.softmax(1) + x.log_softmax(0),
    "matmul": lambda x: x @ x.t(),
    "bmm": lambda x: openreg.bmm(x.unsqueeze(0), x.t().unsqueeze(0)),
    "addmm": lambda x: openreg.addmm(x[:, :3], x, x.t()[:, :3]),
    "cat_stack": lambda x: openreg.cat([x, x]) + openreg.stack([x, x]).sum(0).repeat(2, 1)
    if hasattr(x, "repeat") else openreg.cat([x, x]),
    "transpose_contig": lambda x: x.t().contiguous(),
    "index": lambda x: x[_i(0, 3, (5,)).to(x.device)],
    "index_bool": lambda x: x[x > 0],
    "index_put": lambda x: x.clone().index_put_((_i(0, 3, (4,)).to(x.device),), x[0] * 0 + 1, accumulate=True),
    "gather": lambda x: openreg.gather(x, 1, _i(0, 4, (3, 2)).to(x.device)),
    "scatter_add": lambda x: openreg.zeros(3, 4, device=x.device, dtype=x.dtype).scatter_add_(
        1, _i(0, 4, (3, 4)).to(x.device), x),
    "nonzero": lambda x: (x > 0).nonzero(),
    "ctc_loss": _ctc_loss_and_grad,
    "norms_convs": _layers_and_grads,
    "cross_entropy": lambda x: F.cross_entropy(x, _i(0, 4, (3,)).to(x.device)),
    "mse": lambda x: F.mse_loss(x, x * 0.5),
    "linear": lambda x: F.linear(x, x, x[:, 0]),
    "sdpa": lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None], is_causal=True),
    "sdpa_mask": lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None], attn_mask=x[:, :3] > 0),
    "lstm_cell": lambda x: openreg.ops.aten._thnn_fused_lstm_cell(x, x * 0.5, x[:, :1])[1],
    "gru_cell": lambda x: openreg.ops.aten._thnn_fused_gru_cell(x[:, :3], x[:, 1:], x[:, :1])[0],
    "to_f16": lambda x: x.to(openreg.float16).to(openreg.float32),
    "to_bf16": lambda x: x.to(openreg.bfloat16).to(openreg.float32),
    "to_int": lambda x: x.to(openreg.int64),
    "complex_views": lambda x: openreg.view_as_real(openreg.polar(x.abs(), x) * openreg.complex(x, x * 0.5)).sum(-1)
    + openreg.angle(openreg.view_as_complex(x.reshape(3, 2, 2))).sum() + openreg.conj(openreg.complex(x, x)).imag,
    "fft": lambda x: openreg.fft.irfft(openreg.fft.rfft(x, norm="ortho") * 2, n=4, norm="ortho")
    + openreg.fft.fft2(x).abs() + openreg.fft.ifftn(x, dim=(0,)).real,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_on_cuda_driver_matches_cpu(cuda_device, name):
    fn = CASES[name]
    x = _x()
    expected = fn(x)
    got = fn(x.to(cuda_device))
    assert got.device.type == "privateuseone"
    assert type(got._array()).__module__ == "cupy_double.strict"     # computed on the double, not NumPy
    np.testing.assert_allclose(np.asarray(got.cpu()), np.asarray(expected), rtol=1e-5, atol=1e-6)


DTYPE_CASES = {
    "index_put_accumulate": lambda x, i: x.clone().index_put_((i,), x[: i.shape[0]], accumulate=True),
    "scatter_add": lambda x, i: x.clone().scatter_add_(0, i[:, None].expand(-1, x.shape[1]), x[: i.shape[0]]),
    "gather": lambda x, i: openreg.gather(x, 0, i[:, None].expand(-1, x.shape[1])),
    "add": lambda x, i: x + x,
    "sum": lambda x, i: x.sum(0),
    "abs": lambda x, i: x.abs(),
}
DTYPES = [openreg.bool, openreg.uint8, openreg.int8, openreg.int16, openreg.int32, openreg.int64,
          openreg.float16, openreg.bfloat16, openreg.float32, openreg.float64, openreg.complex64]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_dtypes_on_cuda_driver_match_cpu(cuda_device, name, dtype):
    fn = DTYPE_CASES[name]
    if dtype is openreg.complex64:
        x = openreg.tensor(np.arange(12).reshape(4, 3) * (1 + 1j), dtype=dtype)
    else:
        x = _x(dtype, (4, 3), 0, 5)
    i = openreg.tensor([0, 2, 0, 3], dtype=openreg.int64)
    try:
        expected = fn(x, i)
    except (RuntimeError, TypeError) as exc:
        with pytest.raises(type(exc)):
            fn(x.to(cuda_device), i.to(cuda_device))
        return
    got = fn(x.to(cuda_device), i.to(cuda_device))
    assert got.dtype is expected.dtype
    if name == "sum" and dtype in (openreg.float32, openreg.float64):
        # a float sum's rounding depends on its summation order, which is each device's own (the CPU sums over
        # leading dims through BLAS, CuPy in its reduction kernel's order)
        np.testing.assert_allclose(np.asarray(got.cpu()), np.asarray(expected), rtol=2e-7 if dtype is openreg.float32
                                   else 1e-15)
        return
    np.testing.assert_array_equal(np.asarray(got.cpu().to(openreg.float64) if dtype is openreg.bfloat16 else got.cpu()),
                                  np.asarray(expected.to(openreg.float64) if dtype is openreg.bfloat16 else expected))


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"])
def test_narrow_floats_keep_raw_bits_on_cuda_driver(cuda_device, name):
    """CuPy has no bfloat16/float8: the cuda driver stores their raw bits (uint16/uint8) and converts per call;
    values and bits match the CPU's ml_dtypes storage."""
    d = getattr(openreg, name)
    x = openreg.tensor([[1.0, -2.5, 300.0], [0.1, 1e-3, -7.0]])
    expected = x.to(d)
    got = x.to(cuda_device).to(d)
    assert got._array().dtype == d.raw_numpy                     # raw bits on the device
    assert type(got._array()).__module__ == "cupy_double.strict"
    np.testing.assert_array_equal(got.cpu().numpy().view(d.raw_numpy), expected.numpy().view(d.raw_numpy))
    np.testing.assert_array_equal(got.float().cpu().numpy(), expected.float().numpy())
    np.testing.assert_array_equal(x.to(d).to(cuda_device).float().cpu().numpy(), expected.float().numpy())  # h2d
    small = openreg.tensor([[1, 2, 3]], dtype=openreg.uint8)          # uint8 values, not float8 bits
    assert small.to(cuda_device).to(d).float().cpu().tolist() == [[1.0, 2.0, 3.0]]
    assert openreg.empty(1, 3, dtype=d, device=cuda_device).copy_(small).float().cpu().tolist() == [[1.0, 2.0, 3.0]]
    same = (got * got) if name != "bfloat16" else (got + got)
    ref = (expected * expected) if name != "bfloat16" else (expected + expected)
    np.testing.assert_array_equal(same.cpu().numpy().view(d.raw_numpy), ref.numpy().view(d.raw_numpy))
