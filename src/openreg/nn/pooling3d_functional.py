"""3-d pooling of ``nn.functional``: ``max_pool3d`` (``return_indices``), ``avg_pool3d`` and
``adaptive_avg_pool3d`` over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs, composed of differentiable ops: the
windows are ``unfold`` views of the padded input, a maximum picks the first largest element of its window (its
gradient goes there alone, as in PyTorch), an average divides by PyTorch's divisor per window.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.max_pool3d(openreg.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten().tolist()
[7.0]
>>> F.avg_pool3d(openreg.arange(8.0).reshape(1, 2, 2, 2), 2).flatten().tolist()
[3.5]
"""
from __future__ import annotations

import numpy as np

from ..amp.composite import autocast_composite
from ..tensor import Tensor

__all__ = ["adaptive_avg_pool3d", "avg_pool3d", "max_pool3d", "max_pool3d_with_indices"]


def _triple(name: str, v, default=None) -> list:
    if v is None or (not isinstance(v, int) and len(v) == 0):
        return default
    if isinstance(v, int):
        return [v] * 3
    v = list(v)
    if len(v) == 1:
        return v * 3
    if len(v) != 3:
        raise RuntimeError(f"{name}: {name.split('_')[0]} must either be a single int, or a tuple of three ints")
    return v


def _plan(op: str, input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool):
    """Checked kernel/stride/padding/dilation and output sizes, as PyTorch's pooling shape checks."""
    k = _triple(f"{op}: kernel_size", kernel_size)
    s = _triple(f"{op}: stride", stride, k)
    p = _triple(f"{op}: padding", padding)
    d = _triple(f"{op}: dilation", dilation)
    if input.dim() not in (4, 5) or any(n == 0 for n in input.shape[-4:]):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero")
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero")
    for i in range(3):
        if p[i] > (d[i] * (k[i] - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    size = list(input.shape[-3:])
    out = []
    for i in range(3):
        span = size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1
        n = (-(-span // s[i]) if ceil_mode else span // s[i]) + 1
        if ceil_mode and (n - 1) * s[i] >= size[i] + p[i]:
            n -= 1          # the last window must start inside the input or its left padding
        out.append(n)
    return k, s, p, d, size, out


def _windows(x: Tensor, k, s, p, d, size, out, fill) -> Tensor:
    """``(..., oD, oH, oW, kD * kH * kW)``: the dilated windows of ``x`` padded with ``fill``."""
    from .padding_functional import pad
    right = [max(0, (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - size[i] - p[i]) for i in range(3)]
    if any(p) or any(right):
        x = pad(x, [p[2], right[2], p[1], right[1], p[0], right[0]], value=fill)
    nd = x.dim()
    for i in range(3):
        x = x.unfold(nd - 3 + i, d[i] * (k[i] - 1) + 1, s[i])
    if any(v > 1 for v in d):
        x = x[..., ::d[0], ::d[1], ::d[2]]
    # unfold leaves the window dims last: (..., oD, oH, oW, kD, kH, kW)
    x = x[..., :out[0], :out[1], :out[2], :, :, :]
    return x.reshape(tuple(x.shape[:-3]) + (k[0] * k[1] * k[2],))


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """3-d max pooling; with ``return_indices`` also the flat ``(d * H + h) * W + w`` position of each maximum.

    >>> import openreg
    >>> out, idx = openreg.nn.functional.max_pool3d(openreg.arange(8.0).reshape(1, 2, 2, 2), 2,
    ...                                             return_indices=True)
    >>> out.tolist(), idx.tolist()
    ([[[[7.0]]]], [[[[7]]]])
    """
    from ..tensor_from_data import tensor
    k, s, p, d, size, out = _plan("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode)
    if min(out) <= 0:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, input.shape[-4:]))}). Calculated output size: "
                           f"({input.shape[-4]}x{'x'.join(map(str, out))}). Output size is too small")
    if input.dtype.is_floating_point:
        fill = float("-inf")
    else:
        from ..type_info import iinfo
        fill = iinfo(input.dtype).min
    values, arg = _windows(input, k, s, p, d, size, out, fill).max(-1)
    if not return_indices:
        return values
    # flat input position of each window element, per output position (the padding never wins a window)
    offs = np.array([[[(a * d[0], b * d[1], c * d[2]) for c in range(k[2])] for b in range(k[1])]
                     for a in range(k[0])]).reshape(-1, 3)
    starts = [np.arange(out[i]) * s[i] - p[i] for i in range(3)]
    pos = [starts[i].reshape([-1 if j == i else 1 for j in range(3)] + [1]) + offs[:, i] for i in range(3)]
    flat = (pos[0] * size[1] + pos[1]) * size[2] + pos[2]
    table = tensor(flat.astype(np.int64), device=input.device)
    indices = table.expand(tuple(arg.shape) + (table.shape[-1],)).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    return values, indices


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = True):
    """``max_pool3d`` returning ``(output, indices)``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


@autocast_composite("avg_pool3d")
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """3-d average pooling; ``count_include_pad`` counts the zero padding inside a window, ``divisor_override``
    replaces the divisor.

    >>> import openreg
    >>> openreg.nn.functional.avg_pool3d(openreg.ones(1, 1, 2, 2, 2), 2, padding=1).flatten().tolist()
    [0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125]
    """
    from ..tensor_from_data import tensor
    k, s, p, _, size, out = _plan("avg_pool3d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if min(out) <= 0:
        raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than kernel size (kT: "
                           f"{k[0]} kH: {k[1]} kW: {k[2]})")
    total = _windows(input, k, s, p, [1, 1, 1], size, out, 0).sum(-1)
    if divisor_override is not None:
        div = np.full(out, float(divisor_override))
    else:
        counts = []
        for i in range(3):
            start = np.arange(out[i]) * s[i] - p[i]
            end = np.minimum(start + k[i], size[i] + p[i])
            if count_include_pad:
                counts.append(end - start)
            else:
                counts.append(np.minimum(end, size[i]) - np.maximum(start, 0))
        div = counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]
    div_t = tensor(div.astype(np.float64), device=input.device)
    if input.dtype.is_floating_point:
        return total / div_t.to(total.dtype)
    return total.div(div_t.to(total.dtype), rounding_mode="trunc")


@autocast_composite("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a fixed ``output_size`` (an int or three; ``None`` keeps that input size), over PyTorch's
    windows ``[floor(i * in / out), ceil((i + 1) * in / out))``.

    >>> import openreg
    >>> openreg.nn.functional.adaptive_avg_pool3d(openreg.arange(8.0).reshape(1, 2, 2, 2), 1).flatten().tolist()
    [3.5]
    """
    from .pooling_functional import adaptive_avg_pool2d
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with dimension {i} being empty")
    sizes = [output_size] * 3 if isinstance(output_size, int) or output_size is None else list(output_size)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    sizes = [input.shape[-3 + i] if v is None else int(v) for i, v in enumerate(sizes)]
    lead = tuple(input.shape[:-3])
    depth, h, w = input.shape[-3:]
    planes = adaptive_avg_pool2d(input.reshape((-1, depth, h, w)), sizes[1:])   # (lead, D, oH, oW)
    from .. import stack
    slabs = [planes[:, i * depth // sizes[0]: -(-(i + 1) * depth // sizes[0])].mean(1) for i in range(sizes[0])]
    return stack(slabs, 1).reshape(lead + tuple(sizes))
