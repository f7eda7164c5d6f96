"""Fused recurrent cells: ``_thnn_fused_lstm_cell`` and ``_thnn_fused_gru_cell`` with their backward ops.

Each cell takes the input and hidden projections of one time step (``x W_ih^T`` and ``h W_hh^T``, biases
optional) and does all of the gate math in one kernel, keeping the activated gates in a ``workspace`` for its
backward, as PyTorch's CUDA kernels do; the device's own kernels run the pointwise math in the raw CUDA
kernels of ``cuda_kernels/rnn_cells.cu`` (float32/float64; the cuda driver, or the emulated one with
``OPENREG_EMULATE_KERNELS=1``). Gate order is PyTorch's: LSTM ``i, f, g, o`` with
``c' = f*c + i*g``, ``h' = o*tanh(c')``; GRU ``r, z, n`` with ``n = tanh(x_n + r*(h_n + b_hn))`` and
``h' = (1-z)*n + z*h`` (workspace ``[r, z, n, h, h_n + b_hn]``). The gradient uses the fused backward op, or,
when the backward itself is recorded (``create_graph=True``), the ``_thnn_differentiable_*`` composites
written with tensor ops.

>>> import openreg
>>> gates = openreg.zeros(1, 4)
>>> h, c, ws = openreg.ops.aten._thnn_fused_lstm_cell(gates, gates, openreg.ones(1, 1))
>>> c.tolist(), round(h.item(), 4), ws.shape
([[0.5]], 0.2311, openreg.Size([1, 4]))
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import fmt_shape
from ._multi_grad import once
from ._nn_arrays import like, store, values, xp_of
from ._record import Deriv, Op, register


def check_operands(op: str, ref, wanted) -> None:
    """PyTorch's size, dtype and device checks of a recurrent op's operands: each ``(name, tensor or None,
    shape)`` of ``wanted`` has that shape and ``ref``'s dtype and device."""
    for name, t, shape in wanted:
        if t is None:
            continue
        if tuple(t._size) != shape:
            raise RuntimeError(f"{op}: Expected {name} to have size {fmt_shape(shape)}, but got {fmt_shape(t._size)}")
        if t._dtype is not ref._dtype:
            raise RuntimeError(f"{op}: expected {name} to have dtype {ref._dtype}, but got {t._dtype}")
        if t._storage.device != ref._storage.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{ref.device} and {t.device}!")


def _check_cell(op: str, input_gates, hidden_gates, state, input_bias, hidden_bias, gates: int) -> int:
    """PyTorch's ``checkSizes`` of the fused cells; returns the hidden size."""
    if input_gates.dim() != 2:
        raise RuntimeError(f"{op}: Expected input_gates to have 2 dimensions, but got {input_gates.dim()}")
    if input_gates._size[1] % gates:
        raise RuntimeError(f"{op}: input_gates.size(1) ({input_gates._size[1]}) must be divisible by {gates}")
    hidden = input_gates._size[1] // gates
    check_operands(op, input_gates, (
        ("hidden_gates", hidden_gates, tuple(input_gates._size)), ("input_bias", input_bias, (gates * hidden,)),
        ("hidden_bias", hidden_bias, (gates * hidden,)),
        ("cx" if gates == 4 else "hx", state, (input_gates._size[0], hidden))))
    if (input_bias is None) != (hidden_bias is None):
        raise RuntimeError(f"{op}: input_bias and hidden_bias must both be given or both be None")
    return hidden


