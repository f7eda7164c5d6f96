"""Blockwise (FlashAttention-style) scaled dot-product attention on arrays of the array module ``xp``.

Work is split three ways. Batch (and head) items go in chunks whose score tiles stay under ``TILE_BUDGET``
elements, so every temporary is small: multi-megabyte temporaries would be new memory (page faults) whenever
the process's allocator has given its free memory back in between. Queries go in blocks of ``BLOCK_Q``; keys
in tiles of up to ``BLOCK_K``. Causal attention (PyTorch's top-left alignment: query ``i`` sees keys
``j <= i``) takes the keys before a query block in plain tiles and the block's own keys as one square
diagonal tile masked with a small cached ``0/-inf`` tile, and skips the keys after it; an explicit mask is
sliced per tile from its broadcast view, never expanded.

Scores are formed transposed, ``(keys, queries)`` per tile (``k @ (q*scale)^T``; BLAS is fastest with the
keys as rows), so the softmax's sums over keys run along the second-to-last axis, as GEMMs with a ones row.
The forward takes ``exp`` of the scores as they are, without subtracting each row's maximum: the row sums
and ``p @ v`` then simply add up over the key tiles, so a tile costs two GEMMs, a GEMV and one elementwise
pass (two on a diagonal tile). That is exact unless something overflows or underflows, which the end of each
query block checks (every row sum at least ``2^-60`` (float32) / ``2^-500`` (float64), so its largest term is a
normal number and subnormal terms are below its rounding; the output finite); otherwise the chunk runs again
with the online softmax (running row maximum ``m``, rescaled sums), which handles any scores and rows whose
every key is masked (zeros and ``lse = -inf``, PyTorch's "safe softmax"). The forward returns the output and
the log-sum-exp of every row, in the compute dtype.

The backward recomputes each tile's probabilities from that log-sum-exp, ``p = exp(s - lse)``, with the
subtraction folded into the score GEMM (``[k, 1] @ [q*scale, -lse]^T``), and ``dp - D`` (``D = rowsum(dout *
out)``) likewise (``[v, 1] @ [dout, -D]^T``), then accumulates ``dq``, ``dk``, ``dv`` tile by tile.

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

import itertools
import math
from functools import lru_cache

import numpy as np

from .._quiet import enter_quiet, leave_quiet

BLOCK_Q = 64            # queries per tile: causal attention skips the keys past each block
BLOCK_K = 512           # keys per tile: NumPy's per-call cost favours wide tiles
TILE_BUDGET = 1 << 17   # score-tile elements per batch chunk (512 KiB in float32)
TRANSPOSE_COPY = None   # True/False forces contiguous copies of q^T and dout^T (tests, benchmarks); None: by size

# The unshifted forward's validity bound: every row sum at least this.
_TINY = {np.dtype(np.float32): 2.0 ** -60, np.dtype(np.float64): 2.0 ** -500}


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
def _causal_tile(size: int, dtype):
    """Transposed causal square on the host, ``(keys, queries)``: ``0`` where key ``j <= query i``, ``-inf``
    elsewhere."""
    j = np.arange(size)[:, None]
    i = np.arange(size)[None, :]
    return np.where(j <= i, 0.0, -np.inf).astype(dtype)


_DEVICE_TILES: dict = {}


def _causal_bias(xp, size, dtype):
    tile = _causal_tile(size, dtype)
    if xp is np:
        return tile
    key = (id(xp), size, dtype)
    dev = _DEVICE_TILES.get(key)
    if dev is None:
        dev = _DEVICE_TILES[key] = xp.asarray(tile)
    return dev


def _tiles(L: int, S: int, is_causal: bool) -> list:
    """``[(q0, q1, [(k0, k1, diagonal), ...]), ...]`` per query block. Causal attention takes the keys before
    the block (seen by all its queries) in tiles of ``BLOCK_K`` and the block's own keys as one square
    ``diagonal`` tile, masked; the keys after it are skipped."""
    out = []
    for q0 in range(0, L, BLOCK_Q):
        q1 = min(L, q0 + BLOCK_Q)
        seen = min(S, q0) if is_causal else S           # keys every query of the block sees
        ks = [(k0, min(seen, k0 + BLOCK_K), False) for k0 in range(0, seen, BLOCK_K)]
        if is_causal and q0 < S:
            ks.append((q0, min(S, q1), True))
        out.append((q0, q1, ks))
    return out


def _chunks(batch: tuple, per_item: int):
    """Index tuples over the leading broadcast batch axes, each selecting batch items whose score tiles
    (``per_item`` elements each) stay within ``TILE_BUDGET``; ``()`` when one chunk holds them all. The last
    indexed axis is sliced, the ones before it take single items."""
    if not batch or math.prod(batch) * per_item <= TILE_BUDGET:
        yield ()
        return
    inner, j = 1, len(batch) - 1
    while j > 0 and inner * batch[j] * per_item <= TILE_BUDGET:
        inner *= batch[j]
        j -= 1
    step = max(1, TILE_BUDGET // (inner * per_item))
    for lead in itertools.product(*(range(n) for n in batch[:j])):
        for s0 in range(0, batch[j], step):
            yield lead + (slice(s0, min(batch[j], s0 + step)),)


def _part(a, index, batch_dims: int, tail: int):
    """The part of ``a`` (batch dimensions broadcasting against ``batch_dims`` ones, then ``tail`` others) that
    ``index`` (from ``_chunks``) selects; dimensions ``a`` broadcasts along stay as they are."""
    if a is None or not index:
        return a
    offset = batch_dims - (a.ndim - tail)
    key = []
    for axis, ix in enumerate(index):
        i = axis - offset
        if i < 0:
            continue
        key.append((0 if isinstance(ix, int) else slice(None)) if a.shape[i] == 1 else ix)
    return a[tuple(key)]


def _scores_t(xp, ka, qa_t, mask, q0, q1, k0, k1, diagonal: bool):
    """The ``(keys, queries)`` score tile ``ka[k0:k1] @ qa_t[:, q0:q1]`` with the causal square (on a diagonal
    tile) and the explicit mask's tile applied (bool: keep where True; float: additive)."""
    s = xp.matmul(ka[..., k0:k1, :], qa_t[..., q0:q1])
    if diagonal:
        s += _causal_bias(xp, max(k1 - k0, q1 - q0), s.dtype)[:k1 - k0, :q1 - q0]
    if mask is not None:
        m = xp.swapaxes(mask[..., q0:q1, k0:k1], -1, -2)
        if m.dtype == bool:
            s = xp.where(m, s, s.dtype.type(-np.inf))
        else:
            s += m
    return s


