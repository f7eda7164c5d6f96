"""A whole recurrent layer (one direction) as one operator: ``mkldnn_rnn_layer`` and its backward.

PyTorch's CPU ``nn.LSTM`` runs each layer and direction as one ``mkldnn_rnn_layer`` call; openreg does the same
for ``nn.LSTM`` and ``nn.GRU``, so a layer costs one dispatcher call and one autograd node instead of a GEMM and
a fused cell op per time step. The kernel runs the time loop on arrays: the input projection of all steps as
one GEMM, then per step one GEMM for ``h W_hh^T`` and the fused cells' gate math (``recurrent.py``'s array
code, or the device's raw cell kernels; LSTM gates gate-major, ``(4, B, H)`` per step, so each gate is a
contiguous array). Forward and backward make the array operations of the per-step ops (GEMM operand layouts,
summation orders), so outputs and gradients are bitwise those of ``rnn_layer_steps``, which rounds as
PyTorch's per-step CPU LSTM/GRU does. With ``train=True`` the workspace keeps what the backward needs (1-d, ``T*B*5H`` values:
LSTM the activated gates ``i, f, g, o`` of each step ``(T, 4, B, H)`` then ``c_t`` ``(T, B, H)``; GRU the GRU
cell's workspace of each step ``(T, B, 5H)``); with ``train=False`` it is empty and the backward recomputes it.
The backward runs backpropagation through time on arrays (per step the fused cell backward and one GEMM for the
hidden state's gradient); ``W_hh``'s gradient is the sum of the steps' products, last step first, as autograd
over the per-step ops adds them; ``W_ih``'s is one GEMM over all steps, as the per-step path's one ``addmm``. When the backward itself is
recorded (``create_graph=True``), the layer is recomputed step by step with the differentiable cell ops
(``rnn_layer_steps``, what ``nn.LSTM``/``nn.GRU`` ran before) and differentiated through them.

``mode`` is PyTorch's RNN mode number: 2 (LSTM) or 3 (GRU; an openreg extension: PyTorch's oneDNN layer is
LSTM-only); the RNN modes 0/1 are not supported. ``cx_`` is ignored by GRU (its ``cy`` output is empty);
without biases (``has_biases=False``) ``weight2``/``weight3`` are ignored. ``batch_sizes`` must be empty
(packed sequences are run by the modules as padded groups).

>>> import openreg
>>> T, B, I, H = 5, 2, 3, 4
>>> x, h0, c0 = openreg.randn(T, B, I), openreg.zeros(B, H), openreg.zeros(B, H)
>>> w_ih, w_hh, b = openreg.randn(4 * H, I), openreg.randn(4 * H, H), openreg.zeros(4 * H)
>>> out, hy, cy, ws = openreg.ops.aten.mkldnn_rnn_layer(x, w_ih, w_hh, b, b, h0, c0, False, [], 2, H, 1, True,
...                                                     False, False, True)
>>> tuple(out.shape), tuple(hy.shape), tuple(ws.shape), bool((out[-1] == hy).all())
((5, 2, 4), (2, 4), (200,), True)
"""
from __future__ import annotations

import numpy as np

from .._dispatch.ops import A
from ..aten.meta_rules import fmt_shape
from ._multi_grad import once
from ._nn_arrays import like, store, values, xp_of
from ._record import Deriv, Op, register
from .reduction import host_sum
from .recurrent import (
    _gru_tangents,
    _lstm_tangents,
    check_operands,
    gru_backward_constants,
    gru_cell_arrays,
    gru_cell_backward_arrays,
    lstm_backward_constants,
    lstm_cell_backward_gate_major,
    lstm_cell_gate_major,
)

LSTM_MODE, GRU_MODE = 2, 3
_GATES = {LSTM_MODE: 4, GRU_MODE: 3}
_OP = "mkldnn_rnn_layer"


