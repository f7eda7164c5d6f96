"""``nn.functional.embedding_bag``: sums, means or maxima of bags of embedding rows without materializing the
per-index embeddings of every bag separately. Bags are the rows of a 2-D ``input`` or the slices of a 1-D
``input`` starting at ``offsets``; ``per_sample_weights`` scale the rows (``mode="sum"``), ``padding_idx`` rows
are left out, empty bags give zeros. Written with differentiable tensor ops (``embedding``, ``index_add``,
``scatter_reduce``) so the weight's gradient is PyTorch's, on every device.

>>> import openreg
>>> import openreg.nn.functional as F
>>> w = openreg.arange(8.0).reshape(4, 2)
>>> F.embedding_bag(openreg.tensor([0, 1, 2, 3]), w, openreg.tensor([0, 1]), mode="sum").tolist()
[[0.0, 1.0], [12.0, 15.0]]
"""
from __future__ import annotations

import warnings

from ..tensor import Tensor

__all__ = ["embedding_bag"]


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Reduce (``"sum"``, ``"mean"`` or ``"max"``) the rows of ``weight`` indexed by each bag of ``input``.

    >>> import openreg
    >>> w = openreg.tensor([[1.0], [2.0], [4.0]])
    >>> embedding_bag(openreg.tensor([[0, 2], [1, 1]]), w).tolist()
    [[2.5], [2.0]]
    >>> embedding_bag(openreg.tensor([0, 1, 2]), w, openreg.tensor([0, 0, 1]), mode="max").tolist()
    [[0.0], [1.0], [4.0]]
    """
    from ..dtypes import int64
    from ..operators.factories import arange, zeros
    from .sparse_functional import embedding
    if weight.dtype == int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                      "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    if max_norm is not None:
        raise NotImplementedError("openreg: embedding_bag with max_norm (renormalizing rows in place) is not "
                                  "implemented")
    if sparse:
        raise NotImplementedError("openreg: embedding_bag with sparse=True (sparse gradients) is not implemented")
    n = input.numel()
    offs = offsets.to(int64)
    if offs.numel() and n and int(offs[0].item()) != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(offs[0].item())}")
    if include_last_offset:
        end = int(offs[-1].item()) if offs.numel() else 0
        starts = offs[:-1]
    else:
        end = n
        starts = offs
    bags = starts.numel()
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.size(0)
    rows = embedding(input, weight, scale_grad_by_freq=scale_grad_by_freq)
    # the bag of each position: how many bag starts are at or before it, minus one
    marks = zeros(n + 1, dtype=int64, device=input.device)
    marks = marks.index_add(0, starts.clamp(0, n), starts.new_ones(starts.shape))
    bag_of = marks.cumsum(0)[:n] - 1
    keep = arange(n, device=input.device) < end
    if padding_idx is not None:
        keep = keep & (input != padding_idx)
    bag_of = bag_of.where(keep, bags)  # positions outside any bag go to an extra, dropped row
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    dim = weight.size(1)
    if mode == "max":
        out = zeros(bags + 1, dim, dtype=rows.dtype, device=rows.device)
        out = out.scatter_reduce(0, bag_of.unsqueeze(1).expand(n, dim), rows, "amax", include_self=False)
        return out[:bags]
    out = zeros(bags + 1, dim, dtype=rows.dtype, device=rows.device).index_add(0, bag_of, rows)[:bags]
    if mode == "mean":
        counts = zeros(bags + 1, dtype=rows.dtype, device=rows.device).index_add(
            0, bag_of, keep.to(rows.dtype))[:bags]
        out = out / counts.clamp_min(1).unsqueeze(1)
    return out
