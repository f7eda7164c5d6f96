"""``nn.functional.interpolate`` (and the deprecated ``upsample``, ``upsample_nearest``, ``upsample_bilinear``):
PyTorch's argument handling over the ``aten::upsample_*`` operators; ``mode="area"`` is adaptive average
pooling.

>>> import openreg
>>> import openreg.nn.functional as F
>>> F.interpolate(openreg.ones(1, 3, 4, 4), scale_factor=2).shape
openreg.Size([1, 3, 8, 8])
"""
from __future__ import annotations

import math

from .._dispatch.ops import lookup
from ..tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_NEAREST = {("nearest", 3): "aten::upsample_nearest1d", ("nearest", 4): "aten::upsample_nearest2d",
            ("nearest", 5): "aten::upsample_nearest3d", ("nearest-exact", 3): "aten::_upsample_nearest_exact1d",
            ("nearest-exact", 4): "aten::_upsample_nearest_exact2d",
            ("nearest-exact", 5): "aten::_upsample_nearest_exact3d"}


def _output_size_and_scales(input: Tensor, size, scale_factor, recompute_scale_factor, mode: str):
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scale_factors = output_size = None
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                                 f"and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor and scale_factors is not None:
        output_size = [math.floor(float(input.shape[i + 2]) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if output_size is None:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
    return [int(s) for s in output_size], scale_factors or [None] * dim


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resize ``(N, C, *spatial)`` to ``size`` or by ``scale_factor`` with ``mode`` nearest, nearest-exact or
    area (3-D to 5-D), linear (3-D), bilinear/bicubic (4-D) or trilinear (5-D).

    >>> import openreg
    >>> x = openreg.tensor([[[0.0, 1.0]]])
    >>> openreg.nn.functional.interpolate(x, size=4, mode="linear", align_corners=False).tolist()
    [[[0.0, 0.25, 0.75, 1.0]]]
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    output_size, scales = _output_size_and_scales(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
                         "as input")
    nd = input.dim()
    if (mode, nd) in _NEAREST:
        return lookup(_NEAREST[mode, nd])(input, output_size, *scales)
    if mode == "area" and nd in (3, 4, 5):
        from .pooling3d_functional import adaptive_avg_pool3d
        from .pooling_functional import adaptive_avg_pool1d, adaptive_avg_pool2d
        return {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[nd](input, output_size)
    if mode in _NEEDS and nd in (3, 4, 5):
        if nd != _NEEDS[mode]:
            raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {_NEEDS[mode]}D input")
        name = {"linear": "upsample_linear1d", "bilinear": "upsample_bilinear2d", "bicubic": "upsample_bicubic2d",
                "trilinear": "upsample_trilinear3d"}[mode]
        if antialias:
            name = "_" + name + "_aa"
        return lookup("aten::" + name)(input, output_size, align_corners, *scales)
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
                              f"{_MODES} (got {mode})")


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated alias of :func:`interpolate`.

    >>> import openreg
    >>> openreg.nn.functional.upsample(openreg.ones(1, 1, 2), scale_factor=2).shape
    openreg.Size([1, 1, 4])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="nearest")``.

    >>> import openreg
    >>> openreg.nn.functional.upsample_nearest(openreg.ones(1, 1, 2, 2), size=3).shape
    openreg.Size([1, 1, 3, 3])
    """
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: ``interpolate(..., mode="bilinear", align_corners=True)``.

    >>> import openreg
    >>> openreg.nn.functional.upsample_bilinear(openreg.ones(1, 1, 2, 2), scale_factor=2).shape
    openreg.Size([1, 1, 4, 4])
    """
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
