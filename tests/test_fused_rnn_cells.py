"""The fused recurrent cells (_thnn_fused_lstm_cell, _thnn_fused_gru_cell) and their backward ops: against
a NumPy reference and PyTorch, gradchecks (also second order through the differentiable backward), and
nn.LSTM/GRU/LSTMCell/GRUCell running on them."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg

aten = openreg.ops.aten


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _lstm_ref(ig, hg, cx, ib=None, hb=None):
    gates = ig + hg + (0 if ib is None else ib + hb)
    i, f, g, o = np.split(gates, 4, axis=1)
    c = _sig(f) * cx + _sig(i) * np.tanh(g)
    return _sig(o) * np.tanh(c), c, np.concatenate([_sig(i), _sig(f), np.tanh(g), _sig(o)], 1)


def _gru_ref(ig, hg, hx, ib=None, hb=None):
    if ib is not None:
        ig, hg = ig + ib, hg + hb
    ir, iz, i_n = np.split(ig, 3, axis=1)
    hr, hz, hn = np.split(hg, 3, axis=1)
    r, z = _sig(ir + hr), _sig(iz + hz)
    n = np.tanh(i_n + r * hn)
    return n + z * (hx - n), np.concatenate([r, z, n, hx, hn], 1)


def _arrays(seed, batch, width, hidden, bias):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((batch, width)), rng.standard_normal((batch, width)), rng.standard_normal((batch, hidden))]
    return arrs + ([rng.standard_normal(width), rng.standard_normal(width)] if bias else [None, None])


def _t(a, dev, grad=False):
    if a is None:
        return None
    t = openreg.tensor(a, dtype=openreg.float64).to(dev)
    return t.requires_grad_() if grad else t


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("bias", [False, True])
def test_fused_cells_forward_match_numpy(dev, bias):
    a = _arrays(1, 4, 12, 3, bias)
    hy, cy, ws = aten._thnn_fused_lstm_cell(*(_t(x, dev) for x in a))
    for got, ref in zip((hy, cy, ws), _lstm_ref(*a)):
        assert got.device == openreg.device(dev)
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-13, atol=1e-14)
    a = _arrays(2, 4, 9, 3, bias)
    hy, ws = aten._thnn_fused_gru_cell(*(_t(x, dev) for x in a))
    for got, ref in zip((hy, ws), _gru_ref(*a)):
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("bias", [False, True])
def test_fused_cells_gradcheck_and_gradgradcheck(dev, bias):
    a = [_t(x, dev, grad=True) for x in _arrays(3, 2, 8, 2, bias)]
    lstm = lambda *xs: aten._thnn_fused_lstm_cell(*xs)[:2]
    inputs = tuple(x for x in a if x is not None)
    wrap = (lambda f: (lambda *xs: f(*xs, None, None))) if not bias else (lambda f: f)
    assert openreg.autograd.gradcheck(wrap(lstm), inputs, eps=1e-6, atol=1e-8, rtol=1e-6)
    assert openreg.autograd.gradgradcheck(wrap(lstm), inputs)
    g = [_t(x, dev, grad=True) for x in _arrays(4, 2, 6, 2, bias)]
    gru = lambda *xs: aten._thnn_fused_gru_cell(*xs)[0]
    inputs = tuple(x for x in g if x is not None)
    assert openreg.autograd.gradcheck(wrap(gru), inputs, eps=1e-6, atol=1e-8, rtol=1e-6)
    assert openreg.autograd.gradgradcheck(wrap(gru), inputs)


def test_backward_ops_match_pytorch():
    """PyTorch has the fused cells on CUDA only; its ``_thnn_differentiable_*_backward`` composites give the
    same gradients on the CPU, so the fused backward ops and openreg's composites are both checked against them."""
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    ig, hg, cx, ib, hb = _arrays(5, 3, 8, 2, True)
    gh, gc = np.random.default_rng(6).standard_normal((2, 3, 2))
    T = [torch.tensor(x) for x in (ig, hg, cx, ib, hb)]
    O = [openreg.tensor(x, dtype=openreg.float64) for x in (ig, hg, cx, ib, hb)]
    _, cy, ws = aten._thnn_fused_lstm_cell(*O)
    for grads in ((gh, gc), (gh, None), (None, gc)):
        tg = [None if g is None else torch.tensor(g) for g in grads]
        og = [None if g is None else openreg.tensor(g) for g in grads]
        ref = torch.ops.aten._thnn_differentiable_lstm_cell_backward(*tg, T[0], T[1], T[3], T[4], T[2],
                                                                     torch.tensor(cy.numpy()))
        fused = aten._thnn_fused_lstm_cell_backward(*og, O[2], cy, ws, True)
        composite = aten._thnn_differentiable_lstm_cell_backward(*og, O[0], O[1], O[3], O[4], O[2], cy)
        for a, c, b in zip(fused, composite, ref):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(c.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    ig, hg, hx, ib, hb = _arrays(7, 3, 6, 2, True)
    T = [torch.tensor(x) for x in (ig, hg, hx, ib, hb)]
    O = [openreg.tensor(x, dtype=openreg.float64) for x in (ig, hg, hx, ib, hb)]
    _, ws = aten._thnn_fused_gru_cell(*O)
    ref = torch.ops.aten._thnn_differentiable_gru_cell_backward(torch.tensor(gh), T[0], T[1], T[2], T[3], T[4])
    fused = aten._thnn_fused_gru_cell_backward(openreg.tensor(gh), ws, True)
    composite = aten._thnn_differentiable_gru_cell_backward(openreg.tensor(gh), O[0], O[1], O[2], O[3], O[4])
    for a, c, b in zip(fused, composite, ref):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(c.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


def test_bad_shapes_raise():
    with pytest.raises(RuntimeError, match="hidden_gates"):
        aten._thnn_fused_lstm_cell(openreg.zeros(2, 8), openreg.zeros(2, 4), openreg.zeros(2, 2))
    with pytest.raises(RuntimeError, match="cx"):
        aten._thnn_fused_lstm_cell(openreg.zeros(2, 8), openreg.zeros(2, 8), openreg.zeros(2, 3))
    with pytest.raises(RuntimeError, match="hx"):
        aten._thnn_fused_gru_cell(openreg.zeros(2, 6), openreg.zeros(2, 6), openreg.zeros(3, 2))
    with pytest.raises(RuntimeError, match="workspace"):
        aten._thnn_fused_gru_cell_backward(openreg.zeros(2, 2), openreg.zeros(2, 9), False)
    with pytest.raises(RuntimeError, match="grad_hy"):
        aten._thnn_fused_lstm_cell_backward_impl(openreg.zeros(2, 3), None, openreg.zeros(2, 2), openreg.zeros(2, 2),
                                                 openreg.zeros(2, 8), False)
    meta = aten._thnn_fused_lstm_cell(*(openreg.empty(2, 8, device="meta"),) * 2, openreg.empty(2, 2, device="meta"))
    assert [tuple(t.shape) for t in meta] == [(2, 2), (2, 2), (2, 8)]


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("dev", DEVICES)
def test_modules_match_pytorch_and_run_on_the_fused_cells(mode, dev):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    t_rnn = getattr(torch.nn, mode)(4, 5, num_layers=2, bidirectional=True).double()
    o_rnn = getattr(openreg.nn, mode)(4, 5, num_layers=2, bidirectional=True, dtype=openreg.float64)
    o_rnn.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in t_rnn.state_dict().items()})
    o_rnn = o_rnn.to(dev)
    x = np.random.default_rng(8).standard_normal((6, 3, 4))
    tx, ox = torch.tensor(x, requires_grad=True), openreg.tensor(x).to(dev).requires_grad_()
    t_out, _ = t_rnn(tx)
    o_out, _ = o_rnn(ox)
    (t_out ** 2).sum().backward()
    (o_out ** 2).sum().backward()
    np.testing.assert_allclose(o_out.detach().cpu().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ox.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, tp), op in zip(t_rnn.named_parameters(), o_rnn.parameters()):
        np.testing.assert_allclose(op.grad.cpu().numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    node = o_out.grad_fn
    seen = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        stack.extend(f for f, _ in n.next_functions)
        if n.name() in ("ThnnFusedLstmCellBackward0", "ThnnFusedGruCellBackward0", "MkldnnRnnLayerBackward0"):
            break
    else:
        pytest.fail("the module's graph has no fused cell node")


@pytest.mark.parametrize("dev", DEVICES)
def test_cells_match_pytorch(dev):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for name in ("LSTMCell", "GRUCell"):
        t_cell = getattr(torch.nn, name)(3, 4).double()
        o_cell = getattr(openreg.nn, name)(3, 4, dtype=openreg.float64)
        o_cell.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in t_cell.state_dict().items()})
        o_cell = o_cell.to(dev)
        x = np.random.default_rng(9).standard_normal((2, 3))
        tx, ox = torch.tensor(x, requires_grad=True), openreg.tensor(x).to(dev).requires_grad_()
        t_res, o_res = t_cell(tx), o_cell(ox)
        t_res, o_res = (t_res if isinstance(t_res, tuple) else (t_res,)), (o_res if isinstance(o_res, tuple) else (o_res,))
        sum(r.sum() for r in t_res).backward()
        sum_o = o_res[0].sum()
        for r in o_res[1:]:
            sum_o = sum_o + r.sum()
        sum_o.backward()
        for a, b in zip(o_res, t_res):
            np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(ox.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        for p, q in zip(o_cell.parameters(), t_cell.parameters()):
            np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)
