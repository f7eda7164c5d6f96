"""Spatial transformers of ``nn.functional``: ``affine_grid`` (the sampling grid of a batch of affine matrices) and
``grid_sample`` (bilinear or nearest sampling of 4-D and 5-D inputs at grid points, padding modes ``zeros``,
``border`` and ``reflection``, ``align_corners``), written with differentiable tensor ops so gradients reach both
the input and the grid, on every device.

>>> import openreg
>>> import openreg.nn.functional as F
>>> theta = openreg.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
>>> x = openreg.arange(4.0).reshape(1, 1, 2, 2)
>>> grid = F.affine_grid(theta, [1, 1, 2, 2], align_corners=False)
>>> F.grid_sample(x, grid, align_corners=False).flatten().tolist()  # the identity transform
[0.0, 1.0, 2.0, 3.0]
"""
from __future__ import annotations

import itertools
import warnings

from .._dispatch.ops import A
from ..amp.composite import autocast_composite
from ..tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
                  "details.")


def _linspace_from_neg_one(like: Tensor, num_steps: int, align_corners: bool) -> Tensor:
    from ..operators.factories import linspace, zeros
    if num_steps <= 1:
        return zeros(1, dtype=like.dtype, device=like.device)
    r = linspace(-1, 1, num_steps, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (num_steps - 1) / num_steps


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``) grid of normalized source coordinates that the affine matrices
    ``theta`` (``(N, 2, 3)`` or ``(N, 3, 4)``) map each output pixel of ``size`` to; differentiable in ``theta``.

    >>> import openreg
    >>> g = affine_grid(openreg.tensor([[[1.0, 0.0, 0.5], [0.0, 1.0, 0.0]]]), [1, 1, 1, 2], align_corners=False)
    >>> g.tolist()
    [[[[0.0, 0.0], [1.0, 0.0]]]]
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    from ..operators.factories import ones
    n, d = size[0], len(spatial)
    # base[..., k] is the coordinate along spatial dim d-1-k (x: the last dim first), then a column of ones
    columns = []
    for k in range(d):
        axis = d - 1 - k
        shape = [1] * d
        shape[axis] = spatial[axis]
        columns.append(_linspace_from_neg_one(theta, spatial[axis], align_corners).reshape(shape).expand(*spatial))
    columns.append(ones(spatial, dtype=theta.dtype, device=theta.device))
    base = A.stack(columns, -1).reshape(1, -1, d + 1).expand(n, -1, d + 1)
    return base.bmm(theta.transpose(1, 2)).reshape(n, *spatial, d)


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.remainder(span)
    flips = (coord / span).floor()
    return (extra + low).where(flips.remainder(2) == 0, span - extra + low)


def _source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    if align_corners:
        coord = (coord + 1) / 2 * (size - 1)
    else:
        coord = ((coord + 1) * size - 1) / 2
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord


@autocast_composite("grid_sampler")
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Sample ``input`` (``(N, C, H, W)`` or ``(N, C, D, H, W)``) at the normalized ``(x, y[, z])`` points of
    ``grid`` (``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``; -1 and 1 are the outer edges, or the
    corner pixels' centres with ``align_corners=True``). ``mode``: ``"bilinear"`` (trilinear for 5-D) or
    ``"nearest"``; ``padding_mode``: ``"zeros"``, ``"border"`` or ``"reflection"``.

    >>> import openreg
    >>> x = openreg.tensor([[[[0.0, 10.0]]]])
    >>> grid_sample(x, openreg.tensor([[[[0.0, 0.0], [3.0, 0.0]]]]), align_corners=True).tolist()
    [[[[5.0, 0.0]]]]
    >>> grid_sample(x, openreg.tensor([[[[2.0, 0.0]]]]), padding_mode="border", align_corners=True).tolist()
    [[[[10.0]]]]
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    if input.dim() not in (4, 5) or input.dim() != grid.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    d = input.dim() - 2
    if grid.shape[-1] != d:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {d} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if mode == "bicubic":
        raise NotImplementedError("nn.functional.grid_sample(): mode='bicubic' is not supported by openreg yet "
                                  "(use 'bilinear' or 'nearest')")
    n, c = input.shape[0], input.shape[1]
    in_spatial = list(input.shape[2:])
    out_spatial = list(grid.shape[1:-1])
    # coordinate k of the grid indexes spatial dim d-1-k (x indexes the last dim)
    coords = [_source_index(grid[..., k], in_spatial[d - 1 - k], padding_mode, align_corners) for k in range(d)]
    coords = coords[::-1]  # now coords[j] indexes spatial dim j
    flat = input.reshape(n, c, -1)

    def gather(indices: list[Tensor]) -> Tensor:
        lin = indices[0]
        for j in range(1, d):
            lin = lin * in_spatial[j] + indices[j]
        lin = lin.reshape(n, 1, -1).expand(n, c, lin[0].numel())
        return flat.gather(2, lin)

    def in_bounds(indices: list[Tensor]) -> Tensor:
        ok = None
        for j, idx in enumerate(indices):
            inside = (idx >= 0) & (idx <= in_spatial[j] - 1)
            ok = inside if ok is None else ok & inside
        return ok

    from ..dtypes import int64
    if mode == "nearest":
        idx = [cj.round() for cj in coords]
        values = gather([ij.clamp(0, in_spatial[j] - 1).to(int64) for j, ij in enumerate(idx)])
        if padding_mode == "zeros":
            values = values * in_bounds(idx).reshape(n, 1, -1).to(input.dtype)
        return values.reshape(n, c, *out_spatial)
    lows = [cj.floor() for cj in coords]
    highs = [lo + 1 for lo in lows]
    out = None
    for corner in itertools.product((0, 1), repeat=d):  # the first spatial dim outermost, x fastest
        idx = [highs[j] if corner[j] else lows[j] for j in range(d)]
        weight = None
        for j in reversed(range(d)):  # x weight first, as PyTorch multiplies
            w = (coords[j] - lows[j]) if corner[j] else (highs[j] - coords[j])
            weight = w if weight is None else weight * w
        if padding_mode == "zeros":
            weight = weight * in_bounds(idx).to(weight.dtype)
        values = gather([ij.detach().clamp(0, in_spatial[j] - 1).to(int64) for j, ij in enumerate(idx)])
        term = values * weight.reshape(n, 1, -1)
        out = term if out is None else out + term
    return out.reshape(n, c, *out_spatial)