def _check_cell_backward(op: str, workspace, slots: int, states) -> None:
    """The backward ops' checks: a floating ``(B, slots*H)`` workspace and ``(B, H)`` states and gradients of its
    dtype and device (``states``: ``(name, tensor or None)``)."""
    if workspace.dim() != 2 or workspace._size[1] % slots or not workspace._dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected workspace to be a 2-d floating tensor whose size(1) is divisible by "
                           f"{slots}, but got {fmt_shape(workspace._size)} {workspace._dtype}")
    shape = (workspace._size[0], workspace._size[1] // slots)
    check_operands(op, workspace, [(name, t, shape) for name, t in states])


def _sigmoid_(xp, x):
    """``sigmoid(x)`` in place, as ``0.5 * tanh(0.5 x) + 0.5``: one tanh, no overflow warning for large |x|."""
    x *= 0.5
    xp.tanh(x, out=x)
    x *= 0.5
    x += 0.5
    return x


def _pre_activation(input_gates, hidden_gates, input_bias, hidden_bias):
    xp = xp_of(input_gates)
    gates = values(input_gates) + values(hidden_gates, input_gates)      # a new array: the kernel may overwrite it
    if input_bias is not None:
        gates = gates + (values(input_bias, input_gates) + values(hidden_bias, input_gates))
    return xp, gates


# -- LSTM ----------------------------------------------------------------------------------------------------
def lstm_gates(block, hidden: int):
    """Views ``i, f, g, o`` of a gate block: ``(B, 4H)`` (the fused cell's layout) or gate-major ``(4, B, H)``
    (``mkldnn_rnn_layer``'s: each gate contiguous, so the pointwise ops below run on contiguous arrays)."""
    if block.ndim == 3:
        return block[0], block[1], block[2], block[3]
    return tuple(block[:, k * hidden:(k + 1) * hidden] for k in range(4))


def lstm_cell_arrays(xp, gates, cx, out=None):
    """``(hy, cy, workspace)`` from the pre-activation gates ``(B, 4H)`` or ``(4, B, H)`` (overwritten: it
    becomes the workspace): the pointwise part of a step. ``out``: arrays ``(hy, cy)`` to write into. The same
    values in either layout."""
    if gates.ndim == 3 and out is not None:
        return lstm_cell_gate_major(xp, gates, cx, *out)
    hidden = cx.shape[-1]
    g = xp.tanh(lstm_gates(gates, hidden)[2])
    ws = _sigmoid_(xp, gates)
    i, f, g_slot, o = lstm_gates(ws, hidden)
    g_slot[...] = g
    hy, cy = out if out is not None else (None, None)
    cy = xp.multiply(f, cx, out=cy)
    cy += i * g
    hy = xp.tanh(cy, out=hy)
    hy *= o
    return hy, cy, ws


def lstm_cell_gate_major(xp, ws, cx, hy, cy):
    """``lstm_cell_arrays`` on a gate-major ``(4, B, H)`` block into ``hy``/``cy``: the same operations per
    element (``i * g`` as ``g * i``), fewer calls and temporaries."""
    g = xp.tanh(ws[2])
    _sigmoid_(xp, ws)
    ws[2] = g
    xp.multiply(ws[1], cx, out=cy)
    g *= ws[0]
    cy += g
    xp.tanh(cy, out=hy)
    hy *= ws[3]
    return hy, cy, ws


def lstm_cell_backward_arrays(xp, grad_hy, grad_cy, cx, cy, ws):
    """``(grad_gates (B, 4H) or (4, B, H) as ws, grad_cx)``; ``grad_hy``/``grad_cy`` may be None (no gradient).
    Each gate's gradient is a product evaluated left to right (``grad_i = grad_c * g * i * (1 - i)``, ...): the
    same values in either layout (gate-major computes each gate in place in its contiguous slot)."""
    if ws.ndim == 3:
        return lstm_cell_backward_gate_major(xp, grad_hy, grad_cy, cx, cy, ws)
    hidden = cx.shape[-1]
    i, f, g, o = lstm_gates(ws, hidden)
    tanh_cy = xp.tanh(cy)
    grad_c = xp.zeros_like(cy) if grad_cy is None else grad_cy.copy()
    grad_gates = xp.empty_like(ws)
    grad_i, grad_f, grad_g, grad_o = lstm_gates(grad_gates, hidden)
    if grad_hy is not None:
        grad_c += grad_hy * o * (1 - tanh_cy * tanh_cy)
        grad_o[...] = grad_hy * tanh_cy * o * (1 - o)
    else:
        grad_o[...] = 0
    grad_i[...] = grad_c * g * i * (1 - i)
    grad_f[...] = grad_c * cx * f * (1 - f)
    grad_g[...] = grad_c * i * (1 - g * g)
    return grad_gates, grad_c * f


def lstm_backward_constants(xp, ws, cy):
    """The factors of the LSTM cell's backward that do not depend on the incoming gradients, for gate-major
    workspaces ``ws`` ``(..., 4, B, H)`` and cell states ``cy`` ``(..., B, H)`` of any number of steps at once:
    ``(tanh(cy), 1 - tanh(cy)^2, 1 - ws, 1 - g^2)`` (``lstm_cell_backward_gate_major``'s ``consts``)."""
    tanh_cy = xp.tanh(cy)
    d_tanh = tanh_cy * tanh_cy
    xp.subtract(1, d_tanh, out=d_tanh)
    d_g = ws[..., 2, :, :] * ws[..., 2, :, :]
    xp.subtract(1, d_g, out=d_g)
    return tanh_cy, d_tanh, 1 - ws, d_g


def lstm_cell_backward_gate_major(xp, grad_hy, grad_cy, cx, cy, ws, consts=None, out=None):
    """``lstm_cell_backward_arrays`` for a gate-major ``(4, B, H)`` workspace: the same operations in the same
    order per element, fewer passes (``1 - gate`` of all gates at once, each product in place in its slot).
    ``consts``: this step's ``lstm_backward_constants`` (computed for all steps of a layer at once); ``out``: a
    ``(4, B, H)`` array for the gate gradients."""
    i, f, g, o = ws
    grad_gates = xp.empty_like(ws) if out is None else out
    grad_i, grad_f, grad_g, grad_o = grad_gates
    tanh_cy, d_tanh, one_minus, d_g = consts if consts is not None else lstm_backward_constants(xp, ws, cy)
    if grad_hy is not None:
        grad_c = grad_hy * o
        grad_c *= d_tanh
        grad_c += 0 if grad_cy is None else grad_cy         # (0 or grad_cy) + grad_hy * o * (1 - tanh(cy)^2)
        xp.multiply(grad_hy, tanh_cy, out=grad_o)
        grad_o *= o
        grad_o *= one_minus[3]
    else:
        grad_c = xp.zeros_like(cy) if grad_cy is None else grad_cy.copy()
        grad_o[...] = 0
    xp.multiply(grad_c, g, out=grad_i)
    grad_i *= i
    grad_i *= one_minus[0]
    xp.multiply(grad_c, cx, out=grad_f)
    grad_f *= f
    grad_f *= one_minus[1]
    xp.multiply(grad_c, i, out=grad_g)
    grad_g *= d_g
    grad_c *= f
    return grad_gates, grad_c


def fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None, *, raw=None):
    """``_thnn_fused_lstm_cell``; ``raw``: the device's raw-kernel module, or None for the array code (the
    device's own kernel passes it, see ``backends/privateuseone/device_ops.py``)."""
    _check_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates, cx, input_bias, hidden_bias, 4)
    res = raw.lstm_cell_forward(*(None if t is None else values(t, input_gates)
                                  for t in (input_gates, hidden_gates, cx, input_bias, hidden_bias))) if raw else None
    if res is not None:
        hy, cy, ws = res
    else:
        xp, gates = _pre_activation(input_gates, hidden_gates, input_bias, hidden_bias)
        hy, cy, ws = lstm_cell_arrays(xp, gates, values(cx, input_gates))
    dt, dev = input_gates._dtype, input_gates.device
    return store(hy, dt, dev), store(cy, dt, dev), store(ws, dt, dev)


