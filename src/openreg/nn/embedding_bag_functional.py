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

from .._dispatch.ops import A
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
    from ..operators.factories import arange
    if weight.dtype == int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                      "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    fixed = None
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        fixed = input
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
        from ..autograd.grad_mode import no_grad
        from .sparse_functional import embedding_renorm_
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    if fixed is not None and mode != "max" and per_sample_weights is None and padding_idx is None and not sparse:
        # bags of one length: the looked-up rows summed over the bag dimension (each bag's rows added in order,
        # as the general path's index_add does), three operations instead of about thirty
        from .sparse_functional import embedding
        out = embedding(fixed, weight, scale_grad_by_freq=scale_grad_by_freq).sum(1)
        return out / max(fixed.size(1), 1) if mode == "mean" else out
    return _bags(weight, input, offsets, scale_grad_by_freq, mode, per_sample_weights, include_last_offset,
                 padding_idx, sparse)[0]


def _bags(weight: Tensor, input: Tensor, offsets: Tensor, scale_grad_by_freq: bool, mode: str,
          per_sample_weights: Tensor | None, include_last_offset: bool, padding_idx: int | None,
          sparse: bool = False) -> tuple:
    """``(output, bag, keep, bags, first)``: the reduced bags of the 1-D ``input`` starting at ``offsets``, the bag of
    each position, which positions count (not ``padding_idx``), the number of bags and (max) the position each maximum
    came from (``n`` for an empty bag). With ``sparse`` the weight's gradient is PyTorch's sparse one: an entry per
    position of ``input`` but those at ``padding_idx``. As PyTorch's CPU kernel,
    with ``include_last_offset`` the last offset only ends the list: the last bag runs to the end of ``input``."""
    from ..dtypes import bool as bool_
    from ..dtypes import int64
    from ..operators.factories import zeros
    from .sparse_functional import embedding
    n = input.numel()
    offs = offsets.to(int64)
    if offs.numel() and n and int(offs[0].item()) != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(offs[0].item())}")
    starts = offs[:-1] if include_last_offset else offs
    bags = starts.numel()
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.size(0)
    if sparse:   # padding rows get no entry in the sparse gradient (dense: their zero rows add nothing)
        rows = embedding(input, weight, padding_idx, scale_grad_by_freq=scale_grad_by_freq, sparse=True)
    else:
        rows = embedding(input, weight, scale_grad_by_freq=scale_grad_by_freq)
    # the bag of each position: how many bag starts are at or before it, minus one
    marks = zeros(n + 1, dtype=int64, device=input.device)
    marks = marks.index_add(0, starts.clamp(0, n), starts.new_ones(starts.shape))
    bag = marks.cumsum(0)[:n] - 1
    keep = input != padding_idx if padding_idx is not None else input.new_ones(n, dtype=bool_)
    bag_of = bag.where(keep, bags)  # padding positions go to an extra, dropped row
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    dim = weight.size(1)
    if mode == "max":
        # as PyTorch: each maximum (per bag and column) comes from its first position in the bag, which alone
        # receives the gradient (ties between rows included); an empty bag points at position n, a zero row
        from ..autograd.grad_mode import no_grad
        from ..operators.factories import arange
        with no_grad():
            flat = rows.detach()
            top = zeros(bags + 1, dim, dtype=rows.dtype, device=rows.device).scatter_reduce(
                0, bag_of.unsqueeze(1).expand(n, dim), flat, "amax", include_self=False)
            hit = (flat == top.index_select(0, bag_of)) & keep.unsqueeze(1)
            pos = arange(n, device=input.device).unsqueeze(1).expand(n, dim).where(hit, n)
            first = zeros(bags + 1, dim, dtype=int64, device=input.device).fill_(n).scatter_reduce(
                0, bag_of.unsqueeze(1).expand(n, dim), pos, "amin")[:bags]
        out = A.cat([rows, rows.new_zeros(1, dim)], 0).gather(0, first)
        return out, bag, keep, bags, first
    out = zeros(bags + 1, dim, dtype=rows.dtype, device=rows.device).index_add(0, bag_of, rows)[:bags]
    if mode == "mean":
        counts = zeros(bags + 1, dtype=rows.dtype, device=rows.device).index_add(
            0, bag_of, keep.to(rows.dtype))[:bags]
        out = out / counts.clamp_min(1).unsqueeze(1)
    return out, bag, keep, bags, None


_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag_aten(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                       mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                       include_last_offset: bool = False, padding_idx: int | None = None) -> tuple:
    """``torch.embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
    per_sample_weights=None, include_last_offset=False, padding_idx=None)``: ``(output, offset2bag, bag_size,
    max_indices)`` with ``mode`` 0/1/2 for sum/mean/max, as PyTorch's CPU kernel gives them: ``offset2bag`` is the
    bag of each index (empty for sum without ``padding_idx``), ``bag_size`` counts each bag's non-padding indices
    (zeros for sum), ``max_indices`` is the row of ``weight`` each maximum came from (max), ``bag_size`` (mean) or
    zeros (sum).

    >>> import openreg
    >>> w = openreg.tensor([[1.0, 5.0], [2.0, 4.0], [3.0, 0.0]])
    >>> out, offset2bag, bag_size, max_indices = openreg.embedding_bag(
    ...     w, openreg.tensor([0, 1, 2]), openreg.tensor([0, 2]), mode=2)
    >>> out.tolist(), offset2bag.tolist(), bag_size.tolist(), max_indices.tolist()
    ([[2.0, 5.0], [3.0, 0.0]], [0, 0, 1], [2, 1], [[1, 0], [2, 2]])
    """
    from ..autograd.grad_mode import no_grad
    from ..dtypes import float64
    from ..operators.factories import zeros
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if indices.dim() != 1 or offsets.dim() != 1:
        raise ValueError(f"embedding_bag: indices and offsets have to be 1D Tensors, but got indices of dimension "
                         f"{indices.dim()} and offsets of dimension {offsets.dim()}")
    if per_sample_weights is not None and mode != 0:
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{_MODES[mode]}'). Please open a feature "
                                  f"request on GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.size(0)
    out, bag, keep, bags, first = _bags(weight, indices, offsets, scale_grad_by_freq, _MODES[mode], per_sample_weights,
                                 include_last_offset, padding_idx, sparse)
    dev, itype = indices.device, indices.dtype
    with no_grad():
        if mode == 0:
            empty = padding_idx is None and weight.dtype != float64
            offset2bag = zeros(0, dtype=itype, device=dev) if empty else bag.to(itype)
            bag_size = zeros(bags, dtype=itype, device=dev)
            return out, offset2bag, bag_size, bag_size.clone()
        bag_size = zeros(bags + 1, dtype=itype, device=dev).index_add(
            0, bag.where(keep, bags), keep.to(itype))[:bags]
        if mode == 1:
            return out, bag.to(itype), bag_size, bag_size.clone()
        row_at = zeros(indices.numel() + 1, dtype=itype, device=dev)
        row_at[:-1] = indices
        return out, bag.to(itype), bag_size, row_at[first]
