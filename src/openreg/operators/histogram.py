"""``histogram`` (and ``histogramdd``): counts (or weight sums, or densities) of values in bins given by a count
(equal widths over ``range``, else over the values' min and max, widened by 0.5 each way when they are equal) or by
edges. A value belongs to the bin ``[e_i, e_{i+1})``, the last bin including its right edge; values outside the
edges are not counted. As PyTorch's, for floating inputs only, and not differentiable.

Bins are found on the host with NumPy (PyTorch has CPU kernels only); device inputs give device results.

>>> import openreg
>>> h = openreg.histogram(openreg.tensor([1.0, 2.0, 1.0, 4.0]), 3)
>>> h.hist.tolist(), h.bin_edges.tolist()
([2.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0])
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._dispatch.ops import A
from ..tensor import TensorBase
from ._record import NONDIFF, Op, register

_Histogram = namedtuple("histogram", ["hist", "bin_edges"])
_HistogramDD = namedtuple("histogramdd", ["hist", "bin_edges"])


def _host(t):
    return A._to_copy(t, device="cpu").numpy() if t.device.type != "cpu" else t.numpy()


def _check_input(name: str, self, weight) -> None:
    d = self._dtype
    if not d.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{d.scalar_name}\'')
    if weight is not None and tuple(weight.shape) != tuple(self.shape[:-1]):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(self.shape)} and weight with shape {list(weight.shape)}")


def _edges_from_counts(name: str, sample: np.ndarray, bins: list, ranges, dtype, device) -> list:
    dims = sample.shape[1]
    edges = []
    for d in range(dims):
        if bins[d] <= 0:
            raise RuntimeError(f"{name}: bins must be > 0, but got {bins[d]} for dimension {d}")
        if ranges is not None:
            lo, hi = float(ranges[2 * d]), float(ranges[2 * d + 1])
        elif sample.shape[0]:
            lo, hi = float(sample[:, d].min()), float(sample[:, d].max())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               f"dimension {d}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(A.linspace(lo, hi, bins[d] + 1, dtype=dtype, device=device))
    return edges


def _counts(sample: np.ndarray, edges: list, weight, density: bool, dtype, device):
    """The histogram over the (N, D) ``sample`` for the per-dimension edge tensors ``edges``."""
    n = sample.shape[0]
    host_edges = [_host(e) for e in edges]
    sizes = [max(len(e) - 1, 0) for e in host_edges]
    inside = np.ones(n, dtype=bool)
    index = []
    for d, e in enumerate(host_edges):
        x = sample[:, d]
        nb = sizes[d]
        if nb == 0:
            inside[:] = False
            index.append(np.zeros(n, dtype=np.int64))
            continue
        inside &= (x >= e[0]) & (x <= e[-1])
        pos = np.searchsorted(e, x, side="right") - 1
        pos[x == e[-1]] = nb - 1
        index.append(np.clip(pos, 0, nb - 1))
    total = int(np.prod(sizes)) if sizes else 1
    w = None if weight is None else _host(weight).reshape(-1)[inside]
    flat = np.ravel_multi_index([i[inside] for i in index], sizes) if total else np.zeros(0, dtype=np.int64)
    hist = np.bincount(flat, weights=w, minlength=total).astype(dtype.numpy).reshape(sizes)
    if density:
        volume = np.ones((), dtype=dtype.numpy)
        for d, e in enumerate(host_edges):
            shape = [1] * len(sizes)
            shape[d] = sizes[d]
            volume = volume * np.diff(e).astype(dtype.numpy).reshape(shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = (hist / hist.sum() / volume).astype(dtype.numpy)
    return A._to_copy(_wrap(hist), device=device)


def _wrap(arr):
    import openreg
    return openreg.from_numpy(np.ascontiguousarray(arr))


def _histogramdd_impl(name, self, bins, ranges, weight, density):
    _check_input(name, self, weight)
    dims = self.shape[-1] if self.dim() else 1
    sample = _host(self).reshape(-1, dims).astype(self._dtype.numpy, copy=False)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], TensorBase):
        edges = list(bins)
        for d, e in enumerate(edges):
            if e._dtype is not self._dtype:
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                   f"but got input with dtype {_c_name(self._dtype)} and bins for dimension {d} "
                                   f"with dtype {_c_name(e._dtype)}")
    else:
        counts = [bins] * dims if isinstance(bins, int) else list(bins)
        if ranges is not None and len(ranges) != 2 * dims:
            raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
                               f"{2 * dims} elements, but got {len(ranges)}")
        edges = _edges_from_counts(name, sample, counts, ranges, self._dtype, self.device)
    return _counts(sample, edges, weight, density, self._dtype, self.device), edges


def _c_name(dtype) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(
        dtype.name, dtype.name)


def _histogram_bin_ct(self, bins=100, *, range=None, weight=None, density=False):
    hist, edges = _histogramdd_impl("torch.histogram()", A.reshape(self, [-1, 1]), [bins], range,
                                    None if weight is None else A.reshape(weight, [-1]), density)
    return hist, edges[0]


def _histogram_bins_tensor(self, bins, *, weight=None, density=False):
    if bins.dim() != 1:
        raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension, but got {bins.dim()} "
                           f"dimensions in the bins tensor")
    hist, _ = _histogramdd_impl("torch.histogram()", A.reshape(self, [-1, 1]), [bins], None,
                                None if weight is None else A.reshape(weight, [-1]), density)
    return hist, bins.clone()


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)`` of the values of ``input``: ``bins`` equal-width bins (over ``range``, else over the
    values' min and max) or the edges in a 1-D tensor ``bins``; ``weight`` sums weights instead of counting;
    ``density`` divides by the total and the bin widths.

    >>> import openreg
    >>> openreg.histogram(openreg.tensor([0.5, 1.5, 1.6]), openreg.tensor([0.0, 1.0, 2.0])).hist.tolist()
    [1.0, 2.0]
    """
    if out is not None:
        raise NotImplementedError("openreg: histogram(..., out=) is not implemented")
    if isinstance(bins, TensorBase):
        if range is not None:
            raise TypeError("histogram() received an invalid combination of arguments: range= with a bins tensor")
        return _Histogram(*A.histogram__bins_tensor(input, bins, weight=weight, density=density))
    return _Histogram(*A.histogram__bin_ct(input, bins, range=None if range is None else list(range), weight=weight,
                                             density=density))


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)`` of the points in the rows of ``input`` (shape ``(..., D)``): ``bins`` is one count, a
    count per dimension, or an edges tensor per dimension; ``range`` holds ``(min, max)`` per dimension, flat.

    >>> import openreg
    >>> r = openreg.histogramdd(openreg.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0]]), bins=[2, 2])
    >>> r.hist.tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    if input.dim() < 2 if isinstance(input, TensorBase) else True:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions, but got "
                           f"{input.dim() if isinstance(input, TensorBase) else 0}")
    hist, edges = _histogramdd_impl("torch.histogramdd", input, bins, None if range is None else list(range),
                                    weight, density)
    return _HistogramDD(hist, tuple(edges))


histogram_op = Op("histogram", """
    histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)
    histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)
    """, kernels={"histogram.bins_tensor": {"Backend": _histogram_bins_tensor},
                  "histogram.bin_ct": {"Backend": _histogram_bin_ct}}, device=True,
    derivatives={"histogram.bins_tensor": NONDIFF, "histogram.bin_ct": NONDIFF},
    function=histogram, method=histogram, extra_functions={"histogramdd": histogramdd},
    doc="""``(hist, bin_edges)`` of the values of a floating tensor (``openreg.histogram``).

    >>> import openreg
    >>> openreg.tensor([1.0, 2.0, 2.5]).histogram(2).hist.tolist()
    [1.0, 2.0]
    """)

register(histogram_op)
