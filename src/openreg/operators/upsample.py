"""Upsampling: ``upsample_nearest1d/2d/3d``, ``_upsample_nearest_exact1d/2d/3d``, ``upsample_linear1d``,
``upsample_bilinear2d``, ``upsample_trilinear3d``, ``upsample_bicubic2d`` and the antialiased
``_upsample_bilinear2d_aa``/``_upsample_bicubic2d_aa`` with their backward operators.

Every mode is separable: along each spatial dim the output is a fixed ``(out, in)`` interpolation matrix times
the input (one-hot rows for nearest, two taps for linear, four clamped taps for bicubic), built with PyTorch's
source-index rules (``align_corners``, explicit ``scales``). The forward pass is ``A_h @ x @ A_w^T`` (and
``A_d`` over the depth of a volume) and the backward pass ``A_h^T @ g @ A_w``: one GEMM per spatial dim on the
device, no loop over pixels.

>>> import openreg
>>> openreg.ops.aten.upsample_nearest2d(openreg.arange(4.0).reshape(1, 1, 2, 2), [3, 3]).flatten().tolist()
[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 2.0, 3.0]
"""
from __future__ import annotations

import numpy as np

from .._dispatch.ops import lookup
from ._nn_arrays import like, same_float_dtype, store, values, xp_of
from ._record import Deriv, Op, register

_CUBIC_A = -0.75


def _scale(n_in: int, n_out: int, align_corners: bool, scale, dtype):
    """PyTorch's ``area_pixel_compute_scale`` in the compute dtype."""
    if align_corners:
        return dtype.type(n_in - 1) / dtype.type(n_out - 1) if n_out > 1 else dtype.type(0)
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(n_in) / dtype.type(n_out)


def _one_hot(xp, index, n_in, dtype):
    return (xp.arange(n_in)[None, :] == index[:, None]).astype(dtype)


def _aa_filter(kind: str, x, dtype):
    """PyTorch's antialiasing kernels: the triangle (linear) or Keys' cubic with ``a = -0.5`` (as PIL)."""
    x = abs(x)
    if kind == "linear_aa":
        return np.where(x < 1, 1 - x, dtype.type(0))
    a = dtype.type(-0.5)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, dtype.type(0)))


def _aa_matrix(kind: str, n_in: int, n_out: int, align_corners: bool, scale, dtype):
    """PyTorch's antialiased resampling weights (``_compute_weights_aa``): each output reads the inputs within
    ``support`` of its centre, the filter widened by the downscaling factor, the weights normalised to sum 1."""
    s = _scale(n_in, n_out, align_corners, scale, dtype)
    half = dtype.type(2 if kind == "linear_aa" else 4) * dtype.type(0.5)
    support = half * s if s >= 1 else half
    width = int(np.ceil(support)) * 2 + 1
    invscale = dtype.type(1) / s if s >= 1 else dtype.type(1)
    center = s * (np.arange(n_out, dtype=dtype) + dtype.type(0.5))
    first = np.maximum((center - support + dtype.type(0.5)).astype(np.int64), 0)   # truncation, as C's cast
    count = np.clip(np.minimum((center + support + dtype.type(0.5)).astype(np.int64), n_in) - first, 0, width)
    taps = first[:, None] + np.arange(width)[None, :]
    w = _aa_filter(kind, (taps - center[:, None] + dtype.type(0.5)) * invscale, dtype).astype(dtype)
    w[np.arange(width)[None, :] >= count[:, None]] = 0
    total = w.sum(axis=1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w)
    out = np.zeros((n_out, n_in + width), dtype)
    np.add.at(out, (np.repeat(np.arange(n_out), width), taps.ravel()), w.ravel())
    return out[:, :n_in]


