"""Pooling of ``nn.functional``: ``max_pool1d/2d`` (``return_indices``), ``avg_pool1d/2d``,
``adaptive_avg_pool1d/2d``.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.max_pool2d(openreg.arange(16.0).reshape(1, 1, 4, 4), 2).flatten().tolist()
[5.0, 7.0, 13.0, 15.0]
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "max_pool1d",
           "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices"]


def _pair(v) -> list:
    if v is None:
        return []
    return [v, v] if isinstance(v, int) else list(v)


def _one(v) -> int:
    return v if isinstance(v, int) else v[0]


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """2-d max pooling; with ``return_indices`` also the flat ``h * W + w`` positions of the maxima.

    >>> import openreg
    >>> out, idx = openreg.nn.functional.max_pool2d(openreg.arange(4.0).reshape(1, 2, 2), 2, return_indices=True)
    >>> out.tolist(), idx.tolist()
    ([[[3.0]]], [[[3]]])
    """
    out, idx = A.max_pool2d_with_indices(input, _pair(kernel_size), _pair(stride), _pair(padding),
                                                        _pair(dilation), ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """1-d max pooling of ``(N, C, L)`` or ``(C, L)`` inputs (2-d pooling over a height of one).

    >>> import openreg
    >>> openreg.nn.functional.max_pool1d(openreg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[3.0, 2.0]]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    s = None if stride is None or (not isinstance(stride, int) and len(stride) == 0) else [1, _one(stride)]
    out, idx = A.max_pool2d_with_indices(input.unsqueeze(-2), [1, _one(kernel_size)], s or [],
                                                        [0, _one(padding)], [1, _one(dilation)], ceil_mode)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """2-d average pooling.

    >>> import openreg
    >>> openreg.nn.functional.avg_pool2d(openreg.arange(4.0).reshape(1, 2, 2), 2).tolist()
    [[[1.5]]]
    """
    return A.avg_pool2d(input, _pair(kernel_size), _pair(stride), _pair(padding), ceil_mode,
                                       count_include_pad, divisor_override)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-d average pooling of ``(N, C, L)`` or ``(C, L)`` inputs.

    >>> import openreg
    >>> openreg.nn.functional.avg_pool1d(openreg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[2.0, 1.0]]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    s = [] if stride is None or (not isinstance(stride, int) and len(stride) == 0) else [1, _one(stride)]
    return A.avg_pool2d(input.unsqueeze(-2), [1, _one(kernel_size)], s, [0, _one(padding)],
                                       ceil_mode, count_include_pad, None).squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a fixed ``output_size`` (an int, a pair; ``None`` keeps that input size).

    >>> import openreg
    >>> openreg.nn.functional.adaptive_avg_pool2d(openreg.arange(16.0).reshape(1, 4, 4), 2).tolist()
    [[[2.5, 4.5], [10.5, 12.5]]]
    """
    size = [output_size, output_size] if isinstance(output_size, int) else list(output_size)
    size = [input.shape[-2 + i] if s is None else s for i, s in enumerate(size)]
    return A.adaptive_avg_pool2d(input, size)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` inputs to length ``output_size``.

    >>> import openreg
    >>> openreg.nn.functional.adaptive_avg_pool1d(openreg.tensor([[1.0, 3.0, 2.0, 0.0]]), 1).tolist()
    [[1.5]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    return A.adaptive_avg_pool2d(input.unsqueeze(-2), [1, _one(output_size)]).squeeze(-2)


def _adaptive_windows(n_in: int, n_out: int) -> list:
    """PyTorch's adaptive windows ``[floor(i * in / out), ceil((i + 1) * in / out))``, each padded to the widest
    by repeating its last index (a repeat never changes a maximum)."""
    spans = [(i * n_in // n_out, -(-(i + 1) * n_in // n_out)) for i in range(n_out)]
    width = max(e - s for s, e in spans)
    return [[min(s + k, e - 1) for k in range(width)] for s, e in spans]


def _adaptive_max_pool(input: Tensor, output_size: list, name: str):
    from ..tensor_from_data import tensor
    nd = len(output_size)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {d} being empty")
    x = input if nd == 2 else input.unsqueeze(-2)
    out = [int(o) if o is not None else x.shape[-2 + i] for i, o in enumerate(([1] if nd == 1 else []) + output_size)]
    h, w = x.shape[-2], x.shape[-1]
    rows, cols = _adaptive_windows(h, out[0]), _adaptive_windows(w, out[1])
    kh, kw = len(rows[0]), len(cols[0])
    lead = list(x.shape[:-2])
    win = x.index_select(-2, tensor([i for r in rows for i in r], device=x.device))
    win = win.index_select(-1, tensor([j for c in cols for j in c], device=x.device))
    win = win.reshape(lead + [out[0], kh, out[1], kw]).movedim(-3, -2).reshape(lead + [out[0], out[1], kh * kw])
    values, arg = win.max(-1)
    flat = tensor([[[r[a // kw] * w + c[a % kw] for a in range(kh * kw)] for c in cols] for r in rows],
                  device=x.device)
    indices = flat.expand(lead + [out[0], out[1], kh * kw]).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if nd == 1:
        values, indices = values.squeeze(-2), indices.squeeze(-2)
    return values, indices


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive 2-d max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` to ``output_size`` (``None`` keeps a
    size); ``return_indices`` also returns each maximum's flat ``h * W + w`` index.

    >>> import openreg
    >>> openreg.nn.functional.adaptive_max_pool2d(openreg.arange(9.0).reshape(1, 3, 3), 2).tolist()
    [[[4.0, 5.0], [7.0, 8.0]]]
    """
    size = [output_size] * 2 if isinstance(output_size, int) or output_size is None else list(output_size)
    values, indices = _adaptive_max_pool(input, size, "adaptive_max_pool2d")
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive 1-d max pooling of ``(N, C, L)`` or ``(C, L)`` to ``output_size``.

    >>> import openreg
    >>> openreg.nn.functional.adaptive_max_pool1d(openreg.tensor([[1.0, 5.0, 2.0, 0.0]]), 2).tolist()
    [[5.0, 2.0]]
    """
    size = [output_size if isinstance(output_size, int) else next(iter(output_size))]
    values, indices = _adaptive_max_pool(input, size, "adaptive_max_pool1d")
    return (values, indices) if return_indices else values


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool2d`` returning ``(values, indices)``."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool1d`` returning ``(values, indices)``."""
    return adaptive_max_pool1d(input, output_size, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """``max_pool2d`` returning ``(output, indices)``.

    >>> import openreg
    >>> out, idx = max_pool2d_with_indices(openreg.arange(4.0).reshape(1, 2, 2), 2)
    >>> idx.tolist()
    [[[3]]]
    """
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """``max_pool1d`` returning ``(output, indices)``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)
