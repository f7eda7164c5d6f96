"""Fused loss kernels, as in PyTorch: ``nll_loss_forward`` / ``nll_loss_backward`` (class-index targets, 1-d or
2-d input), ``_log_softmax_backward_data`` and ``_softmax_backward_data`` (the gradients of ``_log_softmax`` and
``_softmax``).

``cross_entropy`` is ``log_softmax`` + ``nll_loss``; with these ops one training step records two nodes for the
loss instead of a dozen elementwise ops. Kernels are written against the array module of the input's storage
(NumPy, or CuPy on the cuda driver), so one CompositeExplicitAutograd kernel serves the CPU and the device;
Meta gets shape-only kernels. ``reduction`` is PyTorch's enum: 0 none, 1 mean, 2 sum.

>>> import openreg
>>> logp = openreg.tensor([[-1.0, -2.0], [-0.5, -3.0]])
>>> out, total = openreg.ops.aten.nll_loss_forward(logp, openreg.tensor([1, 0]), None, 1, -100)
>>> out.item(), total.item()
(1.25, 2.0)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_float32, host_array, to_float32, wrap_array
from .._dispatch.ops import A
from ..aten.meta_rules import fmt_shape, wrap_dim
from ..aten.structured import empty_tensor
from ..tensor import TensorBase as Tensor
from ._compute import axis_sums, quiet, row_dots
from ._record import Deriv, Op, register


def _xp(t: Tensor):
    return t._storage._backend.array_module


def _on(t: Tensor, like: Tensor, xp):
    """``t``'s elements as an array of ``like``'s array module (device arrays stay where they are)."""
    return t._array() if t._storage.device is like._storage.device else xp.asarray(host_array(t))


def _values(t: Tensor, like: Tensor, xp):
    """Elements in computation form (bfloat16 widened to float32)."""
    arr = _on(t, like, xp)
    return to_float32(arr, t._dtype) if t._dtype.is_narrow_float else arr


def _store(arr, dtype, device) -> Tensor:
    if dtype.is_narrow_float:
        return wrap_array(from_float32(arr, dtype), dtype, device)
    return wrap_array(arr if arr.dtype is dtype.numpy else arr.astype(dtype.numpy, copy=False), dtype, device)


def _check_nll(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int) -> None:
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch = self.dim() == 1 and target.dim() == 0
    if not no_batch and self._size[0] != (target._size[0] if target.dim() else 1):
        raise RuntimeError(f"size mismatch (got input: {fmt_shape(self._size)}, target: {fmt_shape(target._size)})")
    if target._dtype is not _dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {target._dtype}")
    n_cls = self._size[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_cls):
        raise RuntimeError(f"weight tensor should be defined either for all {n_cls} classes or no classes but got "
                           f"weight tensor of shape: {fmt_shape(weight._size)}")
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _picked(self: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int, xp):
    """(row indices, safe class indices, per-row weights with zeros on ignored rows) of a 2-d view; the weights
    are None when every row counts with weight 1 (no weight tensor, every target a class, none ignored)."""
    n_cls = self._size[-1]
    t = _on(target, self, xp).reshape(-1)
    # one reduction instead of five passes for the common case: read as unsigned, a negative target is larger
    # than any class, so every target is a class when the largest is; none is then ignore_index
    if weight is None and t.size and not 0 <= ignore_index < n_cls and int(t.view(xp.uint64).max()) < n_cls:
        return _rows(xp, t.size), t, None
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    bad = (safe < 0) | (safe >= n_cls)
    if t.size and bool(bad.any()):
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    ctype = self._dtype.compute_numpy
    w = valid.astype(ctype)
    if weight is not None:
        w = w * _values(weight, self, xp).astype(ctype, copy=False)[safe]
    return xp.arange(t.size), safe, w


_aranges: dict = {}


def _rows(xp, n: int):
    """``xp.arange(n)``, kept per size for NumPy (the row indices of every training step's loss)."""
    if xp is not np:
        return xp.arange(n)
    rows = _aranges.get(n)
    if rows is None:
        if len(_aranges) > 64:
            _aranges.clear()
        rows = _aranges[n] = np.arange(n)
        rows.flags.writeable = False
    return rows


def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: int) -> tuple:
    """``(loss, total_weight)``: ``-weight[t] * self[i, t]`` per row, summed or averaged over the weights."""
    _check_nll(self, target, weight, reduction)
    xp = _xp(self)
    x = _values(self, self, xp).reshape(-1, self._size[-1])
    rows, safe, w = _picked(self, target, weight, ignore_index, xp)
    if w is None:      # every weight 1: the same values as the general case, which multiplies by 1.0
        picked = x[rows, safe].astype(self._dtype.compute_numpy, copy=False)
        total = xp.asarray(rows.size, dtype=picked.dtype)
        if reduction == 1:      # the sum of the negated values is the negated sum, exactly
            return (_store(xp.asarray(-picked.sum() / total), self._dtype, self.device),
                    _store(total, self._dtype, self.device))
        losses = -picked
    else:
        losses = -(x[rows, safe] * w)
        total = w.sum()
    if reduction == 0:
        out = losses.reshape(tuple(target._size))
        total = xp.zeros((), dtype=losses.dtype)
    elif reduction == 2:
        out = losses.sum()
    else:
        out = losses.sum() / total
    return _store(xp.asarray(out), self._dtype, self.device), _store(xp.asarray(total), self._dtype, self.device)