def _matrix(xp, kind: str, n_in: int, n_out: int, align_corners: bool, scale, dtype):
    """The ``(n_out, n_in)`` interpolation matrix of one spatial dim."""
    dtype = np.dtype(dtype)
    if kind in ("linear_aa", "cubic_aa"):
        return xp.asarray(_aa_matrix(kind, n_in, n_out, align_corners, scale, dtype))
    if kind in ("nearest", "nearest_exact"):     # PyTorch computes nearest indices in float32
        s = _scale(n_in, n_out, False, scale, np.dtype("float32"))
        dst = xp.arange(n_out, dtype="float32") + (np.float32(0.5) if kind == "nearest_exact" else np.float32(0))
        index = xp.minimum(xp.floor(dst * s).astype("int64"), n_in - 1)
        return _one_hot(xp, index, n_in, dtype)
    s = _scale(n_in, n_out, align_corners, scale, dtype)
    dst = xp.arange(n_out, dtype=dtype)
    src = dst * s if align_corners else s * (dst + dtype.type(0.5)) - dtype.type(0.5)
    if kind == "linear":
        if not align_corners:
            src = xp.maximum(src, dtype.type(0))
        i0 = src.astype("int64")
        i1 = i0 + (i0 < n_in - 1)
        l1 = src - i0.astype(dtype)
        return (1 - l1)[:, None] * _one_hot(xp, i0, n_in, dtype) + l1[:, None] * _one_hot(xp, i1, n_in, dtype)
    i = xp.floor(src)
    t = src - i
    a = dtype.type(_CUBIC_A)

    def near(x):    # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):     # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    i = i.astype("int64")
    out = 0
    for k, w in enumerate((far(t + 1), near(t), near(1 - t), far(2 - t))):
        out = out + w[:, None] * _one_hot(xp, xp.clip(i - 1 + k, 0, n_in - 1), n_in, dtype)
    return out


def _matrices(xp, kind, in_sizes, out_sizes, align_corners, scales, dtype):
    return [_matrix(xp, kind, i, o, align_corners, s, dtype) for i, o, s in zip(in_sizes, out_sizes, scales)]


def _apply(xp, x, mats, transpose: bool):
    """``A_h @ x @ A_w^T`` (or its adjoint ``A_h^T @ x @ A_w``) over the trailing 1, 2 or 3 dims (the depth
    matrix ``A_d`` multiplies the volume seen as ``(D, H * W)``)."""
    if transpose:
        mats = [m.T for m in mats]
    y = xp.matmul(x, mats[-1].T)
    if len(mats) >= 2:
        y = xp.matmul(mats[-2], y)
    if len(mats) == 3:
        s = y.shape
        y = xp.matmul(mats[0], y.reshape(s[:-2] + (s[-2] * s[-1],))).reshape(s[:-3] + (mats[0].shape[0],) + s[-2:])
    return y


def _check(op: str, self, output_size, nd: int) -> None:
    if self.dim() != nd + 2 or any(s == 0 for s in self._size[1:]):
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with sizes "
                           f"{list(self._size)}")
    if len(output_size) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(output_size)}")
    if any(o <= 0 for o in output_size) or any(i <= 0 for i in self._size[2:]):
        names = ("H", "W")[-nd:] if nd <= 2 else ("D", "H", "W")
        ins = ", ".join(f"{n}: {v}" for n, v in zip(names, self._size[2:]))
        outs = ", ".join(f"{n}: {v}" for n, v in zip(names, output_size))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) output ({outs})")
    same_float_dtype(op, self)


def _forward(op: str, kind: str, nd: int, aligned: bool):
    def kernel(self, output_size, *rest):
        align_corners, scales = (rest[0], rest[1:]) if aligned else (False, rest)
        _check(op, self, output_size, nd)
        xp, x = xp_of(self), values(self)
        mats = _matrices(xp, kind, self._size[2:], output_size, align_corners, scales, x.dtype)
        return store(_apply(xp, x, mats, False), self._dtype, self.device)

    def meta(self, output_size, *rest):
        _check(op, self, output_size, nd)
        return like(self, tuple(self._size[:2]) + tuple(output_size))
    return kernel, meta


def _backward(op: str, kind: str, nd: int, aligned: bool):
    def kernel(grad_output, output_size, input_size, *rest):
        align_corners, scales = (rest[0], rest[1:]) if aligned else (False, rest)
        expect = list(input_size[:2]) + list(output_size)
        if list(grad_output._size) != expect:
            raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({nd + 1}) = "
                               f"{expect[-1]} but got grad_output.size({nd + 1}) = {grad_output._size[-1]}"
                               if grad_output.dim() == nd + 2 else
                               f"Expected grad_output to be a tensor of dimension {nd + 2} but got: dimension "
                               f"{grad_output.dim()}")
        xp, g = xp_of(grad_output), values(grad_output)
        mats = _matrices(xp, kind, input_size[2:], output_size, align_corners, scales, g.dtype)
        return store(_apply(xp, g, mats, True), grad_output._dtype, grad_output.device)

    def meta(grad_output, output_size, input_size, *rest):
        return like(grad_output, tuple(input_size))
    return kernel, meta


