"""``pixel_shuffle`` and ``pixel_unshuffle`` of ``nn.functional``: channels to space and back, as one reshape,
permute and reshape (differentiable through those views).

>>> import openreg
>>> openreg.nn.functional.pixel_shuffle(openreg.ones(2, 8, 3, 3), 2).shape
openreg.Size([2, 2, 6, 6])
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C * r**2, H, W)`` to ``(*, C, H * r, W * r)``: sub-pixel convolution's rearrangement.

    >>> import openreg
    >>> openreg.nn.functional.pixel_shuffle(openreg.arange(4.0).reshape(1, 4, 1, 1), 2).tolist()
    [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}")
    r = upscale_factor
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(batch)
    x = input.reshape(batch + [c // (r * r), r, r, h, w])
    x = x.permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(batch + [c // (r * r), h * r, w * r])


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H * r, W * r)`` to ``(*, C * r**2, H, W)``, the inverse of :func:`pixel_shuffle`.

    >>> import openreg
    >>> openreg.nn.functional.pixel_unshuffle(openreg.arange(4.0).reshape(1, 1, 2, 2), 2).flatten().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}")
    r = downscale_factor
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    n = len(batch)
    x = input.reshape(batch + [c, h // r, r, w // r, r])
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(batch + [c * r * r, h // r, w // r])