def meta_nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                          ignore_index: int) -> tuple:
    _check_nll(self, target, weight, reduction)
    size = tuple(target._size) if reduction == 0 else ()
    return empty_tensor(size, self._dtype, self.device), empty_tensor((), self._dtype, self.device)


def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: int, total_weight: Tensor) -> Tensor:
    """The gradient of ``nll_loss_forward`` with respect to ``self``: ``-weight[t] * grad`` at ``(i, t)``."""
    _check_nll(self, target, weight, reduction)
    xp = _xp(self)
    rows, safe, w = _picked(self, target, weight, ignore_index, xp)
    ctype = self._dtype.compute_numpy
    g = _values(grad_output, self, xp).astype(ctype, copy=False).reshape(-1)
    coef = g * ctype.type(-1) if w is None else -w * g    # (weights of 1: -1 * g, as the general case has it)
    if reduction == 1:
        coef = coef / _values(total_weight, self, xp).astype(ctype, copy=False).reshape(())
    gi = xp.zeros((rows.size, self._size[-1]), dtype=ctype)
    gi[rows, safe] = coef
    return _store(gi.reshape(tuple(self._size)), self._dtype, self.device)


def meta_nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None,
                           reduction: int, ignore_index: int, total_weight: Tensor) -> Tensor:
    _check_nll(self, target, weight, reduction)
    return empty_tensor(tuple(self._size), self._dtype, self.device)


def _check_lsbd(grad_output: Tensor, output: Tensor, dim: int, op: str = "_log_softmax_backward_data") -> int:
    if tuple(grad_output._size) != tuple(output._size):
        raise RuntimeError(f"{op}: grad_output size {fmt_shape(grad_output._size)} does not "
                           f"match output size {fmt_shape(output._size)}")
    return wrap_dim(dim, max(output.dim(), 1))


def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    """``grad_output - exp(output) * grad_output.sum(dim, keepdim=True)``."""
    d = _check_lsbd(grad_output, output, dim)
    xp = _xp(output)
    y = _values(output, output, xp)
    g = _values(grad_output, output, xp)
    shape = tuple(output._size) or (1,)
    y, g = y.reshape(shape), g.reshape(shape)
    e = xp.exp(y)           # a temporary of our own: the product and difference are written into it
    e *= axis_sums(xp, g, d)
    res = xp.subtract(g, e, out=e)
    return _store(res.reshape(tuple(output._size)), output._dtype, output.device)


def meta_log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    _check_lsbd(grad_output, output, dim)
    return empty_tensor(tuple(output._size), output._dtype, output.device)


def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    """``output * (grad_output - (grad_output * output).sum(dim, keepdim=True))``, PyTorch's kernel formula; the
    row sums of a last dimension on NumPy as row-by-column products (``row_dots``: no product array, ~2x faster
    than NumPy's sum along short rows)."""
    from .reduction import host_sum
    d = _check_lsbd(grad_output, output, dim, "_softmax_backward_data")
    xp = _xp(output)
    y = _values(output, output, xp)
    g = _values(grad_output, output, xp)
    shape = tuple(output._size) or (1,)
    y, g = y.reshape(shape), g.reshape(shape)
    with quiet():
        if xp is np and d == len(shape) - 1 and y.dtype == g.dtype and y.dtype in _ROW_DOT_FLOATS:
            total = row_dots(xp, g, y)
        else:
            gy = g * y
            total = host_sum(gy, (d,), gy.dtype, True) if xp is np else gy.sum(axis=d, keepdims=True)
        res = xp.subtract(g, total)
        res *= y
    return _store(res.reshape(tuple(output._size)), output._dtype, output.device)