def _records(name: str, kind: str, nd: int, aligned: bool, doc: str) -> tuple[Op, Op]:
    size = f"SymInt[{nd}] output_size"
    align = ", bool align_corners" if aligned else ""
    scale_names = "scales" if nd == 1 else " ".join(("scales_d", "scales_h", "scales_w")[-nd:])
    scales = ", ".join(f"float? {n}=None" for n in scale_names.split())
    keep = "output_size" + (" align_corners" if aligned else "") + " " + scale_names

    def extra(a):
        return ([a.align_corners] if aligned else []) + [getattr(a, s) for s in scale_names.split()]

    fwd = Op(
        name,
        f"""
        {name}(Tensor self, {size}{align}, {scales}) -> Tensor  [core]
        """,
        kernels={name: dict(zip(("CompositeExplicitAutograd", "Meta"), _forward(name, kind, nd, aligned)))},
        derivatives={name: Deriv(
            save="self " + keep, linear=True,
            self=lambda g, a: lookup(f"aten::{name}_backward")(g, a.output_size, list(a.self.shape), *extra(a)))},
        function=False, method=False, doc=doc)
    bwd = Op(
        name + "_backward",
        f"""
        {name}_backward(Tensor grad_output, {size}, SymInt[{nd + 2}] input_size{align}, {scales}) -> Tensor
        """,
        kernels={name + "_backward": dict(zip(("CompositeExplicitAutograd", "Meta"),
                                              _backward(name, kind, nd, aligned)))},
        derivatives={name + "_backward": Deriv(
            save="input_size " + keep, linear=True,
            grad_output=lambda gg, a: lookup(f"aten::{name}")(gg, a.output_size, *extra(a)))},
        function=False, method=False,
        doc=f"""The gradient of ``{name}``: the adjoint interpolation, summing each output's gradient into the
        inputs it was read from.

        >>> import openreg
        >>> openreg.ops.aten.{name}_backward(openreg.ones(1, 1, {", ".join(["4"] * nd)}), [{", ".join(["4"] * nd)}],
        ...     [1, 1, {", ".join(["2"] * nd)}]{", False" if aligned else ""}{", None" * nd}).flatten().tolist()
        [{", ".join([f"{2.0 ** nd}"] * 2 ** nd)}]
        """)
    return fwd, bwd


upsample_nearest1d, upsample_nearest1d_backward = _records("upsample_nearest1d", "nearest", 1, False, """
    Nearest-neighbour upsampling of ``(N, C, L)`` to ``output_size`` (source index ``floor(i * in / out)``).

    >>> import openreg
    >>> openreg.ops.aten.upsample_nearest1d(openreg.tensor([[[1.0, 2.0]]]), [4]).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """)
upsample_nearest2d, upsample_nearest2d_backward = _records("upsample_nearest2d", "nearest", 2, False, """
    Nearest-neighbour upsampling of ``(N, C, H, W)`` to ``output_size``.

    >>> import openreg
    >>> openreg.ops.aten.upsample_nearest2d(openreg.ones(1, 1, 2, 2), [4, 4]).shape
    openreg.Size([1, 1, 4, 4])
    """)
_upsample_nearest_exact1d, _upsample_nearest_exact1d_backward = _records(
    "_upsample_nearest_exact1d", "nearest_exact", 1, False, """
    Nearest upsampling of ``(N, C, L)`` with pixel centres aligned (``floor((i + 0.5) * in / out)``).

    >>> import openreg
    >>> openreg.ops.aten._upsample_nearest_exact1d(openreg.tensor([[[1.0, 2.0, 3.0]]]), [2]).tolist()
    [[[1.0, 3.0]]]
    """)
_upsample_nearest_exact2d, _upsample_nearest_exact2d_backward = _records(
    "_upsample_nearest_exact2d", "nearest_exact", 2, False, """
    Nearest upsampling of ``(N, C, H, W)`` with pixel centres aligned.

    >>> import openreg
    >>> openreg.ops.aten._upsample_nearest_exact2d(openreg.ones(1, 1, 3, 3), [2, 2]).shape
    openreg.Size([1, 1, 2, 2])
    """)
upsample_linear1d, upsample_linear1d_backward = _records("upsample_linear1d", "linear", 1, True, """
    Linear interpolation of ``(N, C, L)`` to ``output_size``.

    >>> import openreg
    >>> openreg.ops.aten.upsample_linear1d(openreg.tensor([[[0.0, 1.0]]]), [3], True).tolist()
    [[[0.0, 0.5, 1.0]]]
    """)