def _meta_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    _check_cell("_thnn_fused_lstm_cell", input_gates, hidden_gates, cx, input_bias, hidden_bias, 4)
    return like(cx, cx._size), like(cx, cx._size), like(input_gates, input_gates._size)


def fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias, *, raw=None):
    """``_thnn_fused_lstm_cell_backward_impl`` (``raw`` as in ``fused_lstm_cell``)."""
    _check_cell_backward("_thnn_fused_lstm_cell_backward_impl", workspace, 4,
                         (("grad_hy", grad_hy), ("grad_cy", grad_cy), ("cx", cx), ("cy", cy)))
    if grad_hy is None and grad_cy is None:
        return None, None, None
    ref = workspace
    gh = None if grad_hy is None else values(grad_hy, ref)
    gc = None if grad_cy is None else values(grad_cy, ref)
    xp = xp_of(ref)
    res = raw.lstm_cell_backward(gh, gc, values(cx, ref), values(cy, ref), values(ref)) if raw else None
    grad_gates, grad_cx = res if res is not None else lstm_cell_backward_arrays(xp, gh, gc, values(cx, ref),
                                                                                values(cy, ref), values(ref))
    dt, dev = ref._dtype, ref.device
    grad_bias = store(grad_gates.sum(axis=0), dt, dev) if has_bias else None
    return store(grad_gates, dt, dev), store(grad_cx, dt, dev), grad_bias