_ROW_DOT_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def meta_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    _check_lsbd(grad_output, output, dim, "_softmax_backward_data")
    return empty_tensor(tuple(output._size), output._dtype, output.device)


# -- derivatives --------------------------------------------------------------------------------------------

def _nll_loss_grad(g, a):
    if g[0] is None:
        return None
    return A.nll_loss_backward(g[0], a.self, a.target, a.weight, a.reduction, a.ignore_index, a.result1)


def _nll_loss_jvp(t, a):
    return [A.nll_loss_forward(t, a.target, a.weight, a.reduction, a.ignore_index)[0], None]


def _sbd_output_grad(g, a):
    """``y = go*out - out * (go*out).sum(dim)``: ``dL/dout = g * (go - (go*out).sum(dim)) - go * (g*out).sum(dim)``."""
    go, out = a.grad_output, a.output
    return g * (go - (go * out).sum(a.dim, True)) - go * (g * out).sum(a.dim, True)


def _sbd_output_jvp(t, a):
    go, out = a.grad_output, a.output
    return t * (go - (go * out).sum(a.dim, True)) - out * (go * t).sum(a.dim, True)


def _lsbd_output_grad(g, a):
    """``y = go - exp(out) * go.sum(dim)``: ``dL/dout = -g * exp(out) * go.sum(dim)``."""
    return -(g * a.output.exp() * a.grad_output.sum(a.dim, True))


nll_loss_forward_op = Op(
    "nll_loss_forward",
    "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
    "(Tensor output, Tensor total_weight)",
    kernels={"nll_loss_forward": {"CompositeExplicitAutograd": nll_loss_forward, "Meta": meta_nll_loss_forward}},
    derivatives={"nll_loss_forward": Deriv(save="self target weight result1", name="NllLossBackward0",
                                           self=_nll_loss_grad, jvp={"self": _nll_loss_jvp})},
    function=False, method=False)
nll_loss_backward_op = Op(
    "nll_loss_backward",
    "nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, Tensor total_weight) -> Tensor",
    kernels={"nll_loss_backward": {"CompositeExplicitAutograd": nll_loss_backward, "Meta": meta_nll_loss_backward}},
    derivatives={"nll_loss_backward": Deriv(
        save="target weight", name="NllLossBackwardBackward0",
        grad_output=lambda g, a: A.nll_loss_forward(g, a.target, a.weight, a.reduction, a.ignore_index)[0],
        jvp={"grad_output": lambda t, a: A.nll_loss_backward(t, a.self, a.target, a.weight, a.reduction,
                                                             a.ignore_index, a.total_weight)})},
    function=False, method=False)
log_softmax_backward_data_op = Op(
    "_log_softmax_backward_data",
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
    kernels={"_log_softmax_backward_data": {"CompositeExplicitAutograd": log_softmax_backward_data,
                                            "Meta": meta_log_softmax_backward_data}},
    derivatives={"_log_softmax_backward_data": Deriv(
        save="grad_output output", name="LogSoftmaxBackwardDataBackward0",
        grad_output=lambda g, a: g - (g * a.output.exp()).sum(a.dim, True), output=_lsbd_output_grad,
        jvp={"grad_output": lambda t, a: A._log_softmax_backward_data(t, a.output, a.dim, a.input_dtype),
             "output": _lsbd_output_grad})},
    function=False, method=False)

softmax_backward_data_op = Op(
    "_softmax_backward_data",
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
    kernels={"_softmax_backward_data": {"CompositeExplicitAutograd": softmax_backward_data,
                                        "Meta": meta_softmax_backward_data}},
    derivatives={"_softmax_backward_data": Deriv(
        save="grad_output output", name="SoftmaxBackwardDataBackward0",
        grad_output=lambda g, a: A._softmax_backward_data(g, a.output, a.dim, a.input_dtype),
        output=_sbd_output_grad,
        jvp={"grad_output": lambda t, a: A._softmax_backward_data(t, a.output, a.dim, a.input_dtype),
             "output": _sbd_output_jvp})},
    function=False, method=False)

register(nll_loss_forward_op, nll_loss_backward_op, log_softmax_backward_data_op, softmax_backward_data_op)