def _check(input, weight0, weight1, weight2, weight3, hx, cx, batch_sizes, mode, hidden_size, has_biases,
           batch_first) -> tuple[int, int]:
    """PyTorch-style argument checks; returns ``(steps, batch)``."""
    if mode not in _GATES:
        kind = {0: "RNN_RELU", 1: "RNN_TANH"}.get(mode, str(mode))
        raise NotImplementedError(f"{_OP}: mode {mode} ({kind}) is not supported by openreg; only 2 (LSTM) and "
                                  f"3 (GRU)")
    if len(batch_sizes):
        raise NotImplementedError(f"{_OP}: packed input (non-empty batch_sizes) is not supported; pass a padded "
                                  f"input")
    if input.dim() != 3:
        raise RuntimeError(f"{_OP}: Expected input to have 3 dimensions, but got {input.dim()}")
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"{_OP}: expected a floating input, but got {input._dtype}")
    steps, batch = (input._size[1], input._size[0]) if batch_first else (input._size[0], input._size[1])
    gates = _GATES[mode] * hidden_size
    want = [("weight0", weight0, (gates, input._size[2])), ("weight1", weight1, (gates, hidden_size)),
            ("hx_", hx, (batch, hidden_size))]
    if has_biases:
        want += [("weight2", weight2, (gates,)), ("weight3", weight3, (gates,))]
    if mode == LSTM_MODE:
        want.append(("cx_", cx, (batch, hidden_size)))
    check_operands(_OP, input, want)
    return steps, batch


def _time_major(xp, x, batch_first):
    """``(T, B, F)`` contiguous array of an input given as ``(T, B, F)`` or ``(B, T, F)``."""
    return xp.ascontiguousarray(x.transpose(1, 0, 2) if batch_first else x)


def rnn_layer_arrays(xp, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, mode, raw=None):
    """The forward time loop on arrays: ``x`` ``(T, B, I)`` time-major; returns ``(output, hy, cy, workspace)``
    (``cy`` None for GRU). The array operations of the per-step ops (``rnn_layer_steps``), so the values are
    bitwise theirs: the input projection ``x W_ih^T (+ b)`` as one GEMM on the transposed view of ``W_ih``
    (``addmm``/``mm`` with ``weight.t()``), per step the recurrent product (LSTM: ``(W_hh h^T)^T``, the per-step
    path's ``mm(W_hh, h.t()).t()``, which OpenBLAS runs ~1.8x faster than ``h @ W_hh^T`` at (16, 64) x (64,
    256); GRU: ``h W_hh^T`` on the transposed view of ``W_hh``; a contiguous copy of ``W_hh^T`` would round
    differently), then the fused cell's pointwise code (LSTM: on gate-major ``(4, B, H)`` blocks, each gate
    contiguous; pointwise results do not depend on the layout)."""
    steps, batch = x.shape[0], x.shape[1]
    hidden = w_hh.shape[1]
    lstm = mode == LSTM_MODE
    if lstm and b_ih is not None:
        b_ih, b_hh = b_ih + b_hh, None          # the hidden bias only adds to the pre-activation: one input bias
    gi = xp.matmul(x.reshape(steps * batch, x.shape[2]), w_ih.T)
    if b_ih is not None:
        gi += b_ih
    gi = gi.reshape(steps, batch, gi.shape[1])
    out = xp.empty((steps, batch, hidden), dtype=gi.dtype)
    ws_flat = xp.empty(steps * batch * 5 * hidden, dtype=gi.dtype)
    gates_all, c_all = _split_workspace(ws_flat, steps, batch, hidden, mode)
    h, c = h0, c0
    w_hh_t = w_hh.T
    if lstm:        # the per-step views, gate-major: gi[t] and h W_hh^T as (4, B, H)
        gi_gm = gi.reshape(steps, batch, 4, hidden).transpose(0, 2, 1, 3)
        hg_t = xp.empty((4 * hidden, batch), dtype=gi.dtype)      # (h W_hh^T)^T = W_hh h^T
        hg_gm = hg_t.reshape(4, hidden, batch).transpose(0, 2, 1)
        gi_steps, ws_steps, out_steps, c_steps = list(gi_gm), list(gates_all), list(out), list(c_all)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        if lstm:
            if raw:
                res = raw.lstm_cell_forward(gi[t], xp.matmul(w_hh, h.T).T, c, None, None)
                if res is not None:
                    h, c, ws = res
                    gates_all[t] = ws.reshape(batch, 4, hidden).transpose(1, 0, 2)
                    c_all[t] = c
                    out[t] = h
                    continue
            xp.matmul(w_hh, h.T, out=hg_t)
            # the pre-activation straight into the workspace, which the cell turns into the gates; h and c
            # straight into the output and the workspace
            h, c, _ = lstm_cell_gate_major(xp, xp.add(gi_steps[t], hg_gm, out=ws_steps[t]), c, out_steps[t],
                                           c_steps[t])
            continue
        hg = xp.matmul(h, w_hh_t)
        if b_hh is not None:
            hg = hg + b_hh
        res = raw.gru_cell_forward(gi[t], hg, h, None, None) if raw else None
        if res is None:
            h = gru_cell_arrays(xp, gi[t], hg, h, out=(out[t], gates_all[t]))[0]
            continue
        h, gates_all[t] = res
        out[t] = h
    # copies: the final states may be views of ``out`` and the workspace (or the initial states when there are no
    # steps), and results must not share memory
    return out, h.copy(), (c.copy() if lstm else None), ws_flat


