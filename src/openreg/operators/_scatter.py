"""``dst[key] += vals`` with repeated indices accumulating, on NumPy and CuPy, for every dtype: the shared
core of ``index_put_(accumulate=True)``, ``scatter_add_``, embedding and pooling gradients.

>>> import numpy as np
>>> from openreg import dtypes
>>> dst = np.zeros(3, np.int8)
>>> accumulate_at(np, dst, (np.array([0, 0, 2]),), np.array([100, 100, 1], np.int8), dtypes.int8)
>>> dst.tolist()
[-56, 0, 1]
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_float32, to_float32


def accumulate_at(xp, dst, key, vals, dtype) -> None:
    """``dst[key] += vals`` with repeated indices accumulating, for any dtype (bfloat16 via float32, bool as or)."""
    if xp is not np:   # CuPy's atomic adds sum in no fixed order
        from ..deterministic import alert_not_deterministic
        alert_not_deterministic("an accumulating scatter (index_add_, scatter_add_, index_put_ with accumulate, "
                                "embedding backward) on the cuda driver")
    if dtype.is_narrow_float:
        work = to_float32(dst, dtype)
        _add_at(xp, work, key, to_float32(vals, dtype))
        dst[...] = from_float32(work, dtype)
    elif dtype is _dt.bool:
        # No ``logical_or.at`` on CuPy: count the true values landing on each element, then or the counts in.
        hits = xp.zeros(dst.shape, xp.int32)
        _add_at(xp, hits, key, xp.asarray(vals).astype(xp.int32))
        dst |= hits > 0
    else:
        _add_at(xp, dst, key, vals)


# CuPy's ``add.at`` takes only these dtypes (int32, int64, uint32, uint64, float16, float32, float64): others
# accumulate in a wider type of the same kind and are cast back once. Integer sums wrap modulo 2**bits either
# way, so the result equals accumulating in the narrow type. NumPy takes the same path, so CPU tests cover it.
_ADD_AT_WIDER = {np.dtype(k): np.dtype(v) for k, v in (("int8", "int32"), ("int16", "int32"), ("uint8", "uint32"),
                                                        ("uint16", "uint32"))}


def _add_at(xp, dst, key, vals) -> None:
    """Unbuffered ``dst[key] += vals`` (repeated indices accumulate) with ``ufunc.at``, on NumPy and CuPy."""
    vals = xp.asarray(vals)
    key = _plain_key(key)
    if dst.dtype.kind == "c":  # CuPy's add.at has no complex loops: real and imaginary parts apart
        real, imag = xp.ascontiguousarray(dst.real), xp.ascontiguousarray(dst.imag)
        _add_at(xp, real, key, vals.real)
        _add_at(xp, imag, key, vals.imag)
        dst[...] = real + 1j * imag
        return
    wider = _ADD_AT_WIDER.get(dst.dtype)
    if wider is None:
        if xp is np and _row_key(dst, key, vals):
            _add_rows(dst, key, vals.astype(dst.dtype, copy=False))
        else:
            xp.add.at(dst, key, vals.astype(dst.dtype, copy=False))
        return
    work = dst.astype(wider)
    xp.add.at(work, key, vals.astype(wider))
    dst[...] = work.astype(dst.dtype)




def _plain_key(key):
    """``key`` without trailing full slices, and a single index unwrapped from its tuple (the same elements):
    advanced indexing's ``(idx,)`` then takes the whole-row path (``x[idx]``'s gradient: 290 -> 56 us for 128
    rows of 256)."""
    if isinstance(key, tuple):
        while key and isinstance(key[-1], slice) and key[-1] == slice(None):
            key = key[:-1]
        if len(key) == 1 and not isinstance(key[0], slice):
            return key[0]
    return key


def _row_key(dst, key, vals) -> bool:
    """Whether ``dst[key] += vals`` adds whole rows: a 1-d integer index into ``dst``'s first axis (of a 2-d or
    higher ``dst``) with one row of ``vals`` per index."""
    return (isinstance(key, np.ndarray) and key.ndim == 1 and key.dtype.kind in "iu" and dst.ndim >= 2
            and key.size > 1 and vals.shape == (key.size,) + dst.shape[1:])


def _add_rows(dst, key, vals) -> None:
    """``np.add.at(dst, key, vals)`` for row keys, bit for bit: strictly increasing keys (each row once: an
    embedding of positions) as one fancy add; else ``_add_rows_padded`` when its padded block stays small and its
    reduction runs row after row (rows of two or more elements); else, into a C-contiguous ``dst``, one ``add.at``
    over the flattened elements (NumPy's 1-d ``ufunc.at`` loop, from 1.25 on: 8192 rows of 16 into 8192 with up
    to 9 repeats, as a grid_sample gradient, 1190 -> 370 us; 5000 rows of 1, 545 -> 22 us); else
    ``_add_rows_in_rounds``."""
    key, runs = _row_runs(dst, key)
    if runs is None:
        dst[key] += vals
        return
    order, ordered, starts, counts = runs
    depth = int(counts.max())
    width = math.prod(dst.shape[1:])
    if width >= 2 and starts.size * (depth + 1) <= 2 * key.size + 64:
        _add_rows_padded(dst, key, vals, order, ordered, starts, counts, depth)
    elif dst.flags.c_contiguous and _FAST_UFUNC_AT:
        _add_flat(dst, key, vals, width)
    else:
        _rounds(dst, key, vals, order, starts, counts)


_FAST_UFUNC_AT = np.lib.NumpyVersion(np.__version__) >= "1.25.0"    # ufunc.at's fast 1-d loops came in 1.25


def _add_flat(dst, key, vals, width: int) -> None:
    """``np.add.at`` over the flattened C-contiguous ``dst`` with the element positions of the (non-negative)
    row keys: every element receives its values one at a time in order of appearance, as with the row keys."""
    flat = (key[:, None] * width + np.arange(width)).reshape(-1)
    np.add.at(dst.reshape(-1), flat, vals.reshape(-1))


def _add_rows_padded(dst, key, vals, order, ordered, starts, counts, depth) -> None:
    """Each touched row's sum ``((dst[r] + v_1) + v_2) + ...`` (its values in order of appearance) as one
    reduction over a padded ``(rows, 1 + depth, ...)`` block: row ``r``'s slot holds ``dst[r]`` then its values,
    padded with the additive identity ``-0.0`` (``x + -0.0`` is ``x`` for every ``x``, signed zeros included), and
    ``add.reduce`` over the middle axis adds the slots one after the other (elementwise over the row; the
    reduction is not pairwise because the row, of two or more elements, is the inner loop) from the initial
    ``-0.0``."""
    u = starts.size
    rows = ordered[starts]
    zero = -0.0 if dst.dtype.kind == "f" else 0
    block = np.full((u, depth + 1) + dst.shape[1:], zero, dtype=dst.dtype)
    block[:, 0] = dst[rows]
    n = key.size
    # the flat slot of the j-th value in key order: its row's first slot + 1 + its occurrence number
    slot = np.repeat(np.arange(0, u * (depth + 1), depth + 1) - starts, counts)
    slot += np.arange(1, n + 1)
    where = np.empty(n, dtype=slot.dtype)
    where[order] = slot
    block.reshape((u * (depth + 1),) + dst.shape[1:])[where] = vals
    dst[rows] = np.add.reduce(block, axis=1, initial=zero)


def _add_rows_in_rounds(dst, key, vals) -> None:
    """``np.add.at(dst, key, vals)`` for row keys, bit for bit, ~1.5-3x faster: the k-th occurrences of every
    index are added in round k with one buffered fancy add (no index repeats within a round), so each row still
    receives its contributions one at a time in order of appearance."""
    key, runs = _row_runs(dst, key)
    if runs is None:
        dst[key] += vals
        return
    order, _, starts, counts = runs
    _rounds(dst, key, vals, order, starts, counts)


def _row_runs(dst, key) -> tuple:
    """``(key, runs)``: the row keys made non-negative (-1 and n-1 are the same row) and, unless they strictly
    increase (each row once: ``runs`` is None), ``runs = (order, ordered, starts, counts)``: the stable sort
    order of the keys, the sorted keys, and where each run of equal sorted keys starts and how long it is."""
    n = key.size
    key = np.where(key < 0, key + dst.shape[0], key)
    if bool((key[1:] > key[:-1]).all()):
        return key, None
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    counts = np.empty_like(starts)
    np.subtract(starts[1:], starts[:-1], out=counts[:-1])
    counts[-1] = n - starts[-1]
    return key, (order, ordered, starts, counts)


def _rounds(dst, key, vals, order, starts, counts) -> None:
    n = key.size
    rank = np.arange(n) - np.repeat(starts, counts)   # occurrence number
    by_round = np.argsort(rank, kind="stable")
    rows = order[by_round]
    bounds = np.searchsorted(rank[by_round], np.arange(int(rank.max()) + 2))
    for k in range(len(bounds) - 1):
        sel = rows[bounds[k]:bounds[k + 1]]
        dst[key[sel]] += vals[sel]


__all__ = ["accumulate_at"]