def _append_column(xp, a, col, scale=None):
    """``a`` (times ``scale``) ``(..., n, e)`` with one more column ``col`` (a scalar): ``(..., n, e + 1)``,
    contiguous."""
    out = xp.empty(a.shape[:-1] + (a.shape[-1] + 1,), dtype=a.dtype)
    if scale is None:
        out[..., :-1] = a
    else:
        xp.multiply(a, a.dtype.type(scale), out=out[..., :-1])
    out[..., -1] = col
    return out


def _transposed(xp, a, row, batch, scale=None):
    """``(a_t, rows)`` for an ``(..., n, e)`` operand ``a`` (times ``scale``): ``a_t`` ``(batch..., e (+ 1), n)``
    is its transpose with ``row`` (an array ``(..., n)``, or None for no extra row) under it, ``rows`` its rows,
    contiguous. For small matrices ``a_t`` is a contiguous copy, on which BLAS is up to twice as fast as on a
    transposed view; for larger ones it is about as fast on the transposed view of ``rows``, which saves the
    transposing copy."""
    n, e = a.shape[-2], a.shape[-1]
    extra = row is not None
    if TRANSPOSE_COPY if TRANSPOSE_COPY is not None else (n <= 128 or e <= 32):
        rows = xp.ascontiguousarray(a)
        a_t = xp.empty(tuple(batch) + (e + extra, n), dtype=a.dtype)
        top = a_t[..., :e, :]
        top[...] = xp.swapaxes(rows, -1, -2)
        if scale is not None:
            top *= a.dtype.type(scale)
            rows = None
        if extra:
            a_t[..., e, :] = row
        return a_t, rows
    buf = xp.empty(tuple(batch) + (n, e + extra), dtype=a.dtype)
    rows = buf[..., :e]
    if scale is None:
        rows[...] = a
    else:
        xp.multiply(a, a.dtype.type(scale), out=rows)
    if extra:
        buf[..., e] = row
    return xp.swapaxes(buf, -1, -2), rows


def _col_sum(xp, s):
    """``sum`` over axis -2 as a GEMM with a ones row: ``(..., 1, n)``."""
    return xp.matmul(xp.ones((1, s.shape[-2]), dtype=s.dtype), s)


def _tile_elements(tiles) -> int:
    return max((q1 - q0) * (k1 - k0) for q0, q1, ks in tiles for k0, k1, _ in ks)