def _split_workspace(ws, steps, batch, hidden, mode):
    """Views of a flat workspace (array or tensor): LSTM ``(gates (T, 4, B, H), c (T, B, H))`` (gate-major),
    GRU ``(cell workspaces (T, B, 5H), None)``; every step's block is contiguous."""
    if mode != LSTM_MODE:
        return ws.reshape(steps, batch, 5 * hidden), None
    n = steps * batch * 4 * hidden
    return ws[:n].reshape(steps, 4, batch, hidden), ws[n:].reshape(steps, batch, hidden)


def _gate_rows(xp, block):
    """A gate-major ``(4, B, H)`` block as the fused cells' ``(B, 4H)`` layout (a copy)."""
    return xp.ascontiguousarray(block.transpose(1, 0, 2)).reshape(block.shape[1], 4 * block.shape[2])


def _weight_grad(xp, grad, inp, weight):
    """The gradient of ``weight`` ``(G, K)`` of ``inp @ weight.t()`` from the product's gradient ``grad``, in the
    operand layout ``mm``'s backward uses for the transposed view (``grad^T @ inp``; ``(inp^T @ grad)^T`` when
    ``weight.t()`` is not a transposed layout, e.g. ``K == 1``), so the rounding is the per-step ops'."""
    item = weight.itemsize
    if weight.ndim == 2 and weight.strides[1] == item and weight.strides[0] != item:
        return xp.matmul(grad.T, inp)
    return xp.matmul(inp.T, grad).T


_CHUNK = 1 << 21        # elements of the per-step weight-gradient products computed at once


def _sum_steps(xp, parts, reverse):
    """``parts`` ``(T, ...)`` summed over the steps in the order the backward visits them (the last step
    processed first), one addition after the other: a reduction over the leading axis of a contiguous array in
    that order."""
    return xp.add.reduce(parts if reverse else xp.ascontiguousarray(parts[::-1]), axis=0)


def _batch_sums(xp, grads):
    """``grads`` ``(rows, gates)``, or ``(T, rows, gates)`` per step, summed over the rows as the per-step ops' bias
    gradients are (the ``sum`` operator's reduction, BLAS's rounding on the host), so the rounding is theirs."""
    if xp is not np:
        return grads.sum(axis=grads.ndim - 2)
    if grads.ndim == 2:
        return host_sum(grads, (0,), grads.dtype)
    return np.stack([host_sum(g, (0,), grads.dtype) for g in grads]) if len(grads) else grads.sum(axis=1)


