"""Normalization: ``native_layer_norm``, ``native_group_norm``, ``native_batch_norm`` (each with its backward)
and the composites ``layer_norm``, ``group_norm``, ``batch_norm``.

Statistics are computed in float32 at least (float16/bfloat16 inputs), biased variance for normalizing; batch
norm updates the running statistics in place with the unbiased variance, as PyTorch. The backward kernels use the
saved mean and inverse standard deviation and return only the gradients ``output_mask`` asks for.

>>> import openreg
>>> x = openreg.tensor([[1.0, 3.0], [2.0, 6.0]])
>>> out, mean, rstd = openreg.ops.aten.native_layer_norm(x, [2], None, None, 0.0)
>>> out.tolist(), mean.flatten().tolist()
([[-1.0, 1.0], [-1.0, 1.0]], [2.0, 4.0])
"""
from __future__ import annotations

import numpy as np

from .._dispatch.ops import A
from ..autograd.grad_mode import state as _gm
from ._compute import axis_sums, leading_sums, quiet, row_dots
from ._multi_grad import once
from ._nn_arrays import like, same_float_dtype, store, values, xp_of
from ._record import Deriv, Op, register


def _stat_dtype(t):
    from .. import dtypes as _dt
    return _dt.float32 if t._dtype in (_dt.float16, _dt.bfloat16) else t._dtype


# -- layer norm ----------------------------------------------------------------------------------------------

def _check_layer_norm(input, normalized_shape, weight, bias):
    shape = tuple(normalized_shape)
    if len(shape) < 1:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._size) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t._size)} and normalized_shape = {list(shape)}")
    if input.dim() < len(shape) or tuple(input._size[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input._size)}")
    same_float_dtype("native_layer_norm", input, weight, bias)
    return len(shape)


def _prod(sizes) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def _rows(x, k: int):
    """``x`` as ``(rows, n)``: its last ``k`` dimensions flattened (a view when it can be)."""
    n = 1
    for s in x.shape[x.ndim - k:]:
        n *= s
    return x.reshape(-1, n), n