upsample_bilinear2d, upsample_bilinear2d_backward = _records("upsample_bilinear2d", "linear", 2, True, """
    Bilinear interpolation of ``(N, C, H, W)`` to ``output_size``.

    >>> import openreg
    >>> x = openreg.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> openreg.ops.aten.upsample_bilinear2d(x, [3, 3], True).flatten().tolist()
    [0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0]
    """)
upsample_bicubic2d, upsample_bicubic2d_backward = _records("upsample_bicubic2d", "cubic", 2, True, """
    Bicubic interpolation (cubic convolution, ``A = -0.75``, borders clamped) of ``(N, C, H, W)``.

    >>> import openreg
    >>> y = openreg.ops.aten.upsample_bicubic2d(openreg.arange(4.0).reshape(1, 1, 2, 2), [3, 3], True)
    >>> [round(v, 4) for v in y.flatten().tolist()]
    [0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0]
    """)

upsample_nearest3d, upsample_nearest3d_backward = _records("upsample_nearest3d", "nearest", 3, False, """
    Nearest-neighbour upsampling of ``(N, C, D, H, W)`` to ``output_size``.

    >>> import openreg
    >>> openreg.ops.aten.upsample_nearest3d(openreg.ones(1, 1, 1, 2, 2), [2, 4, 4]).shape
    openreg.Size([1, 1, 2, 4, 4])
    """)
_upsample_nearest_exact3d, _upsample_nearest_exact3d_backward = _records(
    "_upsample_nearest_exact3d", "nearest_exact", 3, False, """
    Nearest upsampling of ``(N, C, D, H, W)`` with voxel centres aligned.

    >>> import openreg
    >>> openreg.ops.aten._upsample_nearest_exact3d(openreg.arange(3.0).reshape(1, 1, 3, 1, 1), [2, 1, 1]).flatten().tolist()
    [0.0, 2.0]
    """)
upsample_trilinear3d, upsample_trilinear3d_backward = _records("upsample_trilinear3d", "linear", 3, True, """
    Trilinear interpolation of ``(N, C, D, H, W)`` to ``output_size``.

    >>> import openreg
    >>> x = openreg.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> openreg.ops.aten.upsample_trilinear3d(x, [3, 1, 1], True).flatten().tolist()
    [0.0, 2.0, 4.0]
    """)

_upsample_bilinear2d_aa, _upsample_bilinear2d_aa_backward = _records("_upsample_bilinear2d_aa", "linear_aa", 2, True, """
    Antialiased bilinear resampling of ``(N, C, H, W)`` (``interpolate(..., antialias=True)``): when shrinking,
    the triangle filter widens with the scale factor so every input pixel contributes.

    >>> import openreg
    >>> x = openreg.arange(16.0).reshape(1, 1, 4, 4)
    >>> [round(v, 4) for v in openreg.ops.aten._upsample_bilinear2d_aa(x, [2, 2], False).flatten().tolist()]
    [3.5714, 5.1429, 9.8571, 11.4286]
    """)
_upsample_bicubic2d_aa, _upsample_bicubic2d_aa_backward = _records("_upsample_bicubic2d_aa", "cubic_aa", 2, True, """
    Antialiased bicubic resampling of ``(N, C, H, W)`` (Keys' cubic with ``a = -0.5``, as PIL's).

    >>> import openreg
    >>> y = openreg.ops.aten._upsample_bicubic2d_aa(openreg.ones(1, 1, 8, 8), [3, 3], False)
    >>> [round(v, 5) for v in y.flatten().tolist()]       # normalised weights: a constant stays constant
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """)

register(upsample_nearest1d, upsample_nearest1d_backward, upsample_nearest2d, upsample_nearest2d_backward,
         upsample_nearest3d, upsample_nearest3d_backward, _upsample_nearest_exact1d, _upsample_nearest_exact1d_backward,
         _upsample_nearest_exact2d, _upsample_nearest_exact2d_backward, _upsample_nearest_exact3d,
         _upsample_nearest_exact3d_backward, upsample_linear1d, upsample_linear1d_backward, upsample_bilinear2d,
         upsample_bilinear2d_backward, upsample_trilinear3d, upsample_trilinear3d_backward, upsample_bicubic2d,
         upsample_bicubic2d_backward, _upsample_bilinear2d_aa, _upsample_bilinear2d_aa_backward,
         _upsample_bicubic2d_aa, _upsample_bicubic2d_aa_backward)