def _recurrent_weight_grad(xp, grads, out, h0, weight, reverse):
    """``W_hh``'s gradient: the sum of every step's ``grad_t^T @ h_(t-1)`` (the ``mm`` backward of that step, in
    its operand layout, see ``_weight_grad``), added in the order the engine runs the per-step ops' backward
    (the last step processed first), so the rounding is theirs. The products come from batched GEMMs (one BLAS
    call per step, as the per-step ops make) over chunks of steps, each chunk summed by one sequential
    reduction over its leading axis, written in the order of the sum (``_sum_steps``)."""
    steps = grads.shape[0]
    rows, cols = weight.shape
    if steps == 0:
        return xp.zeros((rows, cols), dtype=out.dtype)
    item = weight.itemsize
    transposed = weight.strides[1] == item and weight.strides[0] != item
    prev = xp.empty_like(out)
    if reverse:
        prev[:-1] = out[1:]
        prev[-1] = h0
    else:
        prev[1:] = out[:-1]
        prev[0] = h0
    if not reverse:              # the sum's order: the last step first
        grads, prev = grads[::-1], prev[::-1]
    per = max(1, min(steps, _CHUNK // (rows * cols)))
    buf = xp.empty((per + 1, rows, cols), dtype=out.dtype)
    acc = None
    for lo in range(0, steps, per):
        hi = min(steps, lo + per)
        dst = buf[1:hi - lo + 1]
        if transposed:
            xp.matmul(grads[lo:hi].transpose(0, 2, 1), prev[lo:hi], out=dst)
        else:
            dst[...] = xp.matmul(prev[lo:hi].transpose(0, 2, 1), grads[lo:hi]).transpose(0, 2, 1)
        if hi == steps and not h0.flags.c_contiguous:       # the step from h0 (the last one): h0's own layout
            dst[-1] = _weight_grad(xp, grads[-1], h0, weight)
        if acc is None:
            acc = xp.add.reduce(dst, axis=0)
        else:
            buf[0] = acc
            acc = xp.add.reduce(buf[:hi - lo + 1], axis=0)
    return acc


def rnn_layer_backward_arrays(xp, x, w_ih, w_hh, h0, c0, out, ws_flat, grad_out, grad_hy, grad_cy, reverse, mode,
                              has_biases, raw=None):
    """Backpropagation through time on arrays; returns ``(grad_x, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh,
    grad_h0, grad_c0)`` (biases None without ``has_biases``, ``grad_c0`` None for GRU). The array operations and
    summation orders of autograd over the per-step ops (``rnn_layer_steps``), so the values are bitwise theirs:
    per step the fused cell's backward and ``grad_gates @ W_hh``; a state's gradient is the sum of its parts in
    the order they reach it (GRU: ``(output's + cell's) + GEMM's``); ``W_hh``'s (GRU: and ``b_hh``'s) gradient
    the sum of the steps' parts, last step first (``_recurrent_weight_grad``); the input GEMM's gradients over
    all steps at once, as the per-step path's one ``addmm``."""
    steps, batch, hidden = out.shape[0], out.shape[1], out.shape[2]
    lstm = mode == LSTM_MODE
    gates = (4 if lstm else 3) * hidden
    gates_all, c_all = _split_workspace(ws_flat, steps, batch, hidden, mode)
    grad_in = xp.empty((steps, batch, gates), dtype=out.dtype)
    grad_hid_all = grad_in if lstm else xp.empty_like(grad_in)     # the hidden GEMM's output gradients
    grad_in_gm = grad_in.reshape(steps, batch, 4, hidden).transpose(0, 2, 1, 3) if lstm else None
    dh, dc = grad_hy, (grad_cy if lstm else None)
    dh_gemm = None                  # GRU: the recurrent GEMM's part of the next state gradient (added last)
    last = steps - 1 if reverse else 0          # the step processed last (from h0, c0)
    consts = None
    buf = xp.empty((4, batch, hidden), dtype=out.dtype) if lstm else None
    for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
        if grad_out is not None:
            dh = grad_out[t] if dh is None else xp.add(grad_out[t], dh, out=None if dh is grad_hy else dh)
        if lstm:
            if dh is None and dc is None:       # no gradient reaches this step (nor the earlier ones)
                grad_in[t] = 0
                continue
            c_prev = c0 if t == last else c_all[t + 1 if reverse else t - 1]
            ws = gates_all[t]
            res = raw.lstm_cell_backward(dh, dc, c_prev, c_all[t], _gate_rows(xp, ws)) if raw else None
            if res is not None:
                grad_in[t], dc = res
            else:
                if consts is None:          # the gradient-independent factors of every step, at once
                    consts = list(zip(*lstm_backward_constants(xp, gates_all, c_all)))
                grad_gates, dc = lstm_cell_backward_gate_major(xp, dh, dc, c_prev, c_all[t], ws, consts[t], buf)
                grad_in_gm[t] = grad_gates
            dh = xp.matmul(grad_in[t], w_hh)
        else:
            if dh_gemm is not None:
                dh = dh_gemm if dh is None else dh + dh_gemm
            if dh is None:
                dh = xp.zeros((batch, hidden), dtype=out.dtype)
            res = raw.gru_cell_backward(dh, gates_all[t]) if raw else None
            if res is not None:
                grad_in[t], grad_hid_all[t], dh = res
            else:
                if consts is None:          # the gradient-independent factors of every step, at once
                    consts = gru_backward_constants(xp, gates_all)
                dh = gru_cell_backward_arrays(xp, dh, gates_all[t], tuple(k[t] for k in consts),
                                              (grad_in[t], grad_hid_all[t]))[2]
            dh_gemm = xp.matmul(grad_hid_all[t], w_hh)
    if dh_gemm is not None:
        dh = dh + dh_gemm
    flat_in = grad_in.reshape(steps * batch, gates)
    x2d = x.reshape(steps * batch, x.shape[2])
    grad_x = xp.matmul(flat_in, w_ih).reshape(x.shape)
    grad_w_ih = _weight_grad(xp, flat_in, x2d, w_ih)
    grad_w_hh = _recurrent_weight_grad(xp, grad_hid_all, out, h0, w_hh, reverse)
    grad_b_ih = grad_b_hh = None
    if has_biases:
        grad_b_ih = _batch_sums(xp, flat_in)
        if lstm:
            # one pre-activation bias, one gradient; b_hh gets a copy: the two results must not share memory
            # (each becomes a .grad, and an in-place update of one, e.g. clip_grad_norm_'s scaling, would hit both)
            grad_b_hh = grad_b_ih.copy()
        else:           # each step's addmm bias gradient (a sum over the batch), summed last step first
            grad_b_hh = _sum_steps(xp, _batch_sums(xp, grad_hid_all), reverse)
    if dh is None:
        dh = xp.zeros((batch, hidden), dtype=out.dtype)
    if lstm and dc is None:
        dc = xp.zeros((batch, hidden), dtype=out.dtype)
    return grad_x, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh, dh, dc


# -- the kernels ---------------------------------------------------------------------------------------------
def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode, hidden_size,
                     num_layers, has_biases, bidirectional, batch_first, train, *, raw=None):
    """``mkldnn_rnn_layer`` (``raw``: the device's raw-kernel module, or None for the array code)."""
    _check(input, weight0, weight1, weight2, weight3, hx_, cx_, batch_sizes, mode, hidden_size, has_biases,
           batch_first)
    xp, ref = xp_of(input), input
    x = _time_major(xp, values(input), batch_first)
    b_ih, b_hh = (values(weight2, ref), values(weight3, ref)) if has_biases else (None, None)
    lstm = mode == LSTM_MODE
    out, hy, cy, ws = rnn_layer_arrays(xp, x, values(weight0, ref), values(weight1, ref), b_ih, b_hh,
                                       values(hx_, ref), values(cx_, ref) if lstm else None, reverse, mode, raw)
    dt, dev = input._dtype, input.device
    if batch_first:
        out = out.transpose(1, 0, 2)
    empty = xp.empty((0,), dtype=out.dtype)
    return (store(xp.ascontiguousarray(out), dt, dev), store(hy, dt, dev), store(cy if lstm else empty, dt, dev),
            store(ws if train else empty, dt, dev))


def _meta_mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode,
                           hidden_size, num_layers, has_biases, bidirectional, batch_first, train):
    steps, batch = _check(input, weight0, weight1, weight2, weight3, hx_, cx_, batch_sizes, mode, hidden_size,
                          has_biases, batch_first)
    out = (batch, steps, hidden_size) if batch_first else (steps, batch, hidden_size)
    return (like(input, out), like(input, (batch, hidden_size)),
            like(input, (batch, hidden_size) if mode == LSTM_MODE else (0,)),
            like(input, (steps * batch * 5 * hidden_size,) if train else (0,)))


def mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output, hy_, cy_, grad_output,
                              grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases, train,
                              bidirectional, batch_sizes, batch_first, workspace, *, raw=None):
    """``mkldnn_rnn_layer_backward``: the gradients of input, the two weights, the two biases, ``hx_`` and
    ``cx_`` (None for the biases without ``has_biases`` and for ``cx_`` of a GRU)."""
    steps, batch = _check(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, batch_sizes, mode, hidden_size,
                          has_biases, batch_first)
    if tuple(workspace._size) != (steps * batch * 5 * hidden_size,):
        raise RuntimeError(f"{_OP}_backward: Expected workspace to have size "
                           f"{fmt_shape((steps * batch * 5 * hidden_size,))} (the forward's with train=True), but got "
                           f"{fmt_shape(workspace._size)}")
    xp, ref = xp_of(input), input
    lstm = mode == LSTM_MODE

    def arr(t):
        return None if t is None else _time_major(xp, values(t, ref), batch_first) if t.dim() == 3 \
            else values(t, ref)
    grads = rnn_layer_backward_arrays(
        xp, arr(input), values(weight1, ref), values(weight2, ref), values(hx_, ref),
        values(cx_tmp, ref) if lstm else None, arr(output), values(workspace, ref), arr(grad_output), arr(grad_hy),
        arr(grad_cy) if lstm else None, reverse, mode, has_biases, raw)
    dt, dev = input._dtype, input.device
    grad_x = grads[0].transpose(1, 0, 2) if batch_first else grads[0]
    return tuple(None if g is None else store(xp.ascontiguousarray(g), dt, dev) for g in (grad_x,) + grads[1:])