def _native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Row statistics by plain sums over contiguous rows, then the normalization written in place (three passes
    after the statistics instead of five temporaries)."""
    k = _check_layer_norm(input, normalized_shape, weight, bias)
    xp = xp_of(input)
    x = values(input)
    rows, n = _rows(x, k)
    stat_shape = x.shape[:x.ndim - k] + (1,) * k
    with quiet():     # an empty row gives NaN statistics, as PyTorch's
        mean = axis_sums(xp, rows) / n
        y = rows - mean
        var = axis_sums(xp, xp.square(y)) / n
        rstd = 1.0 / xp.sqrt(var + eps)
    y *= rstd
    if weight is not None:
        y *= values(weight, input).reshape(1, n)
    if bias is not None:
        y += values(bias, input).reshape(1, n)
    sd = _stat_dtype(input)
    return (store(y.reshape(x.shape), input._dtype, input.device), store(mean.reshape(stat_shape), sd, input.device),
            store(rstd.reshape(stat_shape), sd, input.device))


def _meta_native_layer_norm(input, normalized_shape, weight, bias, eps):
    k = _check_layer_norm(input, normalized_shape, weight, bias)
    stat = tuple(input._size[:input.dim() - k]) + (1,) * k
    sd = _stat_dtype(input)
    return like(input, input._size), like(input, stat, sd), like(input, stat, sd)


def _native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    k = _check_layer_norm(input, normalized_shape, weight, bias)
    rows_expected = input.numel() // max(_prod(normalized_shape), 1)
    if tuple(grad_out._size) != tuple(input._size):
        raise RuntimeError(f"native_layer_norm_backward: grad_out of size {list(grad_out._size)} does not match "
                           f"input of size {list(input._size)}")
    for what, t in (("mean", mean), ("rstd", rstd)):
        if t.numel() != rows_expected:
            raise RuntimeError(f"native_layer_norm_backward: {what} should have {rows_expected} elements (one per "
                               f"normalized row of input {list(input._size)}), got {list(t._size)}")
    xp = xp_of(input)
    x = values(input)
    g = values(grad_out, input)
    rows, n = _rows(x, k)
    g_rows = g.reshape(rows.shape)
    m, r = values(mean, input).reshape(-1, 1), values(rstd, input).reshape(-1, 1)
    xhat = rows - m
    xhat *= r
    w = values(weight, input).reshape(n) if weight is not None else None
    want_gw = output_mask[1] and weight is not None
    # g * xhat serves the weight's gradient and, through w, the row sums of (g w) * xhat
    gxh = g_rows * xhat if output_mask[0] or want_gw else None
    gi = gw = gb = None
    if output_mask[0]:
        # r * (g w - mean(g w) - xhat * mean(g w xhat)), the row means as matrix-vector products
        if w is None:
            s1, s2, a = axis_sums(xp, g_rows), axis_sums(xp, gxh), g_rows.copy()
        else:
            s1, s2, a = (g_rows @ w)[:, None], (gxh @ w)[:, None], g_rows * w
        a -= s1 / n
        xhat *= s2 / n
        a -= xhat
        a *= r
        gi = store(a.reshape(x.shape), input._dtype, input.device)
    if want_gw:
        gw = store(_column_sums(xp, gxh).reshape(weight._size), weight._dtype, weight.device)
    if output_mask[2] and bias is not None:
        gb = store(_column_sums(xp, g_rows).reshape(bias._size), bias._dtype, bias.device)
    return gi, gw, gb


def _column_sums(xp, a):
    """``a.sum(axis=0)`` of a 2-d array; through BLAS on the host (``leading_sums``)."""
    out = leading_sums(a, 1) if xp is np else None
    return a.sum(axis=0) if out is None else out


def _meta_native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    return (like(input, input._size) if output_mask[0] else None,
            like(weight, weight._size) if output_mask[1] and weight is not None else None,
            like(bias, bias._size) if output_mask[2] and bias is not None else None)


def _stats_grad(x, mean, rstd, g_mean, g_rstd, n: int):
    """The input gradient through the returned statistics themselves (mean = sum(x)/n,
    rstd = (var + eps)^-1/2, so d rstd/dx = -rstd^3 (x - mean) / n); None when neither has a gradient."""
    extra = None
    if g_mean is not None:
        extra = (g_mean / n).expand(tuple(x.shape))
    if g_rstd is not None:
        term = g_rstd * -(rstd * rstd * rstd) * (x - mean) / n
        extra = term if extra is None else extra + term
    return extra


def _plus(a, b):
    if a is None:
        return b
    return a if b is None else a + b


def _normalized_grads(g, x, mean, rstd, weight, dims, param_dims, param_shape, needed) -> tuple:
    """``(grad_input, grad_weight, grad_bias)`` of ``y = (x - mean) * rstd * weight + bias`` (statistics over
    ``dims``, broadcast shapes) written with differentiable operators: the backward under ``create_graph``, as
    PyTorch's ``infinitely_differentiable_*_backward``. ``mean``/``rstd`` are the forward's saved outputs, so the
    second-order terms through the statistics reach the input through the forward node's own formula."""
    xhat = (x - mean) * rstd
    gi = gw = gb = None
    if needed[0]:
        gx = g if weight is None else g * weight
        gi = (gx - gx.mean(dims, True) - xhat * (gx * xhat).mean(dims, True)) * rstd
    if needed[1] and weight is not None:
        gw = (g * xhat).sum(param_dims).reshape(param_shape)
    if needed[2]:
        gb = g.sum(param_dims).reshape(param_shape)
    return gi, gw, gb


def _ln_backward_differentiable(g, a):
    """``_ln_backward`` under ``create_graph``."""
    x = a.input
    k = len(a.normalized_shape)
    lead = list(range(x.dim() - k))
    return _normalized_grads(g[0], x, a.result1, a.result2, a.weight, list(range(x.dim() - k, x.dim())), lead,
                             tuple(a.normalized_shape), _ln_needed(a))


def _ln_needed(a) -> list:
    return [t is not None and t.requires_grad for t in (a.input, a.weight, a.bias)]


def _ln_backward(g, a):
    """Every needed input's gradient from one native_layer_norm_backward call."""
    return A.native_layer_norm_backward(g[0], a.input, a.normalized_shape, a.result1, a.result2, a.weight, a.bias,
                                        _ln_needed(a))


def _ln_grad(which: int):
    def grad(g, a):
        out = None
        if g[0] is not None:
            out = once(g, a, _ln_backward_differentiable if _gm.enabled else _ln_backward, which, _ln_needed)
        if which == 0:
            k = len(a.normalized_shape)
            n = 1
            for s in a.input.shape[a.input.dim() - k:]:
                n *= s
            out = _plus(out, _stats_grad(a.input, a.result1, a.result2, g[1], g[2], n))
        return out
    return grad


