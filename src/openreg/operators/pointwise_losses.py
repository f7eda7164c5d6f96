"""Elementwise losses as PyTorch's operators: ``mse_loss``, ``smooth_l1_loss``, ``huber_loss``,
``binary_cross_entropy`` and ``binary_cross_entropy_with_logits``. Each computes PyTorch's steps in its order in one
kernel and records one graph node (``MseLossBackward0``, ...) with PyTorch's gradient formulas, written with
operators so that they differentiate again. ``reduction`` is PyTorch's enum: 0 none, 1 mean, 2 sum.

>>> import openreg
>>> x, t = openreg.tensor([0.5, 3.0]), openreg.zeros(2)
>>> openreg.ops.aten.mse_loss(x, t, 2).item(), openreg.ops.aten.huber_loss(x, t, 0, 1.0).tolist()
(9.25, [0.125, 2.5])
"""
from __future__ import annotations

from ..aten.meta_rules import broadcast_shapes, common_device, result_type, scalar_type_name
from ..aten.structured import empty_tensor
from ..tensor import TensorBase as Tensor
from ._compute import quiet
from ._record import Deriv, Op, register
from .loss import _store, _values, _xp

_BCE_EPSILON = 1e-12        # PyTorch's floor of x * (1 - x) in binary_cross_entropy's gradient


def _reduced(xp, loss, reduction: int):
    """PyTorch's apply_loss_reduction: the mean (1), the sum (2), else the elementwise losses."""
    if reduction == 1:
        return loss.mean() if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)
    return loss.sum() if reduction == 2 else loss


def _signature(kernel: str, op: str, self, *others):
    """``(device, dtype, size)`` of a loss call, with PyTorch's checks: one device, a floating result type (the
    promoted type of the tensors), broadcastable sizes."""
    tensors = [self, *(t for t in others if t is not None)]
    device = common_device(op, *tensors)
    dtype = result_type(*tensors)
    if not dtype.is_floating_point:
        raise RuntimeError(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'")
    return device, dtype, broadcast_shapes(*(tuple(t._size) for t in tensors))


def _arrays(kernel: str, op: str, self, *others):
    """``(xp, device, dtype, self's values, [the others' values])`` in the computation dtype of the call."""
    device, dtype, _ = _signature(kernel, op, self, *others)
    on = next(t for t in (self, *others) if t is not None and t._storage.device == device)
    xp = _xp(on)
    ctype = dtype.compute_numpy

    def arr(t):
        return None if t is None else _values(t, on, xp).astype(ctype, copy=False)
    return xp, device, dtype, arr(self), [arr(t) for t in others]


def _meta(kernel: str, op: str, *names):
    """The Meta kernel of a loss whose tensor arguments after ``self`` are ``names``: the broadcast size without
    reduction, else a scalar."""
    def meta(self, *args, **kwargs):
        bound = dict(zip(names + ("reduction",), args), **kwargs)
        device, dtype, size = _signature(kernel, op, self, *(bound.get(n) for n in names))
        return empty_tensor(() if bound.get("reduction", 1) in (1, 2) else size, dtype, device)
    return meta


def _scaled(per_element, a, weight=None):
    """An elementwise derivative times ``weight``, divided by the element count for the mean."""
    if weight is not None:
        per_element = per_element * weight
    return per_element / per_element.numel() if a.reduction == 1 else per_element    # the loss's element count


def _grads(coef, weight_name=None, negate_for_target=True):
    """VJP and JVP formulas of ``self`` (and ``target`` as its negation) from ``coef(a)``, d loss / d self."""
    def weight(a):
        return getattr(a, weight_name) if weight_name else None

    def vjp(sign):
        return lambda g, a: _scaled(coef(a) * g if sign > 0 else -(coef(a) * g), a, weight(a))

    def jvp(sign):
        def f(t, a):
            d = _scaled(coef(a) * t if sign > 0 else -(coef(a) * t), a, weight(a))
            return d.sum() if a.reduction in (1, 2) else d
        return f
    formulas = {"self": vjp(1)}
    jvps = {"self": jvp(1)}
    if negate_for_target:
        formulas["target"], jvps["target"] = vjp(-1), jvp(-1)
    return formulas, jvps


# -- mse_loss ----------------------------------------------------------------------------------------------

def mse_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """``(self - target) ** 2``, reduced."""
    xp, device, dtype, x, (t,) = _arrays("mse_cpu", "mse_loss", self, target)
    with quiet():
        d = x - t
        return _store(xp.asarray(_reduced(xp, d * d, reduction)), dtype, device)


_mse_formulas, _mse_jvps = _grads(lambda a: (a.self - a.target) * 2)

# -- smooth_l1_loss and huber_loss ---------------------------------------------------------------------------

def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = 1, beta: float = 1.0) -> Tensor:
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = self - target``), reduced."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    xp, device, dtype, x, (t,) = _arrays("smooth_l1_cpu", "smooth_l1_loss", self, target)
    with quiet():
        z = xp.abs(x - t)
        loss = xp.where(z < beta, z * z * (0.5 / beta) if beta else z, z - 0.5 * beta)
        return _store(xp.asarray(_reduced(xp, loss.astype(z.dtype, copy=False), reduction)), dtype, device)


