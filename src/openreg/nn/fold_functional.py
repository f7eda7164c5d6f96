"""``unfold`` (im2col) and ``fold`` (col2im) of ``nn.functional``: a convolution / transposed convolution
with one one-hot kernel per window position, so both run on the convolution kernels (and differentiate through
them).

>>> import openreg
>>> openreg.nn.functional.unfold(openreg.ones(1, 2, 3, 3), 2).shape
openreg.Size([1, 8, 4])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..tensor import Tensor

__all__ = ["fold", "unfold"]


def _pair(v, name: str) -> list:
    return [v, v] if isinstance(v, int) else list(v)


def _one_hot_kernels(kernel: list, like: Tensor) -> Tensor:
    """``(kh * kw, 1, kh, kw)``: kernel ``i`` picks window position ``i``."""
    import openreg
    k = kernel[0] * kernel[1]
    return openreg.eye(k, dtype=like.dtype, device=like.device).reshape(k, 1, kernel[0], kernel[1])


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """The sliding ``kernel_size`` blocks of ``(N, C, H, W)`` (or ``(C, H, W)``) as columns:
    ``(N, C * kh * kw, L)``.

    >>> import openreg
    >>> openreg.nn.functional.unfold(openreg.arange(4.0).reshape(1, 1, 2, 2), 1).tolist()
    [[[0.0, 1.0, 2.0, 3.0]]]
    """
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    kernel = _pair(kernel_size, "kernel_size")
    n, c = x.shape[0], x.shape[1]
    cols = A.convolution(x.reshape(n * c, 1, x.shape[2], x.shape[3]), _one_hot_kernels(kernel, x),
                                        None, _pair(stride, "stride"), _pair(padding, "padding"),
                                        _pair(dilation, "dilation"), False, [0, 0], 1)
    out = cols.reshape(n, c * kernel[0] * kernel[1], cols.shape[2] * cols.shape[3])
    return out.squeeze(0) if unbatched else out


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns ``(N, C * kh * kw, L)`` back into ``(N, C, *output_size)`` (overlaps add up): the adjoint of
    :func:`unfold`.

    >>> import openreg
    >>> openreg.nn.functional.fold(openreg.ones(1, 4, 4), (3, 3), 2).squeeze().tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    out_size, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dil, pad, st = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    blocks = [(out_size[i] + 2 * pad[i] - dil[i] * (kernel[i] - 1) - 1) // st[i] + 1 for i in range(2)]
    k = kernel[0] * kernel[1]
    if x.shape[1] % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size={tuple(kernel)}")
    if x.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={tuple(out_size)}, kernel_size={tuple(kernel)}, dilation={tuple(dil)}, "
                           f"padding={tuple(pad)}, stride={tuple(st)}, expected size of input's dimension 2 to match "
                           f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={x.shape[2]}.")
    n, c = x.shape[0], x.shape[1] // k
    reached = [(blocks[i] - 1) * st[i] - 2 * pad[i] + dil[i] * (kernel[i] - 1) + 1 for i in range(2)]
    image = A.convolution(x.reshape(n * c, k, blocks[0], blocks[1]), _one_hot_kernels(kernel, x),
                                         None, st, pad, dil, True, [out_size[i] - reached[i] for i in range(2)], 1)
    out = image.reshape(n, c, out_size[0], out_size[1])
    return out.squeeze(0) if unbatched else out