def forward(xp, q, k, v, mask, is_causal: bool, scale: float, keep=None):
    """``(out, lse)`` of softmax(q k^T * scale + mask) v; ``keep`` (dropout) scales kept weights, or None."""
    L, S = q.shape[-2], k.shape[-2]
    batch = _broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if S == 0 or L == 0:
        return xp.zeros(batch + (L, v.shape[-1]), dtype=q.dtype), xp.full(batch + (L,), -np.inf, dtype=q.dtype)
    tiles = _tiles(L, S, is_causal)
    out = lse = None
    nb = len(batch)
    for index in _chunks(batch, _tile_elements(tiles)):
        args = [_part(q, index, nb, 2), _part(k, index, nb, 2), _part(v, index, nb, 2), _part(mask, index, nb, 2),
                is_causal, scale, _part(keep, index, nb, 2), tiles]
        token = enter_quiet()       # the unshifted try may overflow; it is then discarded
        try:
            res = _forward_chunk(xp, *args, shifted=False)
        finally:
            leave_quiet(token)
        res = res if res is not None else _forward_chunk(xp, *args, shifted=True)
        if not index:
            return res
        if out is None:
            out = xp.empty(batch + (L, v.shape[-1]), dtype=q.dtype)
            lse = xp.empty(batch + (L,), dtype=q.dtype)
        out[index] = res[0]
        lse[index] = res[1]
    return out, lse


def _forward_chunk(xp, q, k, v, mask, is_causal, scale, keep, tiles, shifted: bool):
    """The forward of one batch chunk; ``shifted``: the online softmax. Unshifted, None when a row sum under-
    or overflowed (see the module's docstring)."""
    dt = q.dtype.type
    L = q.shape[-2]
    batch = _broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    qt = _transposed(xp, q, None, q.shape[:-2], scale)[0]
    single = len(tiles) == 1
    if not single:
        out = xp.empty(batch + (L, v.shape[-1]), dtype=q.dtype)
        lse = xp.empty(batch + (L,), dtype=q.dtype)
    may_empty = mask is not None       # a causal row always sees key 0; an explicit mask may hide every key
    for q0, q1, ks in tiles:
        m = acc = col_sum = None
        for k0, k1, diagonal in ks:
            s = _scores_t(xp, k, qt, mask, q0, q1, k0, k1, diagonal)
            if shifted:
                m_tile = s.max(axis=-2, keepdims=True)
                m_new = m_tile if m is None else xp.maximum(m, m_tile)
                m_use = xp.where(xp.isneginf(m_new), dt(0), m_new) if may_empty else m_new
                s -= m_use
            p = xp.exp(s, out=s)
            tile_sum = _col_sum(xp, p)
            if keep is not None:
                p *= xp.swapaxes(keep[..., q0:q1, k0:k1], -1, -2)
            pv = xp.matmul(xp.swapaxes(p, -1, -2), v[..., k0:k1, :])
            if acc is None:
                col_sum, acc = tile_sum, pv
            elif shifted:
                alpha = xp.exp(m - m_use)
                col_sum = col_sum * alpha + tile_sum
                acc = acc * xp.swapaxes(alpha, -1, -2) + pv
            else:
                col_sum += tile_sum
                acc += pv
            if shifted:
                m = m_new
        if shifted and may_empty:
            empty = col_sum == 0
            denom = xp.where(empty, dt(1), col_sum)
            acc = xp.where(xp.swapaxes(empty, -1, -2), dt(0), acc / xp.swapaxes(denom, -1, -2))
            lse_blk = xp.where(empty, dt(-np.inf), xp.log(denom) + m)
        else:
            if not shifted and not float(col_sum.min()) >= _TINY[col_sum.dtype]:
                return None
            acc /= xp.swapaxes(col_sum, -1, -2)
            if not shifted and not bool(xp.isfinite(acc.sum())):
                return None
            lse_blk = xp.log(col_sum) if not shifted else xp.log(col_sum) + m
        if single:
            return acc, lse_blk[..., 0, :]
        out[..., q0:q1, :] = acc
        lse[..., q0:q1] = lse_blk[..., 0, :]
    return out, lse


def probabilities(xp, q, k, mask, is_causal: bool, scale: float, lse):
    """The full attention weights ``exp(q k^T * scale + mask - lse)`` (only for ``return_debug_mask``)."""
    L, S = q.shape[-2], k.shape[-2]
    s = xp.matmul(k, xp.swapaxes(q * q.dtype.type(scale), -1, -2))
    if is_causal:
        s += _causal_bias(xp, max(L, S), s.dtype)[:S, :L]
    if mask is not None:
        m = xp.swapaxes(mask, -1, -2)
        s = xp.where(m, s, s.dtype.type(-np.inf)) if m.dtype == bool else s + m
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


def _add_rows(xp, acc, r0, r1, value, shape):
    """``acc[..., r0:r1, :] += value`` with ``acc`` created on first use (the value itself when it covers every
    row; key ranges of different query blocks differ under causal attention, so pieces may overlap)."""
    if acc is None:
        if r0 == 0 and r1 == shape[-2] and value.shape == shape:
            return value
        acc = xp.zeros(shape, dtype=value.dtype)
    acc[..., r0:r1, :] += value
    return acc