def huber_loss(self: Tensor, target: Tensor, reduction: int = 1, delta: float = 1.0) -> Tensor:
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (``d = self - target``), reduced."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    xp, device, dtype, x, (t,) = _arrays("huber_cpu", "huber_loss", self, target)
    with quiet():
        z = xp.abs(x - t)
        loss = xp.where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta)
        return _store(xp.asarray(_reduced(xp, loss.astype(z.dtype, copy=False), reduction)), dtype, device)


def _smooth_l1_coef(a):
    """``clamp(d, -beta, beta) / beta`` (sign(d) beyond beta, d / beta inside); for beta 0 PyTorch's kernel gives
    -1 where ``d <= 0``, else 1."""
    d = a.self - a.target
    if a.beta == 0:
        return (d > 0).to(d.dtype) * 2 - 1
    return d.clamp(-a.beta, a.beta) / a.beta


_smooth_formulas, _smooth_jvps = _grads(_smooth_l1_coef)
_huber_formulas, _huber_jvps = _grads(lambda a: (a.self - a.target).clamp(-a.delta, a.delta))     # d/dself

# -- binary_cross_entropy ------------------------------------------------------------------------------------

def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    """``-w (t max(log x, -100) + (1 - t) max(log(1 - x), -100))`` of probabilities ``x``, reduced."""
    xp, device, dtype, x, (t, w) = _arrays("binary_cross_entropy", "binary_cross_entropy", self, target, weight)
    if x.size and bool(((x < 0) | (x > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with quiet():
        log_x = xp.maximum(xp.log(x), -100)
        log_1mx = xp.maximum(xp.log1p(-x), -100)
        loss = (t - 1) * log_1mx - t * log_x
        if w is not None:
            loss = loss * w
        return _store(xp.asarray(_reduced(xp, loss, reduction)), dtype, device)


def _bce_self_coef(a):
    """``(x - t) / max(x (1 - x), 1e-12)``: finite where a probability is 0 or 1."""
    x = a.self
    return (x - a.target) / (x * (1 - x)).clamp_min(_BCE_EPSILON)


def _bce_target_coef(a):
    """``log(1 - x) - log(x)`` (``-logit(x)``)."""
    return (1 - a.self).log() - a.self.log()


_bce_formulas, _bce_jvps = _grads(_bce_self_coef, "weight", negate_for_target=False)
_bce_t_formulas, _bce_t_jvps = _grads(_bce_target_coef, "weight", negate_for_target=False)

# -- binary_cross_entropy_with_logits ------------------------------------------------------------------------

def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    """``(1 - target) * self - lw * log_sigmoid(self)`` (``lw = 1 + (pos_weight - 1) * target``), times ``weight``,
    reduced. ``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))``."""
    name = "binary_cross_entropy_with_logits"
    xp, device, dtype, x, (t, w, pw) = _arrays(name, name, self, target, weight, pos_weight)
    with quiet():
        ls = xp.minimum(x, 0)
        ls -= xp.log1p(xp.exp(-xp.abs(x)))
        if pw is not None:
            ls = ls * ((pw - 1) * t + 1)
        loss = (1 - t) * x
        loss = loss - ls
        if w is not None:
            loss = loss * w
        return _store(xp.asarray(_reduced(xp, loss, reduction)), dtype, device)


def _logits_self_coef(a):
    """``sigmoid(x) - t``, or ``(pw t + 1 - t) sigmoid(x) - pw t``."""
    s = a.self.sigmoid()
    if a.pos_weight is None:
        return s - a.target
    pt = a.pos_weight * a.target
    return (pt + 1 - a.target) * s - pt


def _log_sigmoid(x):
    """``min(x, 0) - log1p(exp(-|x|))`` (PyTorch's log_sigmoid), differentiable."""
    return x.clamp_max(0) - (-x.abs()).exp().log1p()


def _logits_target_coef(a):
    """``-x``, or ``log_sigmoid(-x) - pw log_sigmoid(x)``."""
    if a.pos_weight is None:
        return -a.self
    return _log_sigmoid(-a.self) - _log_sigmoid(a.self) * a.pos_weight


_logits_formulas, _logits_jvps = _grads(_logits_self_coef, "weight", negate_for_target=False)
_logits_t_formulas, _logits_t_jvps = _grads(_logits_target_coef, "weight", negate_for_target=False)


def _loss_op(name: str, kernel: str, schema: str, forward, tensors: tuple, formulas: dict, jvps: dict,
             node: str) -> Op:
    """The record of a loss: ``forward`` (CompositeExplicitAutograd: one kernel for the CPU and the device), its
    Meta kernel, and the derivatives of ``self``/``target`` (``tensors`` names the tensor arguments after
    ``self``)."""
    return Op(name, schema,
              kernels={name: {"CompositeExplicitAutograd": forward, "Meta": _meta(kernel, name, *tensors)}},
              derivatives={name: Deriv(save=" ".join(("self",) + tensors), name=node, jvp=jvps, **formulas)},
              method=False)


mse_loss_op = _loss_op("mse_loss", "mse_cpu", "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
                       mse_loss, ("target",), _mse_formulas, _mse_jvps, "MseLossBackward0")
smooth_l1_loss_op = _loss_op(
    "smooth_l1_loss", "smooth_l1_cpu",
    "smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor",
    smooth_l1_loss, ("target",), _smooth_formulas, _smooth_jvps, "SmoothL1LossBackward0")
huber_loss_op = _loss_op(
    "huber_loss", "huber_cpu", "huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor",
    huber_loss, ("target",), _huber_formulas, _huber_jvps, "HuberLossBackward0")
binary_cross_entropy_op = _loss_op(
    "binary_cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor",
    binary_cross_entropy, ("target", "weight"), {"self": _bce_formulas["self"], "target": _bce_t_formulas["self"]},
    {"self": _bce_jvps["self"], "target": _bce_t_jvps["self"]}, "BinaryCrossEntropyBackward0")
binary_cross_entropy_with_logits_op = _loss_op(
    "binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits",
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, "
    "int reduction=Mean) -> Tensor",
    binary_cross_entropy_with_logits, ("target", "weight", "pos_weight"),
    {"self": _logits_formulas["self"], "target": _logits_t_formulas["self"]},
    {"self": _logits_jvps["self"], "target": _logits_t_jvps["self"]}, "BinaryCrossEntropyWithLogitsBackward0")

register(mse_loss_op, smooth_l1_loss_op, huber_loss_op, binary_cross_entropy_op, binary_cross_entropy_with_logits_op)
