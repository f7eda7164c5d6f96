"""Connectionist temporal classification loss of ``nn.functional`` (``ctc_loss``), as PyTorch's: the negative log
likelihood of each target under all alignments of its input, by the forward (alpha) recursion in log space over
the blank-extended target, and its gradient from the backward (beta) recursion, ``-exp(log_alpha + log_beta -
log_probs + nll)`` summed per class: a loop over time on the storage's array module, each step vectorised over
the batch and target positions. The gradient is the true one of ``log_probs`` (through ``log_softmax`` it equals
PyTorch's); unreachable states are ``-inf``; an impossible target (infinite loss) gets a zero gradient where
PyTorch's is NaN (``zero_infinity=True`` gives zero in both). Not differentiable twice (as PyTorch's).

>>> import openreg
>>> import openreg.nn.functional as F
>>> lp = openreg.full((2, 1, 2), 0.5).log()          # T=2, N=1, C=2 (blank 0): every path has probability 1/4
>>> round(F.ctc_loss(lp, openreg.tensor([[1]]), [2], [1], reduction="sum").item(), 6)   # 3 paths: -log(3/4)
0.287682
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import host_array
from .._quiet import quiet
from ..amp.composite import autocast_composite
from ..autograd.function import Function, once_differentiable
from ..tensor import Tensor

__all__ = ["ctc_loss"]


def _lengths(v) -> list:
    if isinstance(v, Tensor):
        return [int(x) for x in v.reshape(-1).tolist()]
    if isinstance(v, int):
        return [v]
    return [int(x) for x in v]


def _lse3_plus(xp, a, b, c, d, out, floor) -> None:
    """``out = log((exp(a - m) + exp(b - m)) + exp(c - m)) + m + d`` elementwise with ``m`` the largest of
    ``a, b, c`` (raised to the most negative finite ``floor``, so all-``-inf`` parts give ``-inf`` without NaN),
    in the order the tensor-op formulation of this recursion took; ``out=`` buffers keep a time step to a dozen
    ufunc calls."""
    m = xp.maximum(a, b)
    xp.maximum(m, c, out=m)
    xp.maximum(m, floor, out=m)
    s = xp.subtract(a, m)
    xp.exp(s, out=s)
    e = xp.subtract(b, m)
    xp.exp(e, out=e)
    s += e
    xp.subtract(c, m, out=e)
    xp.exp(e, out=e)
    s += e
    xp.log(s, out=s)
    s += m
    xp.add(s, d, out=out)


def _log_alpha(xp, lpe, skip_add, first):
    """Forward variables ``(T, N, S)`` in log space, ``lpe`` already ``-inf`` past each target: a loop over time,
    each step vectorised over the batch and the blank-extended target positions. Rows are stored with two
    leading ``-inf`` so ``s - 1`` and ``s - 2`` are views; steps past a sample's input length are computed and
    never read."""
    T, N, S = lpe.shape
    floor = xp.finfo(lpe.dtype).min
    buf = xp.full((T, N, S + 2), -xp.inf, dtype=lpe.dtype)
    if T:
        buf[0, :, 2:] = xp.where(first, lpe[0], -xp.inf)
    two_back = xp.empty((N, S), dtype=lpe.dtype)
    for t in range(1, T):
        prev = buf[t - 1]
        xp.add(prev[:, :S], skip_add, out=two_back)
        _lse3_plus(xp, prev[:, 2:], prev[:, 1:S + 1], two_back, lpe[t], buf[t, :, 2:], floor)
    return buf[:, :, 2:]


def _log_beta(xp, lpe, skip_add, last, in_len: list):
    """Backward variables ``(T, N, S)`` in log space, each sample's recursion starting at its last frame (before
    it a sample's rows stay ``-inf``). Rows carry two trailing ``-inf`` so ``s + 1`` and ``s + 2`` are views."""
    T, N, S = lpe.shape
    floor = xp.finfo(lpe.dtype).min
    buf = xp.full((T, N, S + 2), -xp.inf, dtype=lpe.dtype)
    skip_next = xp.full((N, S), -xp.inf, dtype=lpe.dtype)   # s may go on to s + 2
    skip_next[:, :S - 2] = skip_add[:, 2:]
    two_on = xp.empty((N, S), dtype=lpe.dtype)
    starts: dict = {}
    for n, length in enumerate(in_len):
        if length:
            starts.setdefault(length - 1, []).append(n)
    for t in reversed(range(T)):
        if t < T - 1:
            nxt = buf[t + 1]
            xp.add(nxt[:, 2:], skip_next, out=two_on)
            _lse3_plus(xp, nxt[:, :S], nxt[:, 1:S + 1], two_on, lpe[t], buf[t, :, :S], floor)
        if t in starts:
            rows = xp.asarray(starts[t])
            buf[t, rows, :S] = xp.where(last[rows], lpe[t, rows], -xp.inf)
    return buf[:, :, :S]