def _ln_jvp_input(t, a):
    k = len(a.normalized_shape)
    dims = list(range(-k, 0))
    mean, rstd = a.result1, a.result2
    xhat = (a.input - mean) * rstd
    dx = (t - t.mean(dims, True) - xhat * (t * xhat).mean(dims, True)) * rstd
    t_rstd = -(rstd * rstd) * (xhat * t).mean(dims, True)
    return [dx * a.weight if a.weight is not None else dx, t.mean(dims, True), t_rstd]


def _ln_jvp_weight(t, a):
    return [(a.input - a.result1) * a.result2 * t, None, None]


native_layer_norm = Op(
    "native_layer_norm",
    """
    native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"native_layer_norm": {"CompositeExplicitAutograd": _native_layer_norm, "Meta": _meta_native_layer_norm}},
    derivatives={"native_layer_norm": Deriv(
        save="input normalized_shape weight bias result1 result2", input=_ln_grad(0), weight=_ln_grad(1), bias=_ln_grad(2),
        jvp={"input": _ln_jvp_input, "weight": _ln_jvp_weight, "bias": lambda t, a: [t, None, None]})},
    function=True, method=False,
    doc="""Layer normalization over the trailing ``normalized_shape`` dims: ``(out, mean, rstd)``.

    >>> import openreg
    >>> out, mean, rstd = openreg.ops.aten.native_layer_norm(openreg.tensor([[1.0, 3.0]]), [2], None, None, 0.0)
    >>> out.tolist(), mean.tolist(), rstd.tolist()
    ([[-1.0, 1.0]], [[2.0]], [[1.0]])
    """,
)

native_layer_norm_backward = Op(
    "native_layer_norm_backward",
    """
    native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"native_layer_norm_backward": {"CompositeExplicitAutograd": _native_layer_norm_backward,
                                            "Meta": _meta_native_layer_norm_backward}},
    function=False, method=False,
    doc="""``(grad_input, grad_weight, grad_bias)`` of ``native_layer_norm`` per ``output_mask``.

    >>> import openreg
    >>> x = openreg.tensor([[1.0, 3.0]])
    >>> _, m, r = openreg.ops.aten.native_layer_norm(x, [2], None, None, 0.0)
    >>> gi, gw, gb = openreg.ops.aten.native_layer_norm_backward(openreg.ones(1, 2), x, [2], m, r, None, None,
    ...                                                         [True, False, False])
    >>> gi.tolist(), gw is None
    ([[0.0, 0.0]], True)
    """,
)


def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return A.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


layer_norm = Op(
    "layer_norm",
    """
    layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor
    """,
    kernels={"layer_norm": {"CompositeImplicitAutograd": _layer_norm}},
    function=True, method=False,
    doc="""Layer normalization (the output of ``native_layer_norm``).

    >>> import openreg
    >>> openreg.ops.aten.layer_norm(openreg.tensor([[1.0, 3.0]]), [2], eps=0.0).tolist()
    [[-1.0, 1.0]]
    """,
)


# -- group norm ----------------------------------------------------------------------------------------------

def _check_group_norm(input, weight, bias, n, c, hxw, group):
    if group <= 0 or c % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input._size)} and num_groups={group}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                               f"got {name} of shape {list(t._size)} and input of shape {list(input._size)}")
    if input.numel() != n * c * hxw:
        raise RuntimeError(f"Expected the input of {list(input._size)} to hold N * C * HxW = {n} * {c} * {hxw} "
                           f"elements")
    same_float_dtype("native_group_norm", input, weight, bias)


