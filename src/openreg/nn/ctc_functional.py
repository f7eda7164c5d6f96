"""Connectionist temporal classification loss of ``nn.functional`` (``ctc_loss``), as PyTorch's: the negative log
likelihood of each target under all alignments of its input, by the forward (alpha) recursion in log space over
the blank-extended target, composed of differentiable ops (the gradient is the recursion's own, so equal to
PyTorch's closed-form backward). Unreachable states are ``-inf`` and carry no gradient; an impossible target
(infinite loss) gets a zero gradient where PyTorch's is NaN (``zero_infinity=True`` gives zero in both).

>>> import openreg
>>> import openreg.nn.functional as F
>>> lp = openreg.full((2, 1, 2), 0.5).log()          # T=2, N=1, C=2 (blank 0): every path has probability 1/4
>>> round(F.ctc_loss(lp, openreg.tensor([[1]]), [2], [1], reduction="sum").item(), 6)   # 3 paths: -log(3/4)
0.287682
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["ctc_loss"]


def _lengths(v) -> list:
    if isinstance(v, Tensor):
        return [int(x) for x in v.reshape(-1).tolist()]
    if isinstance(v, int):
        return [v]
    return [int(x) for x in v]


def _safe_logsumexp(parts: list, dim: int):
    """logsumexp over stacked ``parts`` along ``dim``: ``-inf`` where every part is ``-inf``, with zero gradient
    there (no NaN from ``-inf - -inf``)."""
    from .. import stack, where, zeros_like
    x = stack(parts, dim)
    m = x.amax(dim, keepdim=True).detach()
    finite = m.isfinite()
    m = where(finite, m, zeros_like(m))
    s = (x - m).exp().sum(dim)
    empty = s == 0
    out = s.masked_fill(empty, 1.0).log() + m.squeeze(dim)
    return out.masked_fill(empty, float("-inf"))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """CTC loss of ``log_probs`` ``(T, N, C)`` (or ``(T, C)``) against ``targets`` (``(N, S)`` padded, or the
    targets concatenated in 1-D) with per-sample ``input_lengths`` and ``target_lengths``; ``reduction`` ``"mean"``
    divides each loss by its target length before the batch mean; ``zero_infinity`` zeroes impossible (infinite)
    losses and their gradients.

    >>> import openreg
    >>> lp = openreg.randn(6, 2, 4).log_softmax(2)
    >>> openreg.nn.functional.ctc_loss(lp, openreg.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2]).dim()
    0
    """
    from .. import cat, full, int64, stack, tensor, where
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 and not isinstance(target_lengths, (list, tuple)) \
            else targets
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D or 3-D, but got {log_probs.dim()}-D")
    T, N, C = log_probs.shape
    in_len = _lengths(input_lengths)
    tg_len = _lengths(target_lengths)
    if len(in_len) != N:
        raise RuntimeError(f"input_lengths must be of size batch_size ({N}), but got {len(in_len)}")
    if len(tg_len) != N:
        raise RuntimeError(f"target_lengths must be of size batch_size ({N}), but got {len(tg_len)}")
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    for b in range(N):
        if in_len[b] > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {in_len[b]} (while "
                               f"checking arguments for ctc_loss_cpu)")
    # the targets as rows (padded with blank)
    lmax = max(tg_len) if tg_len else 0
    tg = targets.to(int64)
    if tg.dim() == 1:
        rows, start = [], 0
        for b in range(N):
            row = tg[start:start + tg_len[b]]
            start += tg_len[b]
            rows.append(cat([row, full((lmax - tg_len[b],), blank, dtype=int64, device=tg.device)]))
        tg = stack(rows) if rows else tg.reshape(0, 0)
    else:
        if tg.shape[1] < lmax:
            raise RuntimeError(f"Expected tensor to have size at least {lmax} at dimension 1, but got size "
                               f"{tg.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)")
        tg = tg[:, :lmax]
    S = 2 * lmax + 1
    dev = log_probs.device
    ext = full((N, S), blank, dtype=int64, device=dev)
    if lmax:
        ext[:, 1::2] = tg.to(dev)
    # s may come from s - 2: a label differing from the one two back (never a blank)
    skip = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg = float("-inf")
    ninf = full((N, 1), neg, dtype=log_probs.dtype, device=dev)
    ninf2 = full((N, 2), neg, dtype=log_probs.dtype, device=dev)
    valid = tensor([[s < 2 * tg_len[b] + 1 for s in range(S)] for b in range(N)], device=dev)
    lp0 = log_probs[0].gather(1, ext)
    init = tensor([[0.0 if s == 0 or (s == 1 and tg_len[b] > 0) else neg for s in range(S)] for b in range(N)],
                  dtype=log_probs.dtype, device=dev)
    alpha = (lp0 + init).masked_fill(~valid, neg)
    active = tensor(in_len, device=dev)
    for t in range(1, T):
        prev1 = cat([ninf, alpha[:, :-1]], 1)
        prev2 = cat([ninf2, alpha[:, :-2].masked_fill(~skip, neg)], 1)
        new = _safe_logsumexp([alpha, prev1, prev2], 0) + log_probs[t].gather(1, ext)
        new = new.masked_fill(~valid, neg)
        alpha = where((active > t).unsqueeze(1), new, alpha)
    last = tensor([2 * n for n in tg_len], dtype=int64, device=dev).unsqueeze(1)
    end_blank = alpha.gather(1, last).squeeze(1)
    end_label = alpha.gather(1, (last - 1).clamp(min=0)).squeeze(1)
    has_label = tensor([n > 0 for n in tg_len], device=dev)
    end_label = end_label.masked_fill(~has_label, neg)
    loss = -_safe_logsumexp([end_blank, end_label], 0)
    zero_len = tensor([n == 0 for n in in_len], device=dev)      # no input frames: only an empty target fits
    loss = where(zero_len, where(has_label, full((N,), float("inf"), dtype=loss.dtype, device=dev),
                                 full((N,), 0.0, dtype=loss.dtype, device=dev)), loss)
    if zero_infinity:
        loss = loss.masked_fill(loss.isinf(), 0.0)
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / tensor([max(n, 1) for n in tg_len], dtype=loss.dtype, device=dev)).mean()