def _meta_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    _check_cell_backward("_thnn_fused_lstm_cell_backward_impl", workspace, 4,
                         (("grad_hy", grad_hy), ("grad_cy", grad_cy), ("cx", cx), ("cy", cy)))
    if grad_hy is None and grad_cy is None:
        return None, None, None
    return (like(workspace, workspace._size), like(cx, cx._size),
            like(workspace, (workspace._size[1],)) if has_bias else None)


def _fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    grad_gates, grad_cx, grad_bias = A._thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace,
                                                                           has_bias)
    return grad_gates, grad_gates, grad_cx, grad_bias, grad_bias


def _differentiable_lstm_cell_backward(grad_hy, grad_cy, input_gates, hidden_gates, input_bias, hidden_bias, cx, cy):
    """The LSTM cell's gradient written with tensor ops (differentiable again)."""
    gates = input_gates + hidden_gates
    if input_bias is not None:
        gates = gates + input_bias
    if hidden_bias is not None:
        gates = gates + hidden_bias
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    tanh_cy = cy.tanh()
    grad_c = A.zeros_like(cy) if grad_cy is None else grad_cy
    grad_o = A.zeros_like(cy)
    if grad_hy is not None:
        grad_c = grad_c + grad_hy * o * (1 - tanh_cy * tanh_cy)
        grad_o = grad_hy * tanh_cy * o * (1 - o)
    grad_gates = A.cat([grad_c * g * i * (1 - i), grad_c * cx * f * (1 - f), grad_c * i * (1 - g * g), grad_o], 1)
    grad_bias = grad_gates.sum(0) if input_bias is not None else None
    return grad_gates, grad_gates, grad_c * f, grad_bias, grad_bias


def _lstm_cell_grads(g, a):
    from ..autograd.grad_mode import is_grad_enabled
    result = a.result
    if is_grad_enabled():
        return A._thnn_differentiable_lstm_cell_backward(g[0], g[1], a.input_gates, a.hidden_gates, a.input_bias,
                                                          a.hidden_bias, a.cx, result[1])
    grad_gates, grad_cx, grad_bias = A._thnn_fused_lstm_cell_backward_impl(g[0], g[1], a.cx, result[1], result[2],
                                                                           a.input_bias is not None)
    return grad_gates, grad_gates, grad_cx, grad_bias, grad_bias


def _lstm_tangents(a, d_gates=None, d_cx=None):
    """``[d hy, d cy, None]`` from a tangent of the pre-activation gates and/or of ``cx`` (forward AD)."""
    ws, cy = a.result[2], a.result[1]
    i, f, g, o = ws.chunk(4, 1)
    d_c = 0
    d_o = None
    if d_gates is not None:
        d_i, d_f, d_g, d_o = d_gates.chunk(4, 1)
        d_c = d_f * f * (1 - f) * a.cx + d_i * i * (1 - i) * g + i * (1 - g * g) * d_g
        d_o = d_o * o * (1 - o)
    if d_cx is not None:
        d_c = d_c + f * d_cx
    tanh_c = cy.tanh()
    d_h = o * (1 - tanh_c * tanh_c) * d_c
    if d_o is not None:
        d_h = d_h + d_o * tanh_c
    return [d_h, d_c if not isinstance(d_c, int) else A.zeros_like(cy), None]


