"""More pooling of ``nn.functional``: ``max_unpool1d/2d`` (the partial inverse of max pooling: the pooled values
put back at the positions ``max_pool(..., return_indices=True)`` recorded, zeros elsewhere) and ``lp_pool1d/2d``
(power-average pooling, ``(sum x^p)^(1/p)`` over each window).

>>> import openreg
>>> import openreg.nn.functional as F
>>> x = openreg.tensor([[[1.0, 5.0, 2.0, 3.0]]])
>>> y, idx = F.max_pool1d(x, 2, return_indices=True)
>>> F.max_unpool1d(y, idx, 2).tolist()
[[[0.0, 5.0, 0.0, 3.0]]]
>>> F.lp_pool1d(openreg.tensor([[[3.0, 4.0]]]), 2, 2).tolist()
[[[5.0]]]
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d"]


def _tuple(v, n: int, name: str) -> list:
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{name} must be an int or a sequence of {n} ints, got {v}")
    return v


def _unpool_output_size(input: Tensor, kernel: list, stride: list, padding: list, output_size) -> list:
    d = len(kernel)
    default = [(input.size(input.dim() - d + i) - 1) * stride[i] + kernel[i] - 2 * padding[i] for i in range(d)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == d + 2:
        output_size = output_size[2:]
    elif len(output_size) == d + 1 and input.dim() == d + 1:
        output_size = output_size[1:]
    if len(output_size) != d:
        raise ValueError(f"output_size should be a sequence containing {d} or {d + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for i in range(d):
        lo = default[i] - stride[i]
        hi = default[i] + stride[i]
        if not lo < output_size[i] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {i} must be between {lo} and {hi})')
    return output_size


def _max_unpool(input: Tensor, indices: Tensor, kernel: list, stride: list, padding: list, output_size,
                name: str) -> Tensor:
    from ..operators.factories import zeros
    d = len(kernel)
    if input.dim() not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got {list(input.shape)}")
    if indices.shape != input.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    out_spatial = _unpool_output_size(input, kernel, stride, padding, output_size)
    lead = list(input.shape[:-d])
    numel = 1
    for s in out_spatial:
        numel *= s
    src = input.reshape(*lead, -1)
    idx = indices.reshape(*lead, -1)
    if idx.numel() and (int(idx.min().item()) < 0 or int(idx.max().item()) >= numel):
        raise RuntimeError(f"Found an invalid max index: {int(idx.max().item())} (output volumes are of size "
                           f"{'x'.join(str(s) for s in out_spatial)}")
    out = zeros(*lead, numel, dtype=input.dtype, device=input.device).scatter(src.dim() - 1, idx, src)
    return out.reshape(*lead, *out_spatial)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put the values of a 1-d max pooling back at their ``indices`` (length ``output_size`` or
    ``(L - 1) * stride - 2 * padding + kernel_size``), zeros elsewhere."""
    kernel = _tuple(kernel_size, 1, "kernel_size")
    stride = _tuple(stride, 1, "stride") if stride is not None else kernel
    return _max_unpool(input, indices, kernel, stride, _tuple(padding, 1, "padding"), output_size, "max_unpool1d")


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put the values of a 2-d max pooling back at their flat ``h * W + w`` ``indices``, zeros elsewhere.

    >>> import openreg
    >>> import openreg.nn.functional as F
    >>> y, idx = F.max_pool2d(openreg.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True)
    >>> max_unpool2d(y, idx, 2)[0, 0].tolist()[1]
    [0.0, 5.0, 0.0, 7.0]
    """
    kernel = _tuple(kernel_size, 2, "kernel_size")
    stride = _tuple(stride, 2, "stride") if stride is not None else kernel
    return _max_unpool(input, indices, kernel, stride, _tuple(padding, 2, "padding"), output_size, "max_unpool2d")


def _lp_finish(out: Tensor, norm_type: float, window: int) -> Tensor:
    return (out.sign() * out.abs().relu()).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """``(sum over each window of x^p)^(1/p)`` of ``(N, C, L)`` inputs."""
    from .pooling_functional import avg_pool1d
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``(sum over each window of x^p)^(1/p)`` of ``(N, C, H, W)`` inputs.

    >>> import openreg
    >>> lp_pool2d(openreg.ones(1, 1, 2, 2), 1, 2).tolist()
    [[[[4.0]]]]
    """
    from .pooling_functional import avg_pool2d
    kh, kw = _tuple(kernel_size, 2, "kernel_size")
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)
