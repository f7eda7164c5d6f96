"""``fractional_max_pool2d`` (Graham, "Fractional Max-Pooling"): max pooling to an output size that need not divide
the input, over ``kernel_size`` windows starting at pseudo-random positions drawn per sample and channel (two
numbers in [0, 1) each, ``_random_samples``, else ``rand``), as PyTorch's kernel places them: for ``i <
out - 1`` the start is ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - k) / (out - 1)`` computed in
the input's dtype, the last window ends at the input's edge; the first sample is for the width, the second for the
height. The windows are gathered with tensor operators, so it is differentiable and runs on every device.

>>> import openreg
>>> from openreg.nn import functional as F
>>> x = openreg.arange(64.0).reshape(1, 1, 8, 8)
>>> F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=openreg.zeros(1, 1, 2)).tolist()
[[[[9.0, 12.0, 15.0], [33.0, 36.0, 39.0], [57.0, 60.0, 63.0]]]]
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]


def _pair(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def _starts(samples: np.ndarray, size: int, out: int, k: int) -> np.ndarray:
    """Window starts, ``(..., out)``, for the samples ``(...)`` (PyTorch's generate_intervals, in their dtype)."""
    starts = np.empty(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        alpha = samples.dtype.type(size - k) / samples.dtype.type(out - 1)
        i = np.arange(out - 1, dtype=samples.dtype)
        u = samples[..., None]
        starts[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out > 0:
        starts[..., -1] = size - k
    return starts


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Tensor | None = None):
    """``(output, indices)`` of ``fractional_max_pool2d``; indices are flat positions in each input plane."""
    import openreg
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _pair(output_ratio)
        output_size = [int(input.shape[-2] * ratio[0]), int(input.shape[-1] * ratio[1])]
    kh, kw = _pair(kernel_size)
    oh, ow = _pair(output_size)
    if input.dim() not in (3, 4):
        raise RuntimeError(f"fractional_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    if oh + kh - 1 > h:
        raise RuntimeError(f"fractional_max_pool2d(): pool height {kh} too large relative to input height {h}")
    if ow + kw - 1 > w:
        raise RuntimeError(f"fractional_max_pool2d(): pool width {kw} too large relative to input width {w}")
    if _random_samples is None:
        _random_samples = openreg.rand(n, c, 2, dtype=input.dtype, device=input.device)
    samples = np.asarray(_random_samples.detach().cpu().tolist(), dtype=input.dtype.numpy).reshape(n, c, 2)
    rows = _starts(samples[..., 1], h, oh, kh)[:, :, :, None, None, None] + np.arange(kh)[:, None]
    cols = _starts(samples[..., 0], w, ow, kw)[:, :, None, :, None, None] + np.arange(kw)[None, :]
    flat = (rows * w + cols).reshape(n, c, oh, ow, kh * kw)
    index = openreg.tensor(flat.reshape(n, c, -1).tolist() if flat.size else flat.reshape(n, c, 0).tolist(),
                           dtype=openreg.int64, device=input.device)
    windows = x.reshape(n, c, h * w).gather(2, index).reshape(n, c, oh, ow, kh * kw)
    out, which = windows.max(-1)
    indices = index.reshape(n, c, oh, ow, kh * kw).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    if input.dim() == 3:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` inputs (see the module); with
    ``return_indices`` also the flat positions of the maxima."""
    out, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                                      _random_samples)
    return (out, indices) if return_indices else out


def _triple(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v, v)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Tensor | None = None):
    """``(output, indices)`` of ``fractional_max_pool3d`` (samples in (T, H, W) order, as PyTorch's kernel)."""
    import openreg
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _triple(output_ratio)
        output_size = [int(input.shape[-3 + d] * ratio[d]) for d in range(3)]
    k, o = _triple(kernel_size), _triple(output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    x = input if input.dim() == 5 else input.unsqueeze(0)
    n, c = x.shape[:2]
    size = tuple(x.shape[2:])
    for d, name in enumerate(("time", "height", "width")):
        if o[d] + k[d] - 1 > size[d]:
            raise RuntimeError(f"fractional_max_pool3d_out(): pool {name} {k[d]} too large relative to input "
                               f"{name} {size[d]}")
    if _random_samples is None:
        _random_samples = openreg.rand(n, c, 3, dtype=input.dtype, device=input.device)
    samples = np.asarray(_random_samples.detach().cpu().tolist(), dtype=input.dtype.numpy).reshape(n, c, 3)
    t0 = _starts(samples[..., 0], size[0], o[0], k[0])[:, :, :, None, None, None, None, None]
    h0 = _starts(samples[..., 1], size[1], o[1], k[1])[:, :, None, :, None, None, None, None]
    w0 = _starts(samples[..., 2], size[2], o[2], k[2])[:, :, None, None, :, None, None, None]
    kt, kh, kw = (np.arange(k[0])[:, None, None], np.arange(k[1])[None, :, None], np.arange(k[2])[None, None, :])
    flat = ((t0 + kt) * size[1] + (h0 + kh)) * size[2] + (w0 + kw)
    window = k[0] * k[1] * k[2]
    index = openreg.tensor(flat.reshape(n, c, -1).tolist(), dtype=openreg.int64, device=input.device)
    windows = x.reshape(n, c, -1).gather(2, index).reshape(n, c, *o, window)
    out, which = windows.max(-1)
    indices = index.reshape(n, c, *o, window).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    if input.dim() == 4:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)`` inputs; with ``return_indices`` also the
    flat positions of the maxima."""
    out, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                                      _random_samples)
    return (out, indices) if return_indices else out