def _meta_mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output, hy_, cy_,
                                    grad_output, grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases,
                                    train, bidirectional, batch_sizes, batch_first, workspace):
    _check(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, batch_sizes, mode, hidden_size, has_biases,
           batch_first)
    bias = like(weight1, (weight1._size[0],)) if has_biases else None
    return (like(input, input._size), like(weight1, weight1._size), like(weight2, weight2._size), bias, bias,
            like(hx_, hx_._size), like(hx_, hx_._size) if mode == LSTM_MODE else None)


# -- the per-step path (differentiable again) -----------------------------------------------------------------
def rnn_layer_steps(mode: int, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse: bool):
    """One layer and direction over ``x`` ``(T, B, F)`` with differentiable ops: the input projection as one
    GEMM, then per step ``mm`` + the fused cell op (LSTM: ``mm(W_hh, h.t()).t()``, GRU: ``h @ W_hh.t()``).
    Returns ``(output (T, B, H), h_n, c_n or None)``."""
    from ..nn import functional as F
    steps, batch = x.size(0), x.size(1)
    lstm = mode == LSTM_MODE
    if lstm and b_ih is not None:
        b_ih, b_hh = b_ih + b_hh, None
    gi_all = F.linear(x.reshape(steps * batch, x.size(2)), w_ih, b_ih)
    gi_steps = gi_all.reshape(steps, batch, gi_all.size(1)).unbind(0)
    outputs = [None] * steps
    w_hh_t = w_hh.t()
    h, c = h0, c0
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        if lstm:
            h, c, _ = A._thnn_fused_lstm_cell(gi_steps[t], A.mm(w_hh, h.t()).t(), c)
        else:
            hg = A.mm(h, w_hh_t) if b_hh is None else A.addmm(b_hh, h, w_hh_t)
            h = A._thnn_fused_gru_cell(gi_steps[t], hg, h)[0]
        outputs[t] = h
    if steps == 0:
        from .factories import empty
        return empty(0, batch, w_hh.size(1), dtype=x.dtype, device=x.device), h, c
    return A.stack(outputs, 0), h, c


# -- derivatives ---------------------------------------------------------------------------------------------
_INPUTS = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")


def _workspace(a):
    """The forward's workspace, recomputed when the forward ran with ``train=False``."""
    ws = a.result[3]
    if ws.numel() or a.input.numel() == 0:
        return ws
    return A.mkldnn_rnn_layer(a.input, a.weight0, a.weight1, a.weight2, a.weight3, a.hx_, a.cx_, a.reverse, [],
                              a.mode, a.hidden_size, a.num_layers, a.has_biases, a.bidirectional, a.batch_first,
                              True)[3]


def _layer_grads(g, a):
    from ..autograd.grad_mode import is_grad_enabled
    lstm = a.mode == LSTM_MODE
    if is_grad_enabled():
        return _differentiable_layer_backward(g, a)
    if g[0] is None and g[1] is None and (not lstm or g[2] is None):
        return (None,) * 7
    r = a.result
    return A.mkldnn_rnn_layer_backward(a.input, a.weight0, a.weight1, a.weight2, a.weight3, a.hx_, a.cx_, r[0], r[1],
                                       r[2], g[0], g[1], g[2] if lstm else None, a.reverse, a.mode, a.hidden_size,
                                       a.num_layers, a.has_biases, a.train, a.bidirectional, [], a.batch_first,
                                       _workspace(a))