_LSTM_JVP = {"input_gates": lambda t, a: _lstm_tangents(a, d_gates=t),
             "hidden_gates": lambda t, a: _lstm_tangents(a, d_gates=t),
             "input_bias": lambda t, a: _lstm_tangents(a, d_gates=t.unsqueeze(0)),
             "hidden_bias": lambda t, a: _lstm_tangents(a, d_gates=t.unsqueeze(0)),
             "cx": lambda t, a: _lstm_tangents(a, d_cx=t)}


def _lstm_grad(which: int):
    return lambda g, a: once(g, a, _lstm_cell_grads, which, _cell_inputs_needing_grad("cx"))


# -- GRU ----------------------------------------------------------------------------------------------------
def gru_cell_arrays(xp, input_gates, hidden_gates, hx, out=None):
    """``(hy, workspace)``: ``input_gates``/``hidden_gates`` ``(B, 3H)`` with their biases already added.
    ``out``: arrays ``(hy (B, H), workspace (B, 5H))`` to write into."""
    hidden = hx.shape[-1]
    hy, ws = out if out is not None else (None, xp.empty((hx.shape[0], 5 * hidden), dtype=input_gates.dtype))
    rz = _sigmoid_(xp, input_gates[:, :2 * hidden] + hidden_gates[:, :2 * hidden])
    ws[:, :2 * hidden] = rz
    hn = hidden_gates[:, 2 * hidden:]
    n = xp.tanh(input_gates[:, 2 * hidden:] + rz[:, :hidden] * hn)
    ws[:, 2 * hidden:3 * hidden] = n
    ws[:, 3 * hidden:4 * hidden] = hx
    ws[:, 4 * hidden:] = hn
    update = hx - n
    update *= rz[:, hidden:]                    # z * (hx - n)
    return xp.add(n, update, out=hy), ws


def gru_backward_constants(xp, ws):
    """The factors of the GRU cell's backward that do not depend on the incoming gradient, for workspaces
    ``ws`` ``(..., B, 5H)`` of any number of steps at once: ``(1 - z, 1 - n^2, 1 - r, hx - n)``
    (``gru_cell_backward_arrays``'s ``consts``)."""
    hidden = ws.shape[-1] // 5
    r, z, n, hx = (ws[..., k * hidden:(k + 1) * hidden] for k in range(4))
    d_n = n * n
    return 1 - z, xp.subtract(1, d_n, out=d_n), 1 - r, hx - n


def gru_cell_backward_arrays(xp, grad_hy, ws, consts=None, out=None):
    """``(grad_input_gates, grad_hidden_gates, grad_hx)`` from the workspace. ``consts``: this step's
    ``gru_backward_constants`` (computed for all steps at once); ``out``: arrays ``(grad_input_gates,
    grad_hidden_gates)`` ``(B, 3H)`` to write into. Each gradient is a product evaluated left to right
    (``grad_n = grad_hy * (1 - z) * (1 - n^2)``, ...)."""
    hidden = ws.shape[1] // 5
    r, z, hn = ws[:, :hidden], ws[:, hidden:2 * hidden], ws[:, 4 * hidden:]
    one_minus_z, d_n, one_minus_r, hx_n = consts if consts is not None else gru_backward_constants(xp, ws)
    grad_n = grad_hy * one_minus_z
    grad_n *= d_n
    grad_input, grad_hidden = out if out is not None else (xp.empty((ws.shape[0], 3 * hidden), dtype=ws.dtype),
                                                           None)
    part = grad_n * hn
    part *= r
    part *= one_minus_r
    grad_input[:, :hidden] = part
    part = grad_hy * hx_n
    part *= z
    part *= one_minus_z
    grad_input[:, hidden:2 * hidden] = part
    grad_input[:, 2 * hidden:] = grad_n
    if grad_hidden is None:
        grad_hidden = grad_input.copy()
    else:
        grad_hidden[...] = grad_input
    grad_hidden[:, 2 * hidden:] *= r
    return grad_input, grad_hidden, grad_hy * z


def fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None, *, raw=None):
    """``_thnn_fused_gru_cell`` (``raw`` as in ``fused_lstm_cell``)."""
    _check_cell("_thnn_fused_gru_cell", input_gates, hidden_gates, hx, input_bias, hidden_bias, 3)
    xp = xp_of(input_gates)
    ig, hg = values(input_gates), values(hidden_gates, input_gates)
    res = raw.gru_cell_forward(ig, hg, values(hx, input_gates), *(None if b is None else values(b, input_gates)
                                                                  for b in (input_bias, hidden_bias))) if raw else None
    if res is not None:
        hy, ws = res
    else:
        if input_bias is not None:
            ig = ig + values(input_bias, input_gates)
            hg = hg + values(hidden_bias, input_gates)
        hy, ws = gru_cell_arrays(xp, ig, hg, values(hx, input_gates))
    dt, dev = input_gates._dtype, input_gates.device
    return store(hy, dt, dev), store(ws, dt, dev)


def _meta_fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    _check_cell("_thnn_fused_gru_cell", input_gates, hidden_gates, hx, input_bias, hidden_bias, 3)
    return like(hx, hx._size), like(hx, (hx._size[0], 5 * hx._size[1]))


def fused_gru_cell_backward(grad_hy, workspace, has_bias, *, raw=None):
    """``_thnn_fused_gru_cell_backward`` (``raw`` as in ``fused_lstm_cell``)."""
    _check_cell_backward("_thnn_fused_gru_cell_backward", workspace, 5, (("grad_hy", grad_hy),))
    xp = xp_of(workspace)
    res = raw.gru_cell_backward(values(grad_hy, workspace), values(workspace)) if raw else None
    gi, gh, ghx = res if res is not None else gru_cell_backward_arrays(xp, values(grad_hy, workspace),
                                                                       values(workspace))
    dt, dev = workspace._dtype, workspace.device
    biases = (store(gi.sum(axis=0), dt, dev), store(gh.sum(axis=0), dt, dev)) if has_bias else (None, None)
    return store(gi, dt, dev), store(gh, dt, dev), store(ghx, dt, dev), *biases


def _meta_fused_gru_cell_backward(grad_hy, workspace, has_bias):
    _check_cell_backward("_thnn_fused_gru_cell_backward", workspace, 5, (("grad_hy", grad_hy),))
    b, h = workspace._size[0], workspace._size[1] // 5
    bias = like(workspace, (3 * h,)) if has_bias else None
    return like(workspace, (b, 3 * h)), like(workspace, (b, 3 * h)), like(workspace, (b, h)), bias, bias


