"""2-d pooling: ``max_pool2d_with_indices`` (+ backward), ``avg_pool2d`` (+ backward), ``_adaptive_avg_pool2d``
(+ backward) and the composites ``max_pool2d`` / ``adaptive_avg_pool2d``.

Windows are strided views of the padded input (padding with -inf for max, zeros for average, extended on the right
for ``ceil_mode``); max pooling compares the view's kernel offsets as whole arrays and returns PyTorch's indices
(flat ``h * W + w`` positions in the unpadded plane), its
backward scatter-adds the gradient there; the average backward is one strided add per kernel offset; adaptive
average pooling is two small averaging matrices (``A_h @ x @ A_w^T``).

>>> import openreg
>>> x = openreg.arange(16.0).reshape(1, 1, 4, 4)
>>> out, idx = openreg.ops.aten.max_pool2d_with_indices(x, [2, 2])
>>> out.flatten().tolist(), idx.flatten().tolist()
([5.0, 7.0, 13.0, 15.0], [5, 7, 13, 15])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ._compute import pad_constant, select
from ._nn_arrays import (
    channels_last_input,
    in_channels_last,
    like,
    same_float_dtype,
    store,
    values,
    windows,
    xp_of,
)
from ._record import Deriv, Op, register


def _pair(op: str, name: str, value, default=None) -> tuple:
    value = tuple(value) if value is not None else ()
    if not value and default is not None:
        return tuple(default)
    if len(value) == 1:
        return value * 2
    if len(value) != 2:
        what = "must either be omitted, a single int, or a tuple of two ints" if name == "stride" else \
            "must either be a single int, or a tuple of two ints"
        raise RuntimeError(f"{op}: {name} {what}")
    return value


def pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling_output_shape: floor or ceil, and the last window must start inside input + left pad."""
    out = (size + 2 * p - d * (k - 1) - 1 + ((s - 1) if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_pool(op: str, self, kernel_size, stride, padding, dilation, ceil_mode, max_pool: bool):
    k = _pair(op, "kernel_size", kernel_size)
    s = _pair(op, "stride", stride, default=k)
    p = _pair(op, "padding", padding)
    d = _pair(op, "dilation", dilation)
    if self.dim() not in (3, 4) or any(n == 0 for n in self._size[-3:]):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    for i in range(2):
        if max_pool and p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
        if not max_pool and p[i] > k[i] // 2:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                               f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    c, h, w = self._size[-3:]
    out = (pool_out_size(h, k[0], s[0], p[0], d[0], ceil_mode), pool_out_size(w, k[1], s[1], p[1], d[1], ceil_mode))
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
                           f"Output size is too small")
    return k, s, p, d, out


def _windows(xp, x, device, k, s, p, d, out, fill):
    """``(B, oH, oW, kH, kW)`` windows of ``x`` ``(B, H, W)`` padded with ``fill``."""
    pads = []
    for i in range(2):
        need = (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1
        pads.append((p[i], max(need - x.shape[1 + i] - p[i], 0)))
    if any(a or b for a, b in pads):
        x = pad_constant(xp, x, [(0, 0)] + pads, fill)
    x = xp.ascontiguousarray(x)
    b, hp, wp = x.shape
    return windows(x, device, (b, out[0], out[1], k[0], k[1]),
                   (hp * wp, wp * s[0], s[1], wp * d[0], d[1]))


def _window_max(xp, win, floating: bool):
    """``(max, flat kernel offset of the max)`` over the ``(kH, kW)`` window axes of ``win``: one whole-array
    compare per kernel offset of the strided view (no window copy); the first maximum wins, and NaN wins over
    numbers (the first NaN), as in PyTorch."""
    kh, kw = win.shape[-2:]
    best = win[..., 0, 0].copy()
    arg = xp.zeros(best.shape, dtype=xp.int64)
    for offset in range(1, kh * kw):
        v = win[..., offset // kw, offset % kw]
        better = v > best
        if floating:
            better |= xp.isnan(v) & ~xp.isnan(best)
        best = select(xp, better, v, best, any_layout=True)
        arg = select(xp, better, xp.asarray(offset, dtype=arg.dtype), arg, any_layout=True)
    return best, arg


def _window_sum(win):
    """The sums over the ``(kH, kW)`` window axes of ``win``: one whole-array add per kernel offset of the strided
    view, in row-major window order as PyTorch's kernel adds (NumPy's reduce over two tiny strided axes took ~15x
    longer, in an order that depended on the shapes)."""
    kh, kw = win.shape[-2:]
    total = win[..., 0, 0].copy()
    for offset in range(1, kh * kw):
        total += win[..., offset // kw, offset % kw]
    return total


def _planes(self):
    """The input as ``(N*C, H, W)`` computation values and its leading shape."""
    x = values(self)
    return x.reshape((-1,) + tuple(self._size[-2:])), tuple(self._size[:-2])


def _window_max_indices(xp, win, width, s, p, d, out):
    """``(max, flat input index of the max)`` over the ``(kH, kW)`` windows of ``win`` for NaN-free input: each
    kernel offset's plane copied once to contiguous memory, the maxima by ``maximum`` over the planes, and the
    first offset holding the maximum counted in bytes (``nf`` stays set while no plane so far equals it). About
    2.5x fewer passes than comparing and selecting per offset; the maxima equal those (up to the sign of a zero
    tie)."""
    kh, kw = win.shape[-2:]
    planes = [xp.ascontiguousarray(win[..., i, j]) for i in range(kh) for j in range(kw)]
    best = planes[0]
    for v in planes[1:]:
        best = xp.maximum(best, v)
    nf = planes[0] != best
    first = nf.astype(xp.uint8)
    for v in planes[1:-1]:
        nf &= v != best
        first += nf
    offsets = xp.asarray([i * d[0] * width + j * d[1] for i in range(kh) for j in range(kw)], dtype=xp.int64)
    corner = (xp.arange(out[0]).reshape(-1, 1) * s[0] - p[0]) * width + xp.arange(out[1]).reshape(1, -1) * s[1] \
        - p[1]
    return best, offsets.take(first) + corner


# -- max pooling ---------------------------------------------------------------------------------------------

def _max_pool2d_with_indices(self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    k, s, p, d, out = _check_pool("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode, True)
    if self._dtype is _dt.bool:
        raise NotImplementedError("\"max_pool2d\" not implemented for 'Bool'")
    xp = xp_of(self)
    x, lead = _planes(self)
    fill = float("-inf") if x.dtype.kind == "f" else int(xp.iinfo(x.dtype).min)
    win = _windows(xp, x, self.device, k, s, p, d, out, fill)
    if k[0] * k[1] <= 255 and not (x.dtype.kind == "f" and bool(xp.isnan(x).any())):
        vals, idx = _window_max_indices(xp, win, self._size[-1], s, p, d, out)
    else:   # NaN wins over numbers (the first NaN), as in PyTorch
        vals, arg = _window_max(xp, win, x.dtype.kind == "f")
        rows = xp.arange(out[0]).reshape(-1, 1) * s[0] - p[0] + (arg // k[1]) * d[0]
        cols = xp.arange(out[1]).reshape(1, -1) * s[1] - p[1] + (arg % k[1]) * d[1]
        idx = (rows * self._size[-1] + cols).astype(xp.int64)
    vals, idx = vals.reshape(lead + out), idx.reshape(lead + out)
    if channels_last_input(self):      # PyTorch's results take the input's suggested memory format
        vals, idx = in_channels_last(xp, vals), in_channels_last(xp, idx)
    return store(vals, self._dtype, self.device), store(idx, _dt.int64, self.device)


def _meta_max_pool2d_with_indices(self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    *_, out = _check_pool("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode, True)
    size, cl = tuple(self._size[:-2]) + out, channels_last_input(self)
    return like(self, size, channels_last=cl), like(self, size, _dt.int64, channels_last=cl)


def _max_pool2d_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    from ._scatter import accumulate_at
    k, s, _, d, _ = _check_pool("max_pool2d_with_indices_backward", self, kernel_size, stride, padding, dilation,
                                ceil_mode, True)
    xp = xp_of(self)
    g = values(grad_output, self)
    planes = 1
    for n in self._size[:-2]:
        planes *= n
    hw = self._size[-1] * self._size[-2]
    gi = xp.zeros((planes, hw), dtype=g.dtype)
    idx = values(indices, self).reshape(planes, -1)
    if all(s[i] >= d[i] * (k[i] - 1) + 1 for i in range(2)):
        # windows do not overlap: every index is written once (one flat index array: a 2-d key costs ~1.7x)
        gi.reshape(-1)[(idx + (xp.arange(planes) * hw).reshape(-1, 1)).reshape(-1)] = g.reshape(-1)
    else:
        key = (xp.arange(planes).reshape(-1, 1), idx)
        accumulate_at(xp, gi, key, g.reshape(planes, -1), _dt.from_numpy(gi.dtype))
    return _store_like_input(xp, gi.reshape(tuple(self._size)), self)


def _store_like_input(xp, arr, self):
    """A gradient with respect to ``self`` in ``self``'s suggested memory format, as PyTorch's pooling backward."""
    return store(in_channels_last(xp, arr) if channels_last_input(self) else arr, self._dtype, self.device)


def _meta_max_pool2d_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return like(self, self._size, channels_last=channels_last_input(self))


def _max_pool_grad(g, a):
    return A.max_pool2d_with_indices_backward(
        g[0], a.self, a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode, a.result1)


def _max_pool_jvp(t, a):
    idx = a.result1
    return [t.flatten(-2).gather(-1, idx.flatten(-2)).view(tuple(idx.shape)), None]   # no tangent for indices


max_pool2d_with_indices = Op(
    "max_pool2d_with_indices",
    """
    max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)  [core]
    """,
    kernels={"max_pool2d_with_indices": {"CompositeExplicitAutograd": _max_pool2d_with_indices,
                                         "Meta": _meta_max_pool2d_with_indices}},
    derivatives={"max_pool2d_with_indices": Deriv(
        save="self kernel_size stride padding dilation ceil_mode result1", self=_max_pool_grad,
        jvp={"self": _max_pool_jvp})},
    function=False, method=False,
    doc="""2-d max pooling returning the values and the flat ``h * W + w`` index of each maximum.

    >>> import openreg
    >>> out, idx = openreg.ops.aten.max_pool2d_with_indices(openreg.tensor([[[1.0, 4.0], [3.0, 2.0]]]), [2, 2])
    >>> out.tolist(), idx.tolist()
    ([[[4.0]]], [[[1]]])
    """,
)

max_pool2d_with_indices_backward = Op(
    "max_pool2d_with_indices_backward",
    """
    max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor  [core]
    """,
    kernels={"max_pool2d_with_indices_backward": {"CompositeExplicitAutograd": _max_pool2d_backward,
                                                  "Meta": _meta_max_pool2d_backward}},
    derivatives={"max_pool2d_with_indices_backward": Deriv(
        save="indices", linear=True, grad_output=lambda gg, a: gg.flatten(-2).gather(-1, a.indices.flatten(-2)).view(
            tuple(a.indices.shape)))},
    function=False, method=False,
    doc="""The gradient of ``max_pool2d_with_indices``: ``grad_output`` added at ``indices``.

    >>> import openreg
    >>> x = openreg.tensor([[[1.0, 4.0], [3.0, 2.0]]])
    >>> openreg.ops.aten.max_pool2d_with_indices_backward(openreg.ones(1, 1, 1), x, [2, 2], [2, 2], [0, 0], [1, 1],
    ...                                                   False, openreg.tensor([[[1]]])).tolist()
    [[[0.0, 1.0], [0.0, 0.0]]]
    """,
)


def _max_pool2d(self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    return A.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


max_pool2d = Op(
    "max_pool2d",
    """
    max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor
    """,
    kernels={"max_pool2d": {"CompositeImplicitAutograd": _max_pool2d}},
    function=True, method=False,
    doc="""2-d max pooling (values only).

    >>> import openreg
    >>> openreg.ops.aten.max_pool2d(openreg.arange(4.0).reshape(1, 2, 2), [2, 2]).tolist()
    [[[3.0]]]
    """,
)


# -- average pooling -----------------------------------------------------------------------------------------

def _divisors(xp, size, k, s, p, out, count_include_pad):
    start = xp.arange(out) * s - p
    end = xp.minimum(start + k, size + p)
    full = end - start
    return full if count_include_pad else xp.minimum(end, size) - xp.maximum(start, 0)


def _avg_divisor(xp, self, k, s, p, out, count_include_pad, divisor_override):
    if divisor_override:
        return float(divisor_override)
    dh = _divisors(xp, self._size[-2], k[0], s[0], p[0], out[0], count_include_pad)
    dw = _divisors(xp, self._size[-1], k[1], s[1], p[1], out[1], count_include_pad)
    return dh.reshape(-1, 1) * dw.reshape(1, -1)


def _check_avg(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return _check_pool("avg_pool2d", self, kernel_size, stride, padding, (1,), ceil_mode, False)


def _avg_pool2d(self, kernel_size, stride=(), padding=(0,), ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    k, s, p, d, out = _check_avg(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    same_float_dtype("avg_pool2d", self)
    xp = xp_of(self)
    x, lead = _planes(self)
    total = _window_sum(_windows(xp, x, self.device, k, s, p, d, out, 0))
    y = (total / _avg_divisor(xp, self, k, s, p, out, count_include_pad, divisor_override)).reshape(lead + out)
    return store(in_channels_last(xp, y) if channels_last_input(self) else y, self._dtype, self.device)


def _meta_avg_pool2d(self, kernel_size, stride=(), padding=(0,), ceil_mode=False, count_include_pad=True,
                     divisor_override=None):
    *_, out = _check_avg(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    same_float_dtype("avg_pool2d", self)
    return like(self, tuple(self._size[:-2]) + out, channels_last=channels_last_input(self))


def _avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override):
    k, s, p, _, out = _check_avg(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    xp = xp_of(self)
    g = values(grad_output, self).reshape((-1,) + out)
    share = g / _avg_divisor(xp, self, k, s, p, out, count_include_pad, divisor_override)
    h, w = self._size[-2:]
    hp = max((out[0] - 1) * s[0] + k[0], h + p[0]) + p[0]
    wp = max((out[1] - 1) * s[1] + k[1], w + p[1]) + p[1]
    gpad = xp.zeros((share.shape[0], hp, wp), dtype=share.dtype)
    for i in range(k[0]):                # one strided add per kernel offset
        for j in range(k[1]):
            gpad[:, i:i + s[0] * (out[0] - 1) + 1:s[0], j:j + s[1] * (out[1] - 1) + 1:s[1]] += share
    gi = gpad[:, p[0]:p[0] + h, p[1]:p[1] + w]
    return _store_like_input(xp, gi.reshape(tuple(self._size)), self)


def _meta_avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override):
    _check_avg(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    return like(self, self._size, channels_last=channels_last_input(self))


_AVG_ARGS = "kernel_size stride padding ceil_mode count_include_pad divisor_override"


def _avg_args(a):
    return (a.kernel_size, a.stride, a.padding, a.ceil_mode, a.count_include_pad, a.divisor_override)


avg_pool2d = Op(
    "avg_pool2d",
    """
    avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor  [core]
    """,
    kernels={"avg_pool2d": {"CompositeExplicitAutograd": _avg_pool2d, "Meta": _meta_avg_pool2d}},
    derivatives={"avg_pool2d": Deriv(
        save=f"self {_AVG_ARGS}", self=lambda g, a: A.avg_pool2d_backward(g, a.self, *_avg_args(a)),
        jvp={"self": lambda t, a: A.avg_pool2d(t, *_avg_args(a))})},
    function=False, method=False,
    doc="""2-d average pooling (``count_include_pad``, ``divisor_override``, ``ceil_mode`` as PyTorch).

    >>> import openreg
    >>> openreg.ops.aten.avg_pool2d(openreg.ones(1, 2, 2), [2, 2], [], [1, 1], False, False).tolist()
    [[[1.0, 1.0], [1.0, 1.0]]]
    """,
)

avg_pool2d_backward = Op(
    "avg_pool2d_backward",
    """
    avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor  [core]
    """,
    kernels={"avg_pool2d_backward": {"CompositeExplicitAutograd": _avg_pool2d_backward,
                                     "Meta": _meta_avg_pool2d_backward}},
    derivatives={"avg_pool2d_backward": Deriv(
        save=_AVG_ARGS, linear=True, grad_output=lambda gg, a: A.avg_pool2d(gg, *_avg_args(a)))},
    function=False, method=False,
    doc="""The gradient of ``avg_pool2d``.

    >>> import openreg
    >>> openreg.ops.aten.avg_pool2d_backward(openreg.ones(1, 1, 1), openreg.ones(1, 2, 2), [2, 2], [2, 2], [0, 0],
    ...                                       False, True, None).tolist()
    [[[0.25, 0.25], [0.25, 0.25]]]
    """,
)


# -- adaptive average pooling --------------------------------------------------------------------------------

def _adaptive_matrix(xp, size: int, out: int, dtype):
    """``(out, size)``: row ``i`` averages input positions ``floor(i*size/out)`` .. ``ceil((i+1)*size/out) - 1``."""
    i = xp.arange(out).reshape(-1, 1)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    pos = xp.arange(size).reshape(1, -1)
    return ((pos >= start) & (pos < end)).astype(dtype) / (end - start).astype(dtype)


def _check_adaptive(self, output_size):
    if self.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(self._size)}")
    for i in range(1, self.dim()):
        if self._size[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(self._size)} with dimension {i} being empty")
    out = tuple(output_size)
    if len(out) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if out[0] < 0 or out[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{out[0]}, {out[1]}}}")
    return out


def _adaptive_avg_pool2d_impl(self, output_size):
    out = _check_adaptive(self, output_size)
    same_float_dtype("adaptive_avg_pool2d", self)
    xp = xp_of(self)
    x = values(self)
    ah = _adaptive_matrix(xp, self._size[-2], out[0], x.dtype)
    aw = _adaptive_matrix(xp, self._size[-1], out[1], x.dtype)
    y = xp.matmul(xp.matmul(ah, x), aw.T)
    return store(in_channels_last(xp, y) if channels_last_input(self) else y, self._dtype, self.device)


def _meta_adaptive(self, output_size):
    out = _check_adaptive(self, output_size)
    return like(self, tuple(self._size[:-2]) + out, channels_last=channels_last_input(self))


def _adaptive_backward(grad_output, self):
    xp = xp_of(self)
    g = values(grad_output, self)
    ah = _adaptive_matrix(xp, self._size[-2], g.shape[-2], g.dtype)
    aw = _adaptive_matrix(xp, self._size[-1], g.shape[-1], g.dtype)
    return _store_like_input(xp, xp.matmul(xp.matmul(ah.T, g), aw), self)


_adaptive_avg_pool2d = Op(
    "_adaptive_avg_pool2d",
    """
    _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor  [core]
    """,
    kernels={"_adaptive_avg_pool2d": {"CompositeExplicitAutograd": _adaptive_avg_pool2d_impl,
                                      "Meta": _meta_adaptive}},
    derivatives={"_adaptive_avg_pool2d": Deriv(
        save="self output_size", self=lambda g, a: A._adaptive_avg_pool2d_backward(g, a.self),
        jvp={"self": lambda t, a: A._adaptive_avg_pool2d(t, a.output_size)})},
    function=False, method=False,
    doc="""Adaptive 2-d average pooling to ``output_size``.

    >>> import openreg
    >>> openreg.ops.aten._adaptive_avg_pool2d(openreg.arange(4.0).reshape(1, 2, 2), [1, 1]).tolist()
    [[[1.5]]]
    """,
)

_adaptive_avg_pool2d_backward = Op(
    "_adaptive_avg_pool2d_backward",
    """
    _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor  [core]
    """,
    kernels={"_adaptive_avg_pool2d_backward": {"CompositeExplicitAutograd": _adaptive_backward,
                                               "Meta": lambda grad_output, self: like(
                                                   self, self._size, channels_last=channels_last_input(self))}},
    derivatives={"_adaptive_avg_pool2d_backward": Deriv(
        save="grad_output", linear=True, grad_output=lambda gg, a: A._adaptive_avg_pool2d(
            gg, list(a.grad_output.shape[-2:])))},
    function=False, method=False,
    doc="""The gradient of ``_adaptive_avg_pool2d``.

    >>> import openreg
    >>> openreg.ops.aten._adaptive_avg_pool2d_backward(openreg.ones(1, 1, 1), openreg.ones(1, 2, 2)).tolist()
    [[[0.25, 0.25], [0.25, 0.25]]]
    """,
)


def _adaptive_avg_pool2d_composite(self, output_size):
    out = tuple(output_size)
    if out == (1, 1) and self.dim() in (3, 4):     # global average pooling: one mean, as PyTorch
        if not channels_last_input(self):
            return self.mean([-2, -1], keepdim=True)
        # summed in NCHW order (a contiguous input's values), with the channels_last strides of 1x1 planes as PyTorch
        n, c = self._size[:2]
        return self.contiguous().mean([-2, -1], keepdim=True).as_strided((n, c, 1, 1), (c, 1, c, c))
    return A._adaptive_avg_pool2d(self, list(out))


adaptive_avg_pool2d = Op(
    "adaptive_avg_pool2d",
    """
    adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
    """,
    kernels={"adaptive_avg_pool2d": {"CompositeImplicitAutograd": _adaptive_avg_pool2d_composite}},
    function=False, method=False,
    doc="""Adaptive 2-d average pooling (global pooling to 1x1 is a mean).

    >>> import openreg
    >>> openreg.ops.aten.adaptive_avg_pool2d(openreg.arange(4.0).reshape(1, 2, 2), [1, 2]).tolist()
    [[[1.0, 2.0]]]
    """,
)

register(max_pool2d_with_indices, max_pool2d_with_indices_backward, max_pool2d, avg_pool2d, avg_pool2d_backward,
         _adaptive_avg_pool2d, _adaptive_avg_pool2d_backward, adaptive_avg_pool2d)
