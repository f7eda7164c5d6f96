"""The whole-layer recurrent op ``mkldnn_rnn_layer`` (LSTM and GRU) and its backward: values and gradients
against the per-step path of fused cells (``rnn_layer_steps``) and PyTorch, gradchecks in reverse and forward
mode, second order, the modules running on it, and its argument checks."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
from openreg.autograd import gradcheck, gradgradcheck
from openreg.operators.rnn_layer import GRU_MODE, LSTM_MODE, rnn_layer_steps

aten = openreg.ops.aten
GATES = {LSTM_MODE: 4, GRU_MODE: 3}


def _args(seed, mode, dev, dtype=openreg.float64, steps=4, batch=3, inp=5, hidden=3, batch_first=False, grad=True):
    rng = np.random.default_rng(seed)
    g = GATES[mode] * hidden
    shapes = [(batch, steps, inp) if batch_first else (steps, batch, inp), (g, inp), (g, hidden), (g,), (g,),
              (batch, hidden), (batch, hidden)]
    return [openreg.tensor(rng.uniform(-1, 1, s), dtype=dtype, device=dev, requires_grad=grad) for s in shapes]


def _layer(mode, bias, reverse, batch_first, train):
    def f(x, w0, w1, b0, b1, h0, c0):
        out = aten.mkldnn_rnn_layer(x, w0, w1, b0 if bias else w0, b1 if bias else w1, h0, c0, reverse, [], mode,
                                    w1.shape[1], 1, bias, False, batch_first, train)
        return out[:3] if mode == LSTM_MODE else out[:2]
    return f


def _steps(mode, bias, reverse, batch_first):
    def f(x, w0, w1, b0, b1, h0, c0):
        if batch_first:
            x = x.transpose(0, 1)
        out, h, c = rnn_layer_steps(mode, x, w0, w1, b0 if bias else None, b1 if bias else None, h0,
                                    c0 if mode == LSTM_MODE else None, reverse)
        if batch_first:
            out = out.transpose(0, 1)
        return (out, h, c) if mode == LSTM_MODE else (out, h)
    return f


def _grads(outs, inputs):
    loss = sum((o * (k + 1.5)).sin().sum() for k, o in enumerate(outs))
    return openreg.autograd.grad(loss, inputs, allow_unused=True)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("mode", [LSTM_MODE, GRU_MODE])
@pytest.mark.parametrize(("bias", "reverse", "batch_first", "train"),
                         [(True, False, False, True), (False, True, False, True), (True, True, True, False),
                          (False, False, True, False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_the_per_step_path(dev, mode, bias, reverse, batch_first, train, dtype):
    dt = getattr(openreg, dtype)
    tol = 1e-6 if dtype == "float32" else 1e-14
    args = _args(1, mode, dev, dt, batch_first=batch_first)
    got = _layer(mode, bias, reverse, batch_first, train)(*args)
    ref = _steps(mode, bias, reverse, batch_first)(*args)
    for a, b in zip(got, ref):
        assert a.device == openreg.device(dev) and a.dtype == dt
        # the same array operations as the per-step ops (the recurrent GEMM on a contiguous copy of W_hh^T)
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(), rtol=tol, atol=tol)
    used = args if bias else args[:3] + args[5:]
    if mode == GRU_MODE:
        used = [t for t in used if t is not args[6]]
    tol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(_grads(got, used), _grads(ref, used)):
        np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=tol, atol=tol)


def _weighted_sum(outs, seed):
    rng = np.random.default_rng(seed)
    return sum((o * openreg.tensor(rng.uniform(-1, 1, tuple(o.shape)), dtype=o.dtype, device=o.device)).sum()
               for o in outs)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("mode", [LSTM_MODE, GRU_MODE])
@pytest.mark.parametrize(("bias", "reverse", "batch_first", "train"),
                         [(True, False, False, True), (False, True, False, True), (True, True, True, False),
                          (False, False, True, False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7, 5, 6, 8), (10, 8, 32, 32), (3, 1, 1, 1), (23, 3, 5, 7)])
def test_layer_is_bitwise_the_per_step_path(dev, mode, bias, reverse, batch_first, train, dtype, shape):
    # the layer op runs the per-step ops' array operations (GEMM operand layouts, summation orders), so outputs
    # and every gradient are bitwise equal to them (they round as PyTorch's per-step CPU LSTM/GRU); a different
    # layout (e.g. h @ W_hh^T on a contiguous copy of W_hh^T, or one GEMM over all steps for W_hh's gradient)
    # rounds differently, and an optimizer amplifies the difference step by step
    steps, batch, inp, hidden = shape
    args = _args(9, mode, dev, getattr(openreg, dtype), steps, batch, inp, hidden, batch_first)
    got = _layer(mode, bias, reverse, batch_first, train)(*args)
    ref = _steps(mode, bias, reverse, batch_first)(*args)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    used = [t for k, t in enumerate(args) if (bias or k not in (3, 4)) and (mode == LSTM_MODE or k != 6)]
    g_got = openreg.autograd.grad(_weighted_sum(got, 10), used)
    g_ref = openreg.autograd.grad(_weighted_sum(ref, 10), used)
    for k, (a, b) in enumerate(zip(g_got, g_ref)):
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy(), err_msg=f"gradient {k}")


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_modules_are_bitwise_the_per_step_path(name, monkeypatch):
    # nn.LSTM / nn.GRU (2 layers, bidirectional, the final states used) on the layer op vs on the per-step ops
    from openreg.nn.modules import rnn

    def per_step(self, x, state, names, reverse):
        mode = LSTM_MODE if self.mode == "LSTM" else GRU_MODE
        w = [getattr(self, n) for n in names]
        h0, c0 = state if mode == LSTM_MODE else (state, None)
        out, h, c = rnn_layer_steps(mode, x, w[0], w[1], w[2], w[3], h0, c0, reverse)
        return out, ((h, c) if mode == LSTM_MODE else h)

    def run():
        openreg.manual_seed(11)
        m = getattr(openreg.nn, name)(6, 8, num_layers=2, bidirectional=True)
        x = openreg.randn(9, 4, 6, requires_grad=True)
        out, hn = m(x)
        loss = _weighted_sum([out] + (list(hn) if name == "LSTM" else [hn]), 12)
        return [out] + list(openreg.autograd.grad(loss, [x, *m.parameters()]))
    got = run()
    monkeypatch.setattr(rnn.RNNBase, "_run_direction", per_step)
    ref = run()
    for k, (a, b) in enumerate(zip(got, ref)):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy(), err_msg=f"result {k}")


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("mode", [LSTM_MODE, GRU_MODE])
@pytest.mark.parametrize(("bias", "reverse", "batch_first", "train"),
                         [(True, False, False, True), (False, True, True, True), (True, True, False, False)])
def test_layer_gradcheck(dev, mode, bias, reverse, batch_first, train):
    args = _args(2, mode, dev, steps=3, batch=2, inp=2, hidden=2, batch_first=batch_first)
    f = _layer(mode, bias, reverse, batch_first, train)
    assert gradcheck(f, args, check_forward_ad=True)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("mode", [LSTM_MODE, GRU_MODE])
def test_layer_gradgradcheck(dev, mode):
    args = _args(3, mode, dev, steps=3, batch=2, inp=2, hidden=2)
    assert gradgradcheck(_layer(mode, True, True, False, True), args)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_modules_run_on_the_layer_op_and_differentiate_twice(dev, name):
    m = getattr(openreg.nn, name)(2, 2, num_layers=2, bidirectional=True, dtype=openreg.float64).to(dev)
    x = _args(4, LSTM_MODE, dev, steps=3, batch=2, inp=2)[0]
    out = m(x)[0]
    names, stack, seen = set(), [out.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names.add(n.name())
        stack.extend(f for f, _ in n.next_functions)
    assert "MkldnnRnnLayerBackward0" in names
    assert not names & {"ThnnFusedLstmCellBackward0", "ThnnFusedGruCellBackward0"}
    assert gradgradcheck(lambda x: m(x)[0], (x,))


def test_half_precision_modules_keep_the_per_step_path():
    m = openreg.nn.LSTM(3, 4).to(openreg.bfloat16)
    out, _ = m(openreg.randn(5, 2, 3, dtype=openreg.bfloat16, requires_grad=True))
    assert out.dtype == openreg.bfloat16
    assert out.grad_fn.name() != "MkldnnRnnLayerBackward0"


@pytest.mark.parametrize("dev", DEVICES)
def test_lstm_layer_matches_pytorch_mkldnn_rnn_layer(dev):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    args = _args(5, LSTM_MODE, dev, openreg.float32)      # PyTorch's oneDNN layer has no float64
    targs = [torch.tensor(a.detach().cpu().numpy(), requires_grad=True) for a in args]
    tail = (False, [], LSTM_MODE, 3, 1, True, False, False, True)
    got = aten.mkldnn_rnn_layer(*args, *tail)
    ref = torch.ops.aten.mkldnn_rnn_layer(*targs, *tail)
    for a, b in zip(got[:3], ref[:3]):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(_grads(got[:3], args), _grads_torch(torch, ref[:3], targs)):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


def _grads_torch(torch, outs, inputs):
    loss = sum((o * (k + 1.5)).sin().sum() for k, o in enumerate(outs))
    return torch.autograd.grad(loss, inputs)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_modules_match_pytorch_batch_first_without_bias(name):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    t_rnn = getattr(torch.nn, name)(3, 4, num_layers=2, bias=False, batch_first=True).double()
    o_rnn = getattr(openreg.nn, name)(3, 4, num_layers=2, bias=False, batch_first=True, dtype=openreg.float64)
    o_rnn.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in t_rnn.state_dict().items()})
    x = np.random.default_rng(6).standard_normal((2, 5, 3))
    tx, ox = torch.tensor(x, requires_grad=True), openreg.tensor(x, requires_grad=True)
    (t_out, t_h), (o_out, o_h) = t_rnn(tx), o_rnn(ox)
    t_h, o_h = (t_h if name == "GRU" else t_h[1]), (o_h if name == "GRU" else o_h[1])
    ((t_out ** 2).sum() + t_h.sum()).backward()
    ((o_out ** 2).sum() + o_h.sum()).backward()
    np.testing.assert_allclose(o_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (pname, tp), op in zip(t_rnn.named_parameters(), o_rnn.parameters()):
        np.testing.assert_allclose(op.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=pname)


def test_backward_op_and_meta_shapes():
    x, w0, w1, b0, b1, h0, c0 = _args(7, LSTM_MODE, "cpu", grad=False)
    tail = (False, [], LSTM_MODE, 3, 1, True, False, False, True)
    out, hy, cy, ws = aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, h0, c0, *tail)
    assert tuple(ws.shape) == (4 * 3 * 15,)
    grads = aten.mkldnn_rnn_layer_backward(x, w0, w1, b0, b1, h0, c0, out, hy, cy, openreg.ones_like(out), None,
                                           None, False, LSTM_MODE, 3, 1, True, True, False, [], False, ws)
    assert [tuple(g.shape) for g in grads] == [(4, 3, 5), (12, 5), (12, 3), (12,), (12,), (3, 3), (3, 3)]
    meta = [openreg.empty(t.shape, device="meta") for t in (x, w0, w1, b0, b1, h0, c0)]
    shapes = [tuple(t.shape) for t in aten.mkldnn_rnn_layer(*meta, *tail)]
    assert shapes == [(4, 3, 3), (3, 3), (3, 3), (4 * 3 * 15,)]
    _, _, cy, ws = aten.mkldnn_rnn_layer(x, w0[:9], w1[:9], b0[:9], b1[:9], h0, c0, False, [], GRU_MODE, 3, 1, True,
                                         False, False, False)
    assert tuple(cy.shape) == (0,) and tuple(ws.shape) == (0,)


def test_bad_arguments_raise():
    x, w0, w1, b0, b1, h0, c0 = _args(8, LSTM_MODE, "cpu", grad=False)
    with pytest.raises(NotImplementedError, match="RNN_TANH"):
        aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, h0, c0, False, [], 1, 3, 1, True, False, False, True)
    with pytest.raises(NotImplementedError, match="packed"):
        aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, h0, c0, False, [3, 3], 2, 3, 1, True, False, False, True)
    with pytest.raises(RuntimeError, match="weight1"):
        aten.mkldnn_rnn_layer(x, w0, w1[:, :2], b0, b1, h0, c0, False, [], 2, 3, 1, True, False, False, True)
    with pytest.raises(RuntimeError, match="cx_"):
        aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, h0, c0[:2], False, [], 2, 3, 1, True, False, False, True)
    with pytest.raises(RuntimeError, match="dtype"):
        aten.mkldnn_rnn_layer(x, w0.float(), w1, b0, b1, h0, c0, False, [], 2, 3, 1, True, False, False, True)
    out, hy, cy, ws = aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, h0, c0, False, [], 2, 3, 1, True, False, False, False)
    with pytest.raises(RuntimeError, match="workspace"):
        aten.mkldnn_rnn_layer_backward(x, w0, w1, b0, b1, h0, c0, out, hy, cy, out, None, None, False, 2, 3, 1, True,
                                       False, False, [], False, ws)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_bias_gradients_do_not_share_memory(dev, name):
    # LSTM's two biases get one gradient; each .grad must be its own tensor, or an in-place update of one (e.g.
    # clip_grad_norm_'s scaling, which scales every .grad once) changes the other too
    m = getattr(openreg.nn, name)(3, 4, num_layers=2).to(dev)
    m(openreg.randn(5, 2, 3, device=dev))[0].sum().backward()
    want = {n: p.grad.clone() for n, p in m.named_parameters()}
    for n, p in m.named_parameters():
        p.grad.mul_(0.5)
    for n, p in m.named_parameters():
        np.testing.assert_array_equal(p.grad.cpu().numpy(), (want[n] * 0.5).cpu().numpy(), err_msg=n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("has_hy", "has_cy"), [(True, True), (True, False), (False, True)])
def test_lstm_cell_arrays_same_values_in_both_layouts(dtype, has_hy, has_cy):
    # the layer op runs the LSTM cell's pointwise code on gate-major (4, B, H) blocks, the fused cell op on
    # (B, 4H) rows: the results must be bitwise the same
    from openreg.operators.recurrent import lstm_cell_arrays, lstm_cell_backward_arrays
    rng = np.random.default_rng(13)
    batch, hidden = 5, 7
    rows = rng.uniform(-3, 3, (batch, 4 * hidden)).astype(dtype)
    cx = rng.uniform(-1, 1, (batch, hidden)).astype(dtype)
    hy, cy, ws = lstm_cell_arrays(np, rows.copy(), cx)
    block = np.ascontiguousarray(rows.reshape(batch, 4, hidden).transpose(1, 0, 2))
    out = (np.empty_like(cx), np.empty_like(cx))
    hy_gm, cy_gm, ws_gm = lstm_cell_arrays(np, block, cx, out=out)
    assert hy_gm is out[0] and cy_gm is out[1]
    np.testing.assert_array_equal(hy_gm, hy)
    np.testing.assert_array_equal(cy_gm, cy)
    np.testing.assert_array_equal(ws_gm.transpose(1, 0, 2).reshape(batch, 4 * hidden), ws)
    grad_hy = rng.uniform(-1, 1, cx.shape).astype(dtype) if has_hy else None
    grad_cy = rng.uniform(-1, 1, cx.shape).astype(dtype) if has_cy else None
    grads, grad_cx = lstm_cell_backward_arrays(np, grad_hy, grad_cy, cx, cy, ws)
    grads_gm, grad_cx_gm = lstm_cell_backward_arrays(np, grad_hy, grad_cy, cx, cy, ws_gm)
    np.testing.assert_array_equal(grads_gm.transpose(1, 0, 2).reshape(batch, 4 * hidden), grads)
    np.testing.assert_array_equal(grad_cx_gm, grad_cx)
    np.testing.assert_array_equal(np.signbit(grad_cx_gm), np.signbit(grad_cx))       # zeros' signs too
