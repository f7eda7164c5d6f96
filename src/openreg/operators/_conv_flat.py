"""Stride-1 convolution on flattened padded images, for host (NumPy) arrays.

With stride 1, the window of kernel offset ``k`` over the zero-padded image, read row-major, is one contiguous
run of the flattened image shifted by ``shift(k)``, provided the output grid is widened to the padded width
(``out[0] x padded[1:]``; the extra columns are thrown away). So im2col is one contiguous block copy per kernel
offset instead of a strided gather with short rows, and col2im is one contiguous add per offset: NumPy's strided
copies with rows of a few elements cost ~15x a contiguous copy, which made them most of a small CNN's step.

Each output element is the same sum as in the strided formulation, over the same terms; only the widened
columns read values that wrap into the next row (a multiple of zero there, discarded or multiplied by zero
gradients). A non-finite value would turn such a zero product into NaN, so callers use this path only when the
operand read across the wrap is finite.

>>> import numpy as np
>>> x = np.arange(9.0).reshape(1, 1, 3, 3)
>>> conv(np, x, np.ones((1, 1, 2, 2)), 1, (0, 0), (1, 1), (2, 2)).ravel().tolist()
[8.0, 12.0, 20.0, 24.0]
"""
from __future__ import annotations

import numpy as np


def prod(values) -> int:
    """The product of ``values`` (1 for none)."""
    p = 1
    for v in values:
        p *= v
    return p


def kernel_offsets(kernel: tuple):
    """Every offset of a ``kernel``-shaped window, row-major: ``(0, 0), (0, 1), ...``."""
    if not kernel:
        yield ()
        return
    for i in range(kernel[0]):
        for rest in kernel_offsets(kernel[1:]):
            yield (i, *rest)


def group_products(xp, a, b):
    """``a @ b`` for ``(G, M, K)`` and ``(G, K, N)`` stacks. A depthwise convolution's input gradient contracts
    over K = 1 (one output channel per group), which NumPy's matmul runs ~12x slower than the broadcast product
    that gives the same values (one rounded product per element, nothing summed)."""
    if a.shape[-1] == 1:
        return xp.multiply(a, b)
    return xp.matmul(a, b)


class _Grid:
    """The flattened geometry: padded image size, its row-major strides, the widened output length ``L`` and
    each kernel offset's shift."""

    def __init__(self, size, kernel, padding, dilation, out):
        self.padded = tuple(s + 2 * p for s, p in zip(size, padding))
        strides, acc = [], 1
        for s in reversed(self.padded):
            strides.append(acc)
            acc *= s
        self.strides = tuple(reversed(strides))
        self.plane = acc                                            # elements per padded image
        self.length = out[0] * self.strides[0]                      # widened output grid, flattened
        self.shifts = [sum(o * d * st for o, d, st in zip(off, dilation, self.strides))
                       for off in kernel_offsets(kernel)]
        self.tail = max(self.shifts) + self.length - self.plane     # read past the last image's end
        self.out, self.kernel, self.dilation = out, tuple(kernel), tuple(dilation)


def _flat_padded(x, padding, grid: _Grid):
    """``x`` ``(N, C, *size)`` zero-padded, as one flat buffer of N*C images plus a zero tail."""
    n, c = x.shape[:2]
    flat = np.zeros(n * c * grid.plane + max(grid.tail, 0), dtype=x.dtype)
    pad_view = flat[:n * c * grid.plane].reshape((n, c) + grid.padded)
    pad_view[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))] = x
    return flat


def _runs(flat, grid: _Grid, images: tuple, image_strides: tuple):
    """The view ``(*images, *kernel, L)`` of ``flat``: for each image and kernel offset, its shifted run (one
    strided view; the shifts are a lattice in the kernel offsets)."""
    item = flat.itemsize
    shape = tuple(images) + tuple(grid.kernel) + (grid.length,)
    strides = tuple(s * item for s in image_strides) + tuple(d * st * item for d, st in
                                                               zip(grid.dilation, grid.strides)) + (item,)
    return np.lib.stride_tricks.as_strided(flat, shape, strides, writeable=True)


def _columns(x, padding, grid: _Grid):
    """``(C, *kernel, N, L)`` columns: for each channel and kernel offset, the shifted runs of every image."""
    n, c = x.shape[:2]
    nd = len(grid.kernel)
    runs = _runs(_flat_padded(x, padding, grid), grid, (n, c), (c * grid.plane, grid.plane))   # (N, C, *k, L)
    return np.ascontiguousarray(np.moveaxis(runs, 0, 1 + nd))