def _differentiable_layer_backward(g, a):
    """The gradients as a differentiable graph: the layer recomputed through ``rnn_layer_steps`` from the
    saved inputs, then differentiated with ``create_graph=True``."""
    from ..autograd import grad
    from ..autograd.grad_mode import enable_grad
    lstm = a.mode == LSTM_MODE
    ins = [getattr(a, n) for n in _INPUTS]
    if not a.has_biases:
        ins[3] = ins[4] = None
    if not lstm:
        ins[6] = None
    with enable_grad():
        x = ins[0].transpose(0, 1) if a.batch_first else ins[0]
        out, hy, cy = rnn_layer_steps(a.mode, x, ins[1], ins[2], ins[3], ins[4], ins[5], ins[6], a.reverse)
        if a.batch_first:
            out = out.transpose(0, 1)
        pairs = [(o, go) for o, go in zip((out, hy, cy), g[:3]) if o is not None and go is not None]
        wanted = [i for i, t in enumerate(ins) if t is not None and t.requires_grad]
        if not pairs or not wanted:
            return (None,) * 7
        got = grad([o for o, _ in pairs], [ins[i] for i in wanted], [go for _, go in pairs], create_graph=True,
                   allow_unused=True)
    res = [None] * 7
    for i, gi in zip(wanted, got):
        res[i] = gi
    return tuple(res)


def _needed(a):
    lstm = a.mode == LSTM_MODE
    return [getattr(a, n) is not None and getattr(a, n).requires_grad and (n != "cx_" or lstm)
            and (n not in ("weight2", "weight3") or a.has_biases) for n in _INPUTS]


def _grad(which: int):
    return lambda g, a: once(g, a, _layer_grads, which, _needed)


class _Step:
    """One step's saved values in the shape of the fused cells' formula arguments (``a.result``, ``a.cx``)."""

    __slots__ = ("cx", "result")

    def __init__(self, result, cx=None) -> None:
        self.result, self.cx = result, cx


def _layer_tangents(a, d_in=None, d_hid=None, d_h0=None, d_c0=None):
    """``[d output, d hy, d cy, None]`` from tangents of the input-gate pre-activations ``d_in`` ``(T, B, G)``,
    of the hidden-gate pre-activations ``d_hid`` (``(T, B, G)`` or ``(G,)``) and of the initial states: the
    linearised recurrence, step by step with the fused cells' forward-mode formulas."""
    lstm = a.mode == LSTM_MODE
    out = a.result[0]
    if a.batch_first:
        out = out.transpose(0, 1)
    steps, hidden = out.size(0), a.hidden_size
    gates_all, c_all = _split_workspace(_workspace(a), steps, out.size(1), hidden, a.mode)
    w_hh_t = a.weight1.t()
    d_h, d_c = d_h0, d_c0
    c = a.cx_
    d_outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if a.reverse else range(steps)):
        hid = None if d_h is None else A.mm(d_h, w_hh_t)
        if d_hid is not None:
            part = d_hid[t] if d_hid.dim() == 3 else d_hid.unsqueeze(0)
            hid = part if hid is None else hid + part
        ws = gates_all[t]
        if lstm:
            ws = ws.permute(1, 0, 2).reshape(ws.size(1), 4 * hidden)       # the fused cell's (B, 4H) layout
            d_gates = hid if d_in is None else (d_in[t] if hid is None else d_in[t] + hid)
            c_t = c_all[t]
            d_h, d_c, _ = _lstm_tangents(_Step([None, c_t, ws], c), d_gates=d_gates, d_cx=d_c)
            c = c_t
        else:
            d_h = _gru_tangents(_Step([None, ws]), d_input=None if d_in is None else d_in[t], d_hidden=hid,
                                d_hx=d_h)[0]
        if d_h is None:
            d_h = A.zeros_like(a.hx_)
        d_outs[t] = d_h
    if steps == 0:
        d_out = A.zeros_like(a.result[0])
    else:
        d_out = A.stack(d_outs, 0)
        if a.batch_first:
            d_out = d_out.transpose(0, 1)
    if d_h is None:
        d_h = A.zeros_like(a.hx_)
    if lstm and d_c is None:
        d_c = A.zeros_like(a.cx_)
    return [d_out, d_h, d_c if lstm else None, None]


def _time_major_t(a, t):
    return t.transpose(0, 1) if a.batch_first else t


def _jvp_input(t, a):
    x = _time_major_t(a, t)
    return _layer_tangents(a, d_in=A.matmul(x, a.weight0.t()))


def _jvp_weight0(t, a):
    return _layer_tangents(a, d_in=A.matmul(_time_major_t(a, a.input), t.t()))


