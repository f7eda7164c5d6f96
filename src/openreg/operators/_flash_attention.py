"""Blockwise (FlashAttention-style) scaled dot-product attention on arrays of the array module ``xp``.

Scores are formed transposed, ``(keys, queries)`` per tile (``k @ (q*scale)^T``), so the softmax's reductions
over keys run along the second-to-last axis: the row maximum as a few whole-array ``maximum`` calls on
halves of the tile and the row sum as a GEMM with a ones row, both far cheaper in NumPy than reducing the
innermost axis row by row. The forward walks the keys in blocks per block of queries and keeps a running row maximum ``m``, row sum
``l`` and unnormalised output (the online softmax), so only one ``(block_q, block_k)`` score tile per batch
exists at a time; it returns the output and the log-sum-exp ``m + log(l)`` of every row, in the compute dtype.
The backward recomputes each tile's probabilities from that log-sum-exp (``p = exp(s - lse)``) and
accumulates ``dq``, ``dk``, ``dv`` tile by tile with ``D = rowsum(dout * out)``. Causal attention (PyTorch's
top-left alignment: query ``i`` sees keys ``j <= i``) skips tiles above the diagonal and masks diagonal tiles
with a small cached ``0/-inf`` tile; an explicit mask is sliced per tile from its broadcast view, never
expanded. Rows whose every key is masked give zeros and ``lse = -inf`` (PyTorch's "safe softmax").

Batch dimensions broadcast as in ``matmul`` (grouped-query attention passes 5-d views); gradients are summed
back to each input's shape.

>>> import numpy as np
>>> q = np.array([[[1.0, 0.0], [0.0, 1.0]]])
>>> v = np.array([[[1.0, 2.0], [3.0, 4.0]]])
>>> out, lse = forward(np, q, q, v, None, True, 1.0)
>>> out[0, 0].tolist(), round(float(lse[0, 0]), 4)
([1.0, 2.0], 1.0)
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

BLOCK_Q = 128   # queries per tile
BLOCK_K = 256   # keys per tile: NumPy's per-call cost favours wide tiles


def _broadcast(*shapes) -> tuple:
    out: list = []
    for shape in shapes:
        pad = len(shape) - len(out)
        if pad > 0:
            out = [1] * pad + out
        for i, n in enumerate(shape, len(out) - len(shape)):
            if n != 1:
                out[i] = n
    return tuple(out)


@lru_cache(maxsize=64)
def _causal_tile(keys: int, queries: int, shift: int, dtype):
    """Transposed causal tile on the host: ``0`` where key ``j <= query i + shift``, ``-inf`` elsewhere."""
    j = np.arange(keys)[:, None]
    i = np.arange(queries)[None, :]
    return np.where(j <= i + shift, 0.0, -np.inf).astype(dtype)


_DEVICE_TILES: dict = {}


def _causal_bias(xp, keys, queries, shift, dtype):
    tile = _causal_tile(keys, queries, shift, dtype)
    if xp is np:
        return tile
    key = (id(xp), keys, queries, shift, dtype)
    dev = _DEVICE_TILES.get(key)
    if dev is None:
        dev = _DEVICE_TILES[key] = xp.asarray(tile)
    return dev


def _tiles(L: int, S: int, is_causal: bool):
    """``(q0, q1, [(k0, k1, needs_causal_mask), ...])`` per query block; causal skips keys past the block."""
    for q0 in range(0, L, BLOCK_Q):
        q1 = min(L, q0 + BLOCK_Q)
        k_end = min(S, q1) if is_causal else S
        ks = [(k0, min(S, k0 + BLOCK_K), is_causal and min(S, k0 + BLOCK_K) - 1 > q0)
              for k0 in range(0, k_end, BLOCK_K)]      # key tiles on one grid: the backward sums per tile
        yield q0, q1, ks


def _scores_t(xp, k_blk, qt_blk, mask, q0, q1, k0, k1, causal_tile: bool):
    """The ``(keys, queries)`` score tile with the causal tile and the explicit mask's tile applied
    (bool: keep where True; float: additive)."""
    s = xp.matmul(k_blk, qt_blk)
    if causal_tile:
        s += _causal_bias(xp, k1 - k0, q1 - q0, q0 - k0, s.dtype)
    if mask is not None:
        m = xp.swapaxes(mask[..., q0:q1, k0:k1], -1, -2)
        if m.dtype == bool:
            s = xp.where(m, s, s.dtype.type(-np.inf))
        else:
            s += m
    return s


def _col_max(xp, s):
    """``max`` over axis -2 (keepdims) by halving: whole-array ``maximum`` calls instead of a row-by-row
    reduction."""
    n = s.shape[-2]
    if n == 1:
        return s
    h = n // 2
    top = xp.maximum(s[..., :h, :], s[..., h:2 * h, :])
    if n % 2:
        top[..., :1, :] = xp.maximum(top[..., :1, :], s[..., 2 * h:, :])
    return _col_max(xp, top)


def _col_sum(xp, s):
    """``sum`` over axis -2 (keepdims) as a GEMM with a ones row."""
    return xp.matmul(xp.ones((1, s.shape[-2]), dtype=s.dtype), s)


def forward(xp, q, k, v, mask, is_causal: bool, scale: float, keep=None):
    """``(out, lse)`` of softmax(q k^T * scale + mask) v; ``keep`` (dropout) scales kept weights, or None."""
    dt = q.dtype.type
    L, S = q.shape[-2], k.shape[-2]
    batch = _broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if S == 0 or L == 0:
        return xp.zeros(batch + (L, v.shape[-1]), dtype=q.dtype), xp.full(batch + (L,), -np.inf, dtype=q.dtype)
    single = L <= BLOCK_Q
    if not single:
        out = xp.empty(batch + (L, v.shape[-1]), dtype=q.dtype)
        lse = xp.empty(batch + (L,), dtype=q.dtype)
    qt = xp.swapaxes(q * dt(scale), -1, -2)
    may_empty = mask is not None       # a causal row always sees key 0; an explicit mask may hide every key
    for q0, q1, ks in _tiles(L, S, is_causal):
        m = acc = col_sum = None
        for k0, k1, causal_tile in ks:
            s = _scores_t(xp, k[..., k0:k1, :], qt[..., q0:q1], mask, q0, q1, k0, k1, causal_tile)
            m_tile = _col_max(xp, s)
            m_new = m_tile if m is None else xp.maximum(m, m_tile)
            m_use = xp.where(xp.isneginf(m_new), dt(0), m_new) if may_empty else m_new
            s -= m_use
            p = xp.exp(s, out=s)
            tile_sum = _col_sum(xp, p)
            if keep is not None:
                p = p * xp.swapaxes(keep[..., q0:q1, k0:k1], -1, -2)
            pv = xp.matmul(xp.swapaxes(p, -1, -2), v[..., k0:k1, :])
            if m is None:
                col_sum, acc = tile_sum, pv
            else:
                alpha = xp.exp(m - m_use)
                col_sum = col_sum * alpha + tile_sum
                acc = acc * xp.swapaxes(alpha, -1, -2) + pv
            m = m_new
        if may_empty:
            empty = col_sum == 0
            denom = xp.where(empty, dt(1), col_sum)
            acc = xp.where(xp.swapaxes(empty, -1, -2), dt(0), acc / xp.swapaxes(denom, -1, -2))
            lse_blk = xp.where(empty, dt(-np.inf), xp.log(denom) + m)
        else:
            acc = acc / xp.swapaxes(col_sum, -1, -2)
            lse_blk = xp.log(col_sum) + m
        if single:
            return acc, lse_blk[..., 0, :]
        out[..., q0:q1, :] = acc
        lse[..., q0:q1] = lse_blk[..., 0, :]
    return out, lse


def probabilities(xp, q, k, mask, is_causal: bool, scale: float, lse):
    """The full attention weights ``exp(q k^T * scale + mask - lse)`` (only for ``return_debug_mask``)."""
    L, S = q.shape[-2], k.shape[-2]
    qt = xp.swapaxes(q * q.dtype.type(scale), -1, -2)
    s = _scores_t(xp, k, qt, mask, 0, L, 0, S, is_causal)
    return xp.swapaxes(xp.exp(s - _safe_lse(xp, lse)[..., None, :]), -1, -2)


def _safe_lse(xp, lse):
    """``lse`` with ``-inf`` (fully masked rows) replaced by ``+inf``, so ``exp(s - lse)`` is 0 there."""
    return xp.where(xp.isneginf(lse), lse.dtype.type(np.inf), lse)


def sum_to(xp, arr, shape):
    """Sum a broadcast gradient back to ``shape``."""
    lead = arr.ndim - len(shape)
    if lead:
        arr = arr.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and arr.shape[i] != 1)
    return arr.sum(axis=axes, keepdims=True) if axes else arr


def _accumulate(acc, index, value):
    """``acc[index] += value``, or ``acc[index] = value`` for the first contribution (``acc`` holds per-block
    arrays keyed by ``(start, stop)``)."""
    prev = acc.get(index)
    if prev is None:
        acc[index] = value
    else:
        prev += value


def _assemble(xp, parts, shape, dtype):
    """One array from the per-block pieces (no copy when one block covers it all), zeros where nothing landed."""
    if len(parts) == 1 and (0, shape[-2]) in parts:
        return parts[(0, shape[-2])]
    out = xp.zeros(shape, dtype=dtype)
    for (b0, b1), part in parts.items():
        out[..., b0:b1, :] = part
    return out


def backward(xp, grad_out, q, k, v, out, lse, mask, is_causal: bool, scale: float, keep=None,
             want=(True, True, True, False)):
    """``(dq, dk, dv, dmask)`` (None where ``want`` is False); ``dmask`` has the scores' broadcast shape."""
    dt = q.dtype.type
    L, S = q.shape[-2], k.shape[-2]
    batch = _broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    dmask = xp.zeros(batch + (L, S), dtype=q.dtype) if want[3] else None
    dq_parts: dict = {}
    dk_parts: dict = {}
    dv_parts: dict = {}
    if S and L:
        qs = q * dt(scale)
        qt = xp.swapaxes(qs, -1, -2)
        go_t = xp.swapaxes(grad_out, -1, -2)
        row_dot = _col_sum(xp, xp.swapaxes(grad_out * out, -1, -2))      # D = rowsum(dout * out), as (1, L)
        lse = (_safe_lse(xp, lse) if mask is not None else lse)[..., None, :]
        for q0, q1, ks in _tiles(L, S, is_causal):
            go, got, qb = grad_out[..., q0:q1, :], go_t[..., q0:q1], qs[..., q0:q1, :]
            for k0, k1, causal_tile in ks:
                s = _scores_t(xp, k[..., k0:k1, :], qt[..., q0:q1], mask, q0, q1, k0, k1, causal_tile)
                s -= lse[..., q0:q1]
                p = xp.exp(s, out=s)
                dp = xp.matmul(v[..., k0:k1, :], got)
                if keep is None:
                    _accumulate(dv_parts, (k0, k1), xp.matmul(p, go))
                else:
                    kt_ = xp.swapaxes(keep[..., q0:q1, k0:k1], -1, -2)
                    _accumulate(dv_parts, (k0, k1), xp.matmul(p * kt_, go))
                    dp *= kt_
                dp -= row_dot[..., q0:q1]
                ds = xp.multiply(p, dp, out=dp)      # dS^T; scale goes into qs (dk) and the end (dq)
                _accumulate(dk_parts, (k0, k1), xp.matmul(ds, qb))
                _accumulate(dq_parts, (q0, q1), xp.matmul(xp.swapaxes(ds, -1, -2), k[..., k0:k1, :]))
                if dmask is not None:
                    dmask[..., q0:q1, k0:k1] = xp.swapaxes(ds, -1, -2)
    dq = _assemble(xp, dq_parts, batch + q.shape[-2:], q.dtype)
    dk = _assemble(xp, dk_parts, batch + k.shape[-2:], q.dtype)
    dv = _assemble(xp, dv_parts, batch + v.shape[-2:], q.dtype)
    return (sum_to(xp, dq, q.shape) * dt(scale) if want[0] else None,
            sum_to(xp, dk, k.shape) if want[1] else None,
            sum_to(xp, dv, v.shape) if want[2] else None,
            sum_to(xp, dmask, mask.shape) if want[3] and mask is not None else None)