def _differentiable_gru_cell_backward(grad_hy, input_gates, hidden_gates, hx, input_bias, hidden_bias):
    """The GRU cell's gradient written with tensor ops (differentiable again)."""
    if input_bias is not None:
        input_gates = input_gates + input_bias
    if hidden_bias is not None:
        hidden_gates = hidden_gates + hidden_bias
    ir, iz, i_n = input_gates.chunk(3, 1)
    hr, hz, hn = hidden_gates.chunk(3, 1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = (i_n + r * hn).tanh()
    grad_n = grad_hy * (1 - z) * (1 - n * n)
    grad_r = grad_n * hn * r * (1 - r)
    grad_z = grad_hy * (hx - n) * z * (1 - z)
    grad_input = A.cat([grad_r, grad_z, grad_n], 1)
    grad_hidden = A.cat([grad_r, grad_z, grad_n * r], 1)
    has_bias = input_bias is not None
    return (grad_input, grad_hidden, grad_hy * z, grad_input.sum(0) if has_bias else None,
            grad_hidden.sum(0) if has_bias else None)


def _gru_cell_grads(g, a):
    from ..autograd.grad_mode import is_grad_enabled
    grad_hy = g[0] if g[0] is not None else A.zeros_like(a.result[0])
    if is_grad_enabled():
        return A._thnn_differentiable_gru_cell_backward(grad_hy, a.input_gates, a.hidden_gates, a.hx, a.input_bias,
                                                         a.hidden_bias)
    return A._thnn_fused_gru_cell_backward(grad_hy, a.result[1], a.input_bias is not None)


def _gru_tangents(a, d_input=None, d_hidden=None, d_hx=None):
    """``[d hy, None]`` from a tangent of the input gates, the hidden gates and/or ``hx`` (forward AD)."""
    r, z, n, hx, hn = a.result[1].chunk(5, 1)
    d_r = d_z = d_n = None
    for d, hidden in ((d_input, False), (d_hidden, True)):
        if d is None:
            continue
        t_r, t_z, t_n = d.chunk(3, 1)
        d_r = t_r if d_r is None else d_r + t_r
        d_z = t_z if d_z is None else d_z + t_z
        part = r * t_n if hidden else t_n
        d_n = part if d_n is None else d_n + part
    d_h = None
    if d_r is not None:
        d_r, d_z = d_r * r * (1 - r), d_z * z * (1 - z)
        d_pre_n = d_r * hn + (d_n if d_n is not None else 0)
        d_tanh = (1 - n * n) * d_pre_n
        d_h = d_tanh * (1 - z) + d_z * (hx - n)
    if d_hx is not None:
        d_h = z * d_hx if d_h is None else d_h + z * d_hx
    return [d_h, None]


_GRU_JVP = {"input_gates": lambda t, a: _gru_tangents(a, d_input=t),
            "hidden_gates": lambda t, a: _gru_tangents(a, d_hidden=t),
            "input_bias": lambda t, a: _gru_tangents(a, d_input=t.unsqueeze(0)),
            "hidden_bias": lambda t, a: _gru_tangents(a, d_hidden=t.unsqueeze(0)),
            "hx": lambda t, a: _gru_tangents(a, d_hx=t)}


def _gru_grad(which: int):
    return lambda g, a: once(g, a, _gru_cell_grads, which, _cell_inputs_needing_grad("hx"))


def _cell_inputs_needing_grad(state: str):
    def needed(a):
        return [t is not None and t.requires_grad
                for t in (a.input_gates, a.hidden_gates, getattr(a, state), a.input_bias, a.hidden_bias)]
    return needed


# -- records ------------------------------------------------------------------------------------------------
_DEVICE = "openreg.backends.privateuseone.device_ops"     # the device's own kernels: these with the raw kernels
_LSTM_SAVE = "input_gates hidden_gates cx input_bias hidden_bias result"

fused_lstm_cell_record = Op(
    "_thnn_fused_lstm_cell",
    """
    _thnn_fused_lstm_cell(Tensor input_gates, Tensor hidden_gates, Tensor cx, Tensor? input_bias=None, Tensor? hidden_bias=None) -> (Tensor, Tensor, Tensor)
    """,
    kernels={"_thnn_fused_lstm_cell": {"Backend": fused_lstm_cell, "Meta": _meta_fused_lstm_cell,
                                       "PrivateUse1": f"{_DEVICE}:fused_lstm_cell"}},
    derivatives={"_thnn_fused_lstm_cell": Deriv(
        save=_LSTM_SAVE, name="ThnnFusedLstmCellBackward0", jvp=_LSTM_JVP,
        input_gates=_lstm_grad(0), hidden_gates=_lstm_grad(1), cx=_lstm_grad(2), input_bias=_lstm_grad(3),
        hidden_bias=_lstm_grad(4))},
    function=False, method=False,
)

fused_lstm_cell_backward_impl_record = Op(
    "_thnn_fused_lstm_cell_backward_impl",
    """
    _thnn_fused_lstm_cell_backward_impl(Tensor? grad_hy, Tensor? grad_cy, Tensor cx, Tensor cy, Tensor workspace, bool has_bias) -> (Tensor, Tensor, Tensor)
    """,
    kernels={"_thnn_fused_lstm_cell_backward_impl": {"Backend": fused_lstm_cell_backward_impl,
                                                     "Meta": _meta_fused_lstm_cell_backward_impl,
                                                     "PrivateUse1": f"{_DEVICE}:fused_lstm_cell_backward_impl"}},
    function=False, method=False,
)

fused_lstm_cell_backward_record = Op(
    "_thnn_fused_lstm_cell_backward",
    """
    _thnn_fused_lstm_cell_backward(Tensor? grad_hy, Tensor? grad_cy, Tensor cx, Tensor cy, Tensor workspace, bool has_bias) -> (Tensor, Tensor, Tensor, Tensor, Tensor)
    """,
    kernels={"_thnn_fused_lstm_cell_backward": {"CompositeImplicitAutograd": _fused_lstm_cell_backward}},
    function=False, method=False,
)

differentiable_lstm_cell_backward_record = Op(
    "_thnn_differentiable_lstm_cell_backward",
    """
    _thnn_differentiable_lstm_cell_backward(Tensor? grad_hy, Tensor? grad_cy, Tensor input_gates, Tensor hidden_gates, Tensor? input_bias, Tensor? hidden_bias, Tensor cx, Tensor cy) -> (Tensor, Tensor, Tensor, Tensor, Tensor)
    """,
    kernels={"_thnn_differentiable_lstm_cell_backward": {
        "CompositeImplicitAutograd": _differentiable_lstm_cell_backward}},
    function=False, method=False,
)

fused_gru_cell_record = Op(
    "_thnn_fused_gru_cell",
    """
    _thnn_fused_gru_cell(Tensor input_gates, Tensor hidden_gates, Tensor hx, Tensor? input_bias=None, Tensor? hidden_bias=None) -> (Tensor, Tensor)
    """,
    kernels={"_thnn_fused_gru_cell": {"Backend": fused_gru_cell, "Meta": _meta_fused_gru_cell,
                                      "PrivateUse1": f"{_DEVICE}:fused_gru_cell"}},
    derivatives={"_thnn_fused_gru_cell": Deriv(
        save="input_gates hidden_gates hx input_bias hidden_bias result", name="ThnnFusedGruCellBackward0",
        jvp=_GRU_JVP,
        input_gates=_gru_grad(0), hidden_gates=_gru_grad(1), hx=_gru_grad(2), input_bias=_gru_grad(3),
        hidden_bias=_gru_grad(4))},
    function=False, method=False,
    doc="""One GRU step's gate math: ``(hy, workspace)``.

    >>> import openreg
    >>> hy, ws = openreg.ops.aten._thnn_fused_gru_cell(openreg.zeros(1, 3), openreg.zeros(1, 3), openreg.ones(1, 1))
    >>> hy.tolist(), ws.shape
    ([[0.5]], openreg.Size([1, 5]))
    """,
)

fused_gru_cell_backward_record = Op(
    "_thnn_fused_gru_cell_backward",
    """
    _thnn_fused_gru_cell_backward(Tensor grad_hy, Tensor workspace, bool has_bias) -> (Tensor, Tensor, Tensor, Tensor, Tensor)
    """,
    kernels={"_thnn_fused_gru_cell_backward": {"Backend": fused_gru_cell_backward,
                                               "Meta": _meta_fused_gru_cell_backward,
                                               "PrivateUse1": f"{_DEVICE}:fused_gru_cell_backward"}},
    function=False, method=False,
)

differentiable_gru_cell_backward_record = Op(
    "_thnn_differentiable_gru_cell_backward",
    """
    _thnn_differentiable_gru_cell_backward(Tensor grad_hy, Tensor input_gates, Tensor hidden_gates, Tensor hx, Tensor? input_bias, Tensor? hidden_bias) -> (Tensor, Tensor, Tensor, Tensor, Tensor)
    """,
    kernels={"_thnn_differentiable_gru_cell_backward": {
        "CompositeImplicitAutograd": _differentiable_gru_cell_backward}},
    function=False, method=False,
)

register(fused_lstm_cell_record, fused_lstm_cell_backward_impl_record, fused_lstm_cell_backward_record,
         differentiable_lstm_cell_backward_record, fused_gru_cell_record, fused_gru_cell_backward_record,
         differentiable_gru_cell_backward_record)