def _jvp_weight1(t, a):
    out = a.result[0]
    out = out.transpose(0, 1) if a.batch_first else out
    steps = out.size(0)
    if steps == 0:
        return _layer_tangents(a)
    prev = A.cat([out[1:], a.hx_.unsqueeze(0)], 0) if a.reverse else A.cat([a.hx_.unsqueeze(0), out[:-1]], 0)
    return _layer_tangents(a, d_hid=A.matmul(prev, t.t()))


def _jvp_bias(hidden: bool):
    def jvp(t, a):
        if not a.has_biases:
            return None
        if hidden and a.mode != LSTM_MODE:
            return _layer_tangents(a, d_hid=t)
        return _layer_tangents(a, d_in=t.expand(a.result[0].size(0) if not a.batch_first else a.result[0].size(1),
                                                a.hx_.size(0), t.size(0)))
    return jvp


def _jvp_cx(t, a):
    return _layer_tangents(a, d_c0=t) if a.mode == LSTM_MODE else None


_JVP = {"input": _jvp_input, "weight0": _jvp_weight0, "weight1": _jvp_weight1, "weight2": _jvp_bias(False),
        "weight3": _jvp_bias(True), "hx_": lambda t, a: _layer_tangents(a, d_h0=t), "cx_": _jvp_cx}


# -- records ------------------------------------------------------------------------------------------------
_DEVICE = "openreg.backends.privateuseone.device_ops"

mkldnn_rnn_layer_record = Op(
    "mkldnn_rnn_layer",
    """
    mkldnn_rnn_layer(Tensor input, Tensor weight0, Tensor weight1, Tensor weight2, Tensor weight3, Tensor hx_, Tensor cx_, bool reverse, int[] batch_sizes, int mode, int hidden_size, int num_layers, bool has_biases, bool bidirectional, bool batch_first, bool train) -> (Tensor, Tensor, Tensor, Tensor)
    """,
    kernels={"mkldnn_rnn_layer": {"Backend": mkldnn_rnn_layer, "Meta": _meta_mkldnn_rnn_layer,
                                  "PrivateUse1": f"{_DEVICE}:mkldnn_rnn_layer"}},
    derivatives={"mkldnn_rnn_layer": Deriv(
        save="input weight0 weight1 weight2 weight3 hx_ cx_ reverse mode hidden_size num_layers has_biases "
             "bidirectional batch_first train result",
        name="MkldnnRnnLayerBackward0", jvp=_JVP,
        **{n: _grad(i) for i, n in enumerate(_INPUTS)})},
    function=True, method=False,
    doc="""One LSTM (``mode`` 2) or GRU (``mode`` 3) layer direction over a whole sequence: ``(output, hy, cy,
    workspace)``, as PyTorch's CPU ``nn.LSTM`` runs it.

    >>> import openreg
    >>> x, h0 = openreg.randn(3, 1, 2), openreg.zeros(1, 2)
    >>> w_ih, w_hh, b = openreg.randn(8, 2), openreg.randn(8, 2), openreg.zeros(8)
    >>> out, hy, cy, _ = openreg.mkldnn_rnn_layer(x, w_ih, w_hh, b, b, h0, h0, False, [], 2, 2, 1, True, False,
    ...                                           False, True)
    >>> tuple(out.shape), (out[-1] == hy).all().item()
    ((3, 1, 2), True)
    """,
)

mkldnn_rnn_layer_backward_record = Op(
    "mkldnn_rnn_layer_backward",
    """
    mkldnn_rnn_layer_backward(Tensor input, Tensor weight1, Tensor weight2, Tensor weight3, Tensor weight4, Tensor hx_, Tensor cx_tmp, Tensor output, Tensor hy_, Tensor cy_, Tensor? grad_output, Tensor? grad_hy, Tensor? grad_cy, bool reverse, int mode, int hidden_size, int num_layers, bool has_biases, bool train, bool bidirectional, int[] batch_sizes, bool batch_first, Tensor workspace) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)
    """,
    kernels={"mkldnn_rnn_layer_backward": {"Backend": mkldnn_rnn_layer_backward,
                                           "Meta": _meta_mkldnn_rnn_layer_backward,
                                           "PrivateUse1": f"{_DEVICE}:mkldnn_rnn_layer_backward"}},
    function=False, method=False,
)

register(mkldnn_rnn_layer_record, mkldnn_rnn_layer_backward_record)