def _crop(y_wide, grid: _Grid):
    """``(..., out[0] * padded[1:])`` widened results cut to ``(..., *out)``, contiguous."""
    lead = y_wide.shape[:-1]
    y = y_wide.reshape(lead + (grid.out[0],) + grid.padded[1:])
    return np.ascontiguousarray(y[(Ellipsis,) + tuple(slice(0, o) for o in grid.out[1:])])


def _grad_matrix(g, grid: _Grid, groups: int):
    """``(N, O, *out)`` gradients as ``(groups, O/groups, N * L)`` on the widened grid, zero in the extra
    columns (one copy)."""
    n, o = g.shape[:2]
    wide = np.zeros((o, n, grid.out[0]) + grid.padded[1:], dtype=g.dtype)
    wide[(slice(None), slice(None), slice(None)) + tuple(slice(0, s) for s in grid.out[1:])] = np.swapaxes(g, 0, 1)
    return wide.reshape(groups, o // groups, n * grid.length)


def conv(xp, x, w, groups, padding, dilation, out):
    """Stride-1 ``conv(x, w)``: ``x`` ``(N, C, *size)``, ``w`` ``(O, C/groups, *kernel)`` -> ``(N, O, *out)``."""
    n, c = x.shape[:2]
    o, kernel = w.shape[0], tuple(w.shape[2:])
    grid = _Grid(x.shape[2:], kernel, padding, dilation, out)
    cols = _columns(x, padding, grid).reshape(groups, (c // groups) * len(grid.shifts), n * grid.length)
    y = np.matmul(w.reshape(groups, o // groups, cols.shape[1]), cols)            # (G, O/G, N*L)
    y = np.transpose(y.reshape(o, n, grid.length), (1, 0, 2))
    return _crop(y, grid)


def weight_grad(xp, g, x, groups, kernel, padding, dilation, gmat=None):
    """Stride-1 gradient of ``conv`` in ``w``: ``(O, C/groups, *kernel)``. ``gmat``: ``_grad_matrix(g)`` when
    the caller has it."""
    n, c = x.shape[:2]
    o, out = g.shape[1], tuple(g.shape[2:])
    grid = _Grid(x.shape[2:], kernel, padding, dilation, out)
    cols = _columns(x, padding, grid).reshape(groups, (c // groups) * len(grid.shifts), n * grid.length)
    gmat = _grad_matrix(g, grid, groups) if gmat is None else gmat
    return np.matmul(gmat, np.swapaxes(cols, 1, 2)).reshape((o, c // groups) + tuple(kernel))


def input_grad(xp, g, w, groups, size, padding, dilation, gmat=None):
    """Stride-1 gradient of ``conv`` in ``x``: one GEMM per group, then one contiguous add per kernel offset."""
    n, o = g.shape[:2]
    out, kernel = tuple(g.shape[2:]), tuple(w.shape[2:])
    cg = w.shape[1]
    c = cg * groups
    grid = _Grid(size, kernel, padding, dilation, out)
    k = len(grid.shifts)
    gmat = _grad_matrix(g, grid, groups) if gmat is None else gmat
    wt = np.swapaxes(w.reshape(groups, o // groups, cg * k), 1, 2)                # (G, C/G*K, O/G)
    gcols = group_products(np, wt, gmat).reshape(c, k, n, grid.length)
    flat = np.zeros(c * n * grid.plane + max(grid.tail, 0), dtype=gcols.dtype)   # (C, N) images, flat
    runs = _runs(flat, grid, (c, n), (n * grid.plane, grid.plane))                # (C, N, *kernel, L)
    for j, offset in enumerate(kernel_offsets(grid.kernel)):   # the runs of one offset never overlap
        runs[(slice(None), slice(None)) + offset] += gcols[:, j]
    img = flat[:c * n * grid.plane].reshape((c, n) + grid.padded)
    inner = tuple(slice(p, p + s) for p, s in zip(padding, size))
    return np.ascontiguousarray(np.swapaxes(img[(slice(None), slice(None)) + inner], 0, 1))


def both_grads(xp, g, x, w, groups, padding, dilation):
    """``(input_grad, weight_grad)`` sharing one widened gradient matrix."""
    grid = _Grid(x.shape[2:], tuple(w.shape[2:]), padding, dilation, tuple(g.shape[2:]))
    gmat = _grad_matrix(g, grid, groups)
    return (input_grad(xp, g, w, groups, tuple(x.shape[2:]), padding, dilation, gmat),
            weight_grad(xp, g, x, groups, tuple(w.shape[2:]), padding, dilation, gmat))


def applies(xp, stride, *operands) -> bool:
    """Whether the flattened path serves this call: NumPy arrays, stride 1, finite operands."""
    return xp is np and all(s == 1 for s in stride) and all(bool(np.isfinite(a).all()) for a in operands)


__all__ = ["applies", "both_grads", "conv", "group_products", "input_grad", "kernel_offsets", "prod", "weight_grad"]