class _CTC(Function):
    """Per-sample negative log likelihoods of ``log_probs`` ``(T, N, C)`` for the blank-extended targets ``ext``
    ``(N, S)``; the gradient ``-exp(log_alpha + log_beta - log_probs + nll)`` summed per class, from the beta
    recursion (zero for impossible targets and after a sample's input length)."""

    @staticmethod
    def forward(ctx, log_probs, ext, tg_len, in_len, blank):
        from .._array_bridge import from_compute, to_compute, wrap_array
        lp = to_compute(log_probs)
        xp = log_probs._storage._backend.array_module
        if lp.dtype.itemsize < 4:
            lp = lp.astype(xp.float32)
        N, S = ext.shape
        ext = xp.asarray(ext)
        tg_len = xp.asarray(tg_len, dtype=xp.int64)
        in_len_list, in_len = in_len, xp.asarray(in_len, dtype=xp.int64)
        lpe = lp[:, xp.arange(N)[:, None], ext]                      # (T, N, S): each position's label
        pos = xp.arange(S)[None, :]
        valid = pos < 2 * tg_len[:, None] + 1
        lpe_valid = xp.where(valid, lpe, -xp.inf)
        skip_add = xp.full((N, S), -xp.inf, dtype=lp.dtype)        # 0 where s may come from s - 2
        skip_add[:, 2:][(ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])] = 0
        first = (pos == 0) | ((pos == 1) & (tg_len[:, None] > 0))
        with quiet():
            log_alpha = _log_alpha(xp, lpe_valid, skip_add, first)
        end = xp.clip(in_len - 1, 0, None)
        rows = xp.arange(N)
        a_end = log_alpha[end, rows]                               # (N, S) at each sample's last frame
        end_blank = a_end[rows, 2 * tg_len]
        end_label = xp.where(tg_len > 0, a_end[rows, xp.clip(2 * tg_len - 1, 0, None)], -xp.inf)
        nll = xp.empty_like(end_blank)
        with quiet():
            _lse3_plus(xp, end_blank, end_label, xp.full_like(end_blank, -xp.inf), 0, nll, xp.finfo(lp.dtype).min)
        nll = xp.where(in_len == 0, xp.where(tg_len > 0, xp.inf, 0.0), -nll).astype(lp.dtype)
        ctx.state = (xp, lp, lpe, lpe_valid, skip_add, ext, tg_len, in_len_list, log_alpha, nll, log_probs._dtype)
        return wrap_array(from_compute(nll, log_probs._dtype), log_probs._dtype, log_probs.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        from .._array_bridge import from_compute, to_compute, wrap_array
        from ..operators._scatter import accumulate_at
        xp, lp, lpe, lpe_valid, skip_add, ext, tg_len, in_len, log_alpha, nll, dtype = ctx.state
        T, N, C = lp.shape
        S = ext.shape[1]
        pos = xp.arange(S)[None, :]
        last = (pos == 2 * tg_len[:, None]) | ((pos == 2 * tg_len[:, None] - 1) & (tg_len[:, None] > 0))
        with quiet():
            log_beta = _log_beta(xp, lpe_valid, skip_add, last, in_len)
        g = to_compute(grad).astype(lp.dtype, copy=False)
        finite = xp.isfinite(nll)
        with quiet():
            post = xp.exp(log_alpha + log_beta - lpe + xp.where(finite, nll, 0)[None, :, None])   # (T, N, S)
        post = xp.where(finite[None, :, None], post, 0) * -g[None, :, None]
        out = xp.zeros(T * N * C, dtype=lp.dtype)
        key = (xp.arange(T * N).reshape(T, N, 1) * C + ext[None]).reshape(-1)
        accumulate_at(xp, out, key, post.reshape(-1), _dt.from_numpy(out.dtype))
        return (wrap_array(from_compute(out.reshape(T, N, C), dtype), dtype, grad.device), None, None, None,
                None)


@autocast_composite("ctc_loss.Tensor")
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
    from .. import tensor
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
    # the blank-extended targets: blank, label 1, blank, label 2, ..., blank (padded with blank)
    lmax = max(tg_len) if tg_len else 0
    tg = host_array(targets).astype(np.int64, copy=False)
    ext = np.full((N, 2 * lmax + 1), blank, dtype=np.int64)
    if tg.ndim == 1:
        start = 0
        for b in range(N):
            ext[b, 1:2 * tg_len[b]:2] = tg[start:start + tg_len[b]]
            start += tg_len[b]
    else:
        if tg.shape[1] < lmax:
            raise RuntimeError(f"Expected tensor to have size at least {lmax} at dimension 1, but got size "
                               f"{tg.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)")
        ext[:, 1::2] = tg[:, :lmax]
    loss = _CTC.apply(log_probs, ext, tg_len, in_len, blank)
    dev = log_probs.device
    if zero_infinity:
        loss = loss.masked_fill(loss.isinf(), 0.0)
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / tensor([max(n, 1) for n in tg_len], dtype=loss.dtype, device=dev)).mean()