def _native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Statistics per (sample, group) from the centred input, which is then scaled in place by the per-channel
    ``rstd * weight`` and shifted by ``bias``: four passes over the input instead of eight."""
    _check_group_norm(input, weight, bias, N, C, HxW, group)
    xp = xp_of(input)
    xg = values(input).reshape(N, group, -1)
    n = xg.shape[2]
    with quiet():     # an empty group gives NaN statistics, as PyTorch's
        mean = axis_sums(xp, xg) / n                               # (N, G, 1)
        xc = xg - mean
        rstd = 1.0 / xp.sqrt(row_dots(xp, xc, xc) / n + eps)
    scale = xp.repeat(rstd, C // group, axis=1)                      # (N, C, 1)
    if weight is not None:
        scale = scale * values(weight, input).reshape(1, C, 1)
    y = xc.reshape(N, C, -1)
    y *= scale
    if bias is not None:
        y += values(bias, input).reshape(1, C, 1)
    sd = _stat_dtype(input)
    return (store(y.reshape(tuple(input._size)), input._dtype, input.device),
            store(mean.reshape(N, group), sd, input.device), store(rstd.reshape(N, group), sd, input.device))


def _meta_native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    _check_group_norm(input, weight, bias, N, C, HxW, group)
    sd = _stat_dtype(input)
    return like(input, input._size), like(input, (N, group), sd), like(input, (N, group), sd)


def _check_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group):
    if group <= 0 or C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input._size)} and num_groups={group}")
    for what, t, n in (("dY", grad_out, N * C * HxW), ("X", input, N * C * HxW), ("mean", mean, N * group),
                       ("rstd", rstd, N * group)):
        if t.numel() != n:
            raise RuntimeError(f"Expect {what} to have {n} elements, but got {t.numel()}")
    if weight is not None and weight.numel() != C:
        raise RuntimeError(f"Expect gamma to have {C} elements, but got {weight.numel()}")


def _native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    """PyTorch's form: per-channel sums of ``dy`` and ``dy * x``, from which the weight and bias gradients come
    directly and the input gradient is ``dy * a + x * b + c`` with ``a`` per channel and ``b``, ``c`` per group
    (about six passes over the input instead of sixteen)."""
    _check_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group)
    xp = xp_of(input)
    x = xp.ascontiguousarray(values(input)).reshape(N, C, -1)
    dy = xp.ascontiguousarray(values(grad_out, input)).reshape(N, C, -1)    # (an expanded one: dense rows)
    cg = C // group
    m, r = values(mean, input).reshape(N, group, 1), values(rstd, input).reshape(N, group, 1)
    ds = row_dots(xp, dy, x)                                       # (N, C, 1): sum of dy * x per channel
    db = axis_sums(xp, dy)                                         # (N, C, 1): sum of dy
    w = values(weight, input).reshape(1, C, 1) if weight is not None else None
    gi = gw = gb = None
    r_c = xp.repeat(r, cg, axis=1)                                 # (N, C, 1): each channel's group rstd
    if output_mask[0]:
        n = cg * x.shape[2]
        ds_g = (ds if w is None else ds * w).reshape(N, group, cg).sum(axis=2, keepdims=True)
        db_g = (db if w is None else db * w).reshape(N, group, cg).sum(axis=2, keepdims=True)
        b = (db_g * m - ds_g) * (r * r * r) / n                    # (N, G, 1)
        c = -b * m - db_g * r / n
        a = r_c if w is None else r_c * w
        gi = dy * a
        gi += x * xp.repeat(b, cg, axis=1)
        gi += xp.repeat(c, cg, axis=1)
        gi = store(gi.reshape(tuple(input._size)), input._dtype, input.device)
    if output_mask[1] and weight is not None:
        per = (ds - db * xp.repeat(m, cg, axis=1)) * r_c
        gw = store(per.sum(axis=(0, 2)), weight._dtype, weight.device)
    if output_mask[2]:
        gb = store(db.sum(axis=(0, 2)), input._dtype, input.device)
    return gi, gw, gb


def _meta_native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    return (like(input, input._size) if output_mask[0] else None,
            like(input, (C,)) if output_mask[1] and weight is not None else None,
            like(input, (C,)) if output_mask[2] else None)


def _gn_backward(g, a):
    """Every needed input's gradient from one native_group_norm_backward call (as PyTorch's formula: the
    normalized input is computed once for all three)."""
    return A.native_group_norm_backward(g[0], a.input, a.result1, a.result2, a.weight, a.N, a.C, a.HxW, a.group,
                                        _ln_needed(a))


def _gn_backward_differentiable(g, a):
    """``_gn_backward`` under ``create_graph``: statistics over (N, group, C/group * HxW), affine per channel."""
    n, c, group = a.N, a.C, a.group
    x = a.input.reshape(n, group, -1)
    g3 = g[0].reshape(n, c, -1)
    w = None if a.weight is None else a.weight.reshape(1, c, 1)
    needed = _ln_needed(a)
    gi = gw = gb = None
    if needed[0]:
        gx = (g3 if w is None else g3 * w).reshape(n, group, -1)
        gi = _normalized_grads(gx, x, a.result1.unsqueeze(-1), a.result2.unsqueeze(-1), None, [-1], [], (),
                               [True, False, False])[0].reshape(tuple(a.input.shape))
    if needed[1] or needed[2]:
        xhat = ((x - a.result1.unsqueeze(-1)) * a.result2.unsqueeze(-1)).reshape(n, c, -1)
        if needed[1] and w is not None:
            gw = (g3 * xhat).sum([0, 2])
        if needed[2]:
            gb = g3.sum([0, 2])
    return gi, gw, gb


def _gn_grad(which: int):
    def grad(g, a):
        out = None
        if g[0] is not None:
            out = once(g, a, _gn_backward_differentiable if _gm.enabled else _gn_backward, which, _ln_needed)
        if which == 0 and (g[1] is not None or g[2] is not None):
            xg = a.input.reshape(a.N, a.group, -1)
            extra = _stats_grad(xg, a.result1.unsqueeze(-1), a.result2.unsqueeze(-1),
                                None if g[1] is None else g[1].unsqueeze(-1),
                                None if g[2] is None else g[2].unsqueeze(-1), xg.shape[-1])
            out = _plus(out, extra.reshape(tuple(a.input.shape)))
        return out
    return grad


def _gn_xhat(a):
    x = a.input.reshape(a.N, a.group, -1)
    return x, (x - a.result1.unsqueeze(-1)) * a.result2.unsqueeze(-1)


def _gn_jvp_input(t, a):
    _, xhat = _gn_xhat(a)
    tg = t.reshape(a.N, a.group, -1)
    dx = ((tg - tg.mean(-1, True) - xhat * (tg * xhat).mean(-1, True)) * a.result2.unsqueeze(-1))
    t_mean = tg.mean(-1)
    t_rstd = -(a.result2 * a.result2) * (xhat * tg).mean(-1)
    dx = dx.reshape(a.N, a.C, -1)
    if a.weight is not None:
        dx = dx * a.weight.reshape(1, a.C, 1)
    return [dx.reshape(tuple(a.input.shape)), t_mean, t_rstd]


def _gn_jvp_weight(t, a):
    _, xhat = _gn_xhat(a)
    return [(xhat.reshape(a.N, a.C, -1) * t.reshape(1, a.C, 1)).reshape(tuple(a.input.shape)), None, None]


def _gn_jvp_bias(t, a):
    shape = tuple(a.input.shape)
    return [t.reshape([1, a.C] + [1] * (len(shape) - 2)).expand(shape), None, None]


native_group_norm = Op(
    "native_group_norm",
    """
    native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"native_group_norm": {"CompositeExplicitAutograd": _native_group_norm, "Meta": _meta_native_group_norm}},
    derivatives={"native_group_norm": Deriv(
        save="input weight bias N C HxW group result1 result2", input=_gn_grad(0), weight=_gn_grad(1), bias=_gn_grad(2),
        jvp={"input": _gn_jvp_input, "weight": _gn_jvp_weight, "bias": _gn_jvp_bias})},
    function=True, method=False,
    doc="""Group normalization of ``(N, C, *)`` inputs over ``group`` channel groups: ``(out, mean, rstd)``.

    >>> import openreg
    >>> out, mean, rstd = openreg.ops.aten.native_group_norm(openreg.tensor([[[1.0], [3.0]]]), None, None, 1, 2, 1, 1, 0.0)
    >>> out.flatten().tolist(), mean.tolist()
    ([-1.0, 1.0], [[2.0]])
    """,
)