def backward(xp, grad_out, q, k, v, out, lse, mask, is_causal: bool, scale: float, keep=None,
             want=(True, True, True, False)):
    """``(dq, dk, dv, dmask)`` (None where ``want`` is False); ``dmask`` has the scores' broadcast shape."""
    L, S = q.shape[-2], k.shape[-2]
    batch = _broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    want_mask = want[3] and mask is not None
    shapes = (batch + q.shape[-2:], batch + k.shape[-2:], batch + v.shape[-2:], batch + (L, S))
    grads = [None] * 4
    if S and L:
        lse = _safe_lse(xp, lse) if mask is not None else lse
        tiles = _tiles(L, S, is_causal)
        nb = len(batch)
        for index in _chunks(batch, _tile_elements(tiles)):
            part = _backward_chunk(xp, _part(grad_out, index, nb, 2), _part(q, index, nb, 2),
                                   _part(k, index, nb, 2), _part(v, index, nb, 2), _part(out, index, nb, 2),
                                   _part(lse, index, nb, 1), _part(mask, index, nb, 2), is_causal, scale,
                                   _part(keep, index, nb, 2), want_mask, tiles)
            if not index:
                grads = list(part)
                break
            for i, g in enumerate(part):
                if g is not None:
                    if grads[i] is None:
                        grads[i] = xp.empty(shapes[i], dtype=q.dtype)
                    grads[i][index] = g
    for i in range(3):
        if grads[i] is None:
            grads[i] = xp.zeros(shapes[i], dtype=q.dtype)
    return (sum_to(xp, grads[0], q.shape) if want[0] else None,
            sum_to(xp, grads[1], k.shape) if want[1] else None,
            sum_to(xp, grads[2], v.shape) if want[2] else None,
            sum_to(xp, grads[3], mask.shape) if want_mask else None)


def _backward_chunk(xp, grad_out, q, k, v, out, lse, mask, is_causal, scale, keep, want_mask, tiles):
    """The backward of one batch chunk: ``(dq, dk, dv, dmask or None)`` in the chunk's broadcast batch shape
    (``lse`` already safe: ``+inf`` on fully masked rows)."""
    dt = q.dtype.type
    L, S = q.shape[-2], k.shape[-2]
    E, Ev = q.shape[-1], v.shape[-1]
    batch = _broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    dmask = xp.zeros(batch + (L, S), dtype=q.dtype) if want_mask else None
    row_dot = xp.matmul(grad_out * out, xp.ones((Ev,), dtype=q.dtype))     # D = rowsum(dout * out)
    qa_t, q = _transposed(xp, q, -lse, batch)                 # [k*scale, 1] @ [q, -lse]^T = s^T - lse
    ka = _append_column(xp, k, 1, scale)
    if keep is None:                                          # [v, 1] @ [dout, -D]^T = dp^T - D
        goa_t, go = _transposed(xp, grad_out, -row_dot, batch)
        va = _append_column(xp, v, 1)
    else:                                                     # dropout scales dp before D is taken off
        goa_t, go = _transposed(xp, grad_out, None, batch)
        va = v
    dq = dk = dv = None
    for q0, q1, ks in tiles:
        for k0, k1, diagonal in ks:
            s = _scores_t(xp, ka, qa_t, mask, q0, q1, k0, k1, diagonal)
            p = xp.exp(s, out=s)                              # P^T
            dp = xp.matmul(va[..., k0:k1, :], goa_t[..., q0:q1])
            if keep is None:
                dv = _add_rows(xp, dv, k0, k1, xp.matmul(p, go[..., q0:q1, :]), batch + (S, Ev))
            else:
                kt = xp.swapaxes(keep[..., q0:q1, k0:k1], -1, -2)
                dv = _add_rows(xp, dv, k0, k1, xp.matmul(p * kt, go[..., q0:q1, :]), batch + (S, Ev))
                dp *= kt
                dp -= row_dot[..., None, q0:q1]
            ds = xp.multiply(p, dp, out=dp)      # dS^T; dk and dq take the scale at the end
            dk = _add_rows(xp, dk, k0, k1, xp.matmul(ds, q[..., q0:q1, :]), batch + (S, E))
            dq = _add_rows(xp, dq, q0, q1, xp.matmul(xp.swapaxes(ds, -1, -2), k[..., k0:k1, :]), batch + (L, E))
            if dmask is not None:
                dmask[..., q0:q1, k0:k1] = xp.swapaxes(ds, -1, -2)
    dq *= dt(scale)
    dk *= dt(scale)
    return dq, dk, dv, dmask