native_group_norm_backward = Op(
    "native_group_norm_backward",
    """
    native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"native_group_norm_backward": {"CompositeExplicitAutograd": _native_group_norm_backward,
                                            "Meta": _meta_native_group_norm_backward}},
    function=False, method=False,
    doc="""``(grad_input, grad_weight, grad_bias)`` of ``native_group_norm`` per ``output_mask``.

    >>> import openreg
    >>> x = openreg.tensor([[[1.0], [3.0]]])
    >>> _, m, r = openreg.ops.aten.native_group_norm(x, None, None, 1, 2, 1, 1, 0.0)
    >>> openreg.ops.aten.native_group_norm_backward(openreg.ones(1, 2, 1), x, m, r, None, 1, 2, 1, 1,
    ...                                             [False, False, True])[2].tolist()
    [1.0, 1.0]
    """,
)


def _group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input._size[0], input._size[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input._size)} and num_groups={num_groups}")
    hxw = 1
    for s in input._size[2:]:
        hxw *= s
    return A.native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


group_norm = Op(
    "group_norm",
    """
    group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
    """,
    kernels={"group_norm": {"CompositeImplicitAutograd": _group_norm}},
    function=True, method=False,
    doc="""Group normalization (the output of ``native_group_norm``).

    >>> import openreg
    >>> openreg.ops.aten.group_norm(openreg.tensor([[[1.0], [3.0]]]), 1, eps=0.0).flatten().tolist()
    [-1.0, 1.0]
    """,
)


# -- batch norm ----------------------------------------------------------------------------------------------

def _check_batch_norm(input, weight, bias, running_mean, running_var, training):
    if input.dim() < 2:
        raise RuntimeError(f"batch_norm: expected input with at least 2 dimensions, got {list(input._size)}")
    c = input._size[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    same_float_dtype("native_batch_norm", input, weight, bias)
    return c


def _channels(x):
    """``x`` ``(N, C, *spatial)`` as ``(N, C, K)`` (a view when it can be) and ``K``."""
    n, c = x.shape[:2]
    k = x.size // (n * c) if n * c else 0
    return x.reshape(n, c, k), k


def _channel_sums(xp, a3):
    """Per-channel sums of ``(N, C, K)``: each row of K contiguous elements first (``axis_sums``: BLAS for
    NumPy floats), then over the batch. A reduction over the non-adjacent axes (0, 2) in one call walks rows of
    K and costs ~3x."""
    return axis_sums(xp, a3)[..., 0].sum(axis=0)


def _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """PyTorch's CPU formulation: per-channel ``alpha = invstd * weight`` and ``beta = bias - mean * alpha``, then
    ``y = x * alpha + beta`` (two passes over the input instead of four)."""
    c = _check_batch_norm(input, weight, bias, running_mean, running_var, training)
    xp = xp_of(input)
    x = values(input)
    x3, k = _channels(x)     # a strided view for a channels_last input: y keeps its layout
    sd = _stat_dtype(input)
    if training:
        count = x3.shape[0] * k
        s3 = xp.ascontiguousarray(x3)     # the statistics summed in NCHW order whatever the layout (same values)
        with quiet():     # an empty batch gives NaN statistics, as PyTorch's
            mean = _channel_sums(xp, s3) / count
            xc = s3 - mean.reshape(c, 1)
            xp.multiply(xc, xc, out=xc)
            var = _channel_sums(xp, xc) / count
        invstd = 1.0 / xp.sqrt(var + eps)
        if running_mean is not None:
            _update_running(running_mean, (1 - momentum) * values(running_mean, input) + momentum * mean)
        if running_var is not None:
            unbiased = var * (count / max(count - 1, 1))
            _update_running(running_var, (1 - momentum) * values(running_var, input) + momentum * unbiased)
        save_mean, save_invstd = store(mean, sd, input.device), store(invstd, sd, input.device)
    else:
        mean = values(running_mean, input)
        invstd = 1.0 / xp.sqrt(values(running_var, input) + eps)
        save_mean, save_invstd = like(input, (0,), sd), like(input, (0,), sd)
    alpha = invstd if weight is None else invstd * values(weight, input)
    beta = -mean * alpha if bias is None else values(bias, input) - mean * alpha
    y = x3 * alpha.astype(x.dtype, copy=False).reshape(c, 1)
    y += beta.astype(x.dtype, copy=False).reshape(c, 1)
    return store(y.reshape(x.shape), input._dtype, input.device), save_mean, save_invstd


def _update_running(stat, new) -> None:
    """Write a running statistic in place: straight into its array when it holds ``new``'s dtype contiguously
    (bumping its version, as ``copy_`` would), else through ``copy_``."""
    arr = stat._array() if not stat._dtype.is_narrow_float and stat.is_contiguous() else None
    if arr is not None and arr.dtype == new.dtype and arr.shape == new.shape:
        arr[...] = new
        stat._vc.value += 1
        return
    with _no_autograd():
        stat.copy_(store(new, stat._dtype, stat.device))


def _no_autograd():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def _meta_native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    c = _check_batch_norm(input, weight, bias, running_mean, running_var, training)
    sd = _stat_dtype(input)
    n = c if training else 0
    return like(input, input._size), like(input, (n,), sd), like(input, (n,), sd)


def _native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                                eps, output_mask):
    xp = xp_of(input)
    x = values(input)
    g = values(grad_out, input)
    c = input._size[1]
    stats = (("save_mean", save_mean), ("save_invstd", save_invstd)) if train else (
        ("running_mean", running_mean), ("running_var", running_var))
    for what, t in (*stats, ("weight", weight)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"native_batch_norm_backward: {what} should contain {c} elements (one per channel "
                               f"of input {list(input._size)}), got {list(t._size)}")
    if train:
        mean, invstd = values(save_mean, input), values(save_invstd, input)
    else:
        mean, invstd = values(running_mean, input), 1.0 / xp.sqrt(values(running_var, input) + eps)
    # PyTorch's CPU formulation: per channel dot(x - mean, g) and sum(g), then one fused pass for the input grad
    x3, k = _channels(x)     # in NCHW order whatever the layouts: the sums of a contiguous input's (same values)
    x3, g3 = xp.ascontiguousarray(x3), xp.ascontiguousarray(g.reshape(x3.shape))
    mean, invstd = mean.astype(x.dtype, copy=False), invstd.astype(x.dtype, copy=False)
    xc = x3 - mean.reshape(c, 1)
    sum_g = _channel_sums(xp, g3)
    dotp = _channel_sums(xp, xc * g3)
    gi = gw = gb = None
    if output_mask[0]:
        scale = invstd if weight is None else invstd * values(weight, input).astype(x.dtype, copy=False)
        if train:
            count = x3.shape[0] * k
            xp.multiply(xc, (dotp * invstd * invstd / count).reshape(c, 1), out=xc)
            a = g3 - xc
            a -= (sum_g / count).reshape(c, 1)
            a *= scale.reshape(c, 1)
        else:
            a = g3 * scale.reshape(c, 1)
        gi = store(a.reshape(x.shape), input._dtype, input.device)
    if output_mask[1]:
        gw = store(dotp * invstd, input._dtype if weight is None else weight._dtype, input.device)
    if output_mask[2]:
        gb = store(sum_g, input._dtype if weight is None else weight._dtype, input.device)
    return gi, gw, gb


def _meta_native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd,
                                     train, eps, output_mask):
    c = input._size[1]
    return (like(input, input._size) if output_mask[0] else None, like(input, (c,)) if output_mask[1] else None,
            like(input, (c,)) if output_mask[2] else None)


def _bn_needed(a) -> list:
    return [t is not None and t.requires_grad for t in (a.input, a.weight, a.bias)]


def _bn_backward(g, a):
    """Every needed input's gradient from one native_batch_norm_backward call."""
    # training uses the batch statistics only: the running ones are not read (nor version-checked), so a second
    # forward through the same module before backward (siamese networks) may update them, as in PyTorch
    running = (None, None) if a.training else (a.running_mean, a.running_var)
    return A.native_batch_norm_backward(
        g[0], a.input, a.weight, *running, a.result1, a.result2, a.training, a.eps, _bn_needed(a))


def _bn_backward_differentiable(g, a):
    """``_bn_backward`` under ``create_graph`` (PyTorch's ``batchnorm_double_backward``'s role): batch statistics
    in training, the running ones (constants) in evaluation."""
    x = a.input
    mean, invstd, shape = _bn_stats(a)
    dims = [0] + list(range(2, x.dim()))
    w = None if a.weight is None else a.weight.reshape(shape)
    needed = _bn_needed(a)
    if a.training:
        return _normalized_grads(g[0], x, mean, invstd, w, dims, dims, (x.shape[1],), needed)
    gi = gw = gb = None
    if needed[0]:
        gi = g[0] * invstd if w is None else g[0] * (invstd * w)
    if needed[1] and w is not None:
        gw = (g[0] * ((x - mean) * invstd)).sum(dims)
    if needed[2]:
        gb = g[0].sum(dims)
    return gi, gw, gb


def _bn_grad(which: int):
    def grad(g, a):
        out = None
        if g[0] is not None:
            out = once(g, a, _bn_backward_differentiable if _gm.enabled else _bn_backward, which, _bn_needed)
        if which == 0 and a.training and (g[1] is not None or g[2] is not None):
            shape = [1, a.input.shape[1]] + [1] * (a.input.dim() - 2)
            n = a.input.numel() // max(a.input.shape[1], 1)
            out = _plus(out, _stats_grad(a.input, a.result1.reshape(shape), a.result2.reshape(shape),
                                         None if g[1] is None else g[1].reshape(shape),
                                         None if g[2] is None else g[2].reshape(shape), n))
        return out
    return grad


def _bn_stats(a):
    c = a.input.shape[1]
    shape = [1, c] + [1] * (a.input.dim() - 2)
    if a.training:
        return a.result1.reshape(shape), a.result2.reshape(shape), shape
    return a.running_mean.reshape(shape), (a.running_var + a.eps).rsqrt().reshape(shape), shape


def _bn_jvp_input(t, a):
    mean, invstd, shape = _bn_stats(a)
    t_mean = t_invstd = None
    if a.training:
        dims = [0] + list(range(2, a.input.dim()))
        xhat = (a.input - mean) * invstd
        dx = (t - t.mean(dims, True) - xhat * (t * xhat).mean(dims, True)) * invstd
        t_mean = t.mean(dims)
        t_invstd = -(invstd * invstd * (xhat * t).mean(dims, True)).reshape(-1)
    else:
        dx = t * invstd
    return [dx * a.weight.reshape(shape) if a.weight is not None else dx, t_mean, t_invstd]


def _bn_jvp_weight(t, a):
    mean, invstd, shape = _bn_stats(a)
    return [(a.input - mean) * invstd * t.reshape(shape), None, None]


native_batch_norm = Op(
    "native_batch_norm",
    """
    native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"native_batch_norm": {"CompositeExplicitAutograd": _native_batch_norm, "Meta": _meta_native_batch_norm}},
    derivatives={"native_batch_norm": Deriv(
        save="input weight bias running_mean running_var training eps result1 result2", input=_bn_grad(0), weight=_bn_grad(1),
        bias=_bn_grad(2),
        jvp={"input": _bn_jvp_input, "weight": _bn_jvp_weight,
             "bias": lambda t, a: [t.reshape([1, -1] + [1] * (a.input.dim() - 2)), None, None]})},
    function=True, method=False,
    doc="""Batch normalization over every dim but 1: ``(out, save_mean, save_invstd)``; in training the running
    statistics are updated in place (unbiased variance).

    >>> import openreg
    >>> rm, rv = openreg.zeros(1), openreg.ones(1)
    >>> out, mean, invstd = openreg.ops.aten.native_batch_norm(openreg.tensor([[1.0], [3.0]]), None, None, rm, rv,
    ...                                                       True, 0.5, 0.0)
    >>> out.flatten().tolist(), mean.tolist(), rm.tolist(), rv.tolist()
    ([-1.0, 1.0], [2.0], [1.0], [1.5])
    """,
)

native_batch_norm_backward = Op(
    "native_batch_norm_backward",
    """
    native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"native_batch_norm_backward": {"CompositeExplicitAutograd": _native_batch_norm_backward,
                                            "Meta": _meta_native_batch_norm_backward}},
    function=False, method=False,
    doc="""``(grad_input, grad_weight, grad_bias)`` of ``native_batch_norm`` per ``output_mask``.

    >>> import openreg
    >>> x = openreg.tensor([[1.0], [3.0]])
    >>> _, m, s = openreg.ops.aten.native_batch_norm(x, None, None, None, None, True, 0.1, 0.0)
    >>> openreg.ops.aten.native_batch_norm_backward(openreg.ones(2, 1), x, None, None, None, m, s, True, 0.0,
    ...                                             [True, True, True])[2].tolist()
    [2.0]
    """,
)


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return A.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                                              eps)[0]


batch_norm = Op(
    "batch_norm",
    """
    batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor
    """,
    kernels={"batch_norm": {"CompositeImplicitAutograd": _batch_norm}},
    function=True, method=False,
    doc="""Batch normalization (the output of ``native_batch_norm``).

    >>> import openreg
    >>> x = openreg.tensor([[1.0], [3.0]])
    >>> openreg.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False).flatten().tolist()
    [-1.0, 1.0]
    """,
)

register(native_layer_norm, native_layer_norm_backward, layer_norm, native_group_norm, native_group_norm_backward,
         group_norm, native_batch_norm, native_batch_norm_backward, batch_norm)
