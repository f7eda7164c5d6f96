"""Philox4x32-10 in NumPy: the reference of ``cuda_kernels/philox.cu``, bit for bit.

Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC11) maps a 128-bit counter
and a 64-bit key to four 32-bit words. openreg's random stream for a ``(seed, offset)`` pair is the sequence
of words ``w[j] = philox(counter=j // 4, key=seed)[j % 4]``: the counter is the 64-bit block number in its
two low words (the high two are zero) and the key is the seed's low and high 32 bits. ``offset`` counts
words, so any part of a stream can be computed independently -- the CUDA kernel gives thread ``i`` word
``offset + i``, this module computes all of them at once.

Transforms of the stream (the kernel does the same arithmetic):

* ``uniform_f32``: ``(w >> 8) * 2**-24`` in [0, 1), one word per value;
* ``uniform_f64``: 53 bits from two consecutive words, ``(((w0 << 32) | w1) >> 11) * 2**-53`` in [0, 1),
  two words per value;
* ``normal``: Box-Muller on word pairs, value ``2k`` is ``r cos(theta)`` and ``2k + 1`` is ``r sin(theta)`` with
  ``u1 = (w[2k] + 1) * 2**-32`` in (0, 1], ``u2 = w[2k+1] * 2**-32``, ``r = sqrt(-2 log u1)``,
  ``theta = 2 pi u2``, computed in float64.

>>> [f"{w:08x}" for w in philox4x32_10([0, 0, 0, 0], [0, 0])]
['6627e8d5', 'e169c58d', 'bc57ac4c', '9b00dbd8']
>>> uint32_stream(7, 0, 6)[4:].tolist() == uint32_stream(7, 4, 2).tolist()
True
"""
from __future__ import annotations

import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = 0x9E3779B9, 0xBB67AE85
ROUNDS = 10
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


def _rounds(x0, x1, x2, x3, k0, k1):
    """The ten rounds on uint64 arrays holding 32-bit words; returns ``(L, R)`` with ``L = [x0, x2]`` and
    ``R = [x1, x3]`` of the output (``R``'s words carry garbage above bit 31: callers truncate to uint32).

    Lanes 0 and 2 are multiplied together as one ``(2, ...)`` array, so a round is five array operations
    instead of ten: ``x0' = hi(M1 x2) ^ x1 ^ k0``, ``x1' = lo(M1 x2)``, ``x2' = hi(M0 x0) ^ x3 ^ k1``,
    ``x3' = lo(M0 x0)``.
    """
    shape = np.broadcast_shapes(np.shape(x0), np.shape(x1), np.shape(x2), np.shape(x3), np.shape(k0),
                                np.shape(k1))
    lanes = np.empty((2,) + shape, dtype=np.uint64)
    lanes[0], lanes[1] = x0, x2
    other = np.empty((2,) + shape, dtype=np.uint64)
    other[0], other[1] = x1, x3
    tail = (1,) * len(shape)
    mult = np.array([M0, M1], dtype=np.uint64).reshape((2,) + tail)
    bump = np.array([W0, W1], dtype=np.uint64).reshape((2,) + tail)
    key = np.empty((2,) + np.broadcast_shapes(np.shape(k0), np.shape(k1)), dtype=np.uint64)
    key[0], key[1] = k0, k1
    key = key.reshape((2,) + (1,) * (len(shape) - key.ndim + 1) + key.shape[1:])
    for r in range(ROUNDS):
        if r:
            key = (key + bump) & _MASK32
        prod = lanes * mult                       # [M0 x0, M1 x2]
        high = prod >> _SHIFT32
        lanes = high[::-1] ^ other                # [hi(M1 x2) ^ x1, hi(M0 x0) ^ x3]
        lanes ^= key
        lanes &= _MASK32                          # other's words may carry high garbage
        other = prod[::-1]                        # [lo(M1 x2), lo(M0 x0)] before truncation
    return lanes, other


_MULTIPLIERS = np.array([[M0], [M1]], dtype=np.uint64)


def _stream_rounds(words, first: int, k0: int, k1: int) -> None:
    """The ten rounds for the counters ``(b & 0xFFFFFFFF, b >> 32, 0, 0)`` of blocks ``b = first, first + 1, ...``
    under one key, written into ``words`` (uint32, one row of four output words per block). The two lanes
    multiplied in a round are one stacked contiguous ``(2, n)`` array ``[x0, x2]`` (arrays reused), so a round
    is five array operations: the products ``p = [M0 x0, M1 x2]``; ``(q << 32 ^ p) >> 32`` with ``q`` the last
    round's products (their low words are ``[x3, x1]``; the shifts drop the garbage above bit 31, so nothing is
    masked), which is ``[x3 ^ hi(M0 x0), x1 ^ hi(M1 x2)]``; and that pair swapped and xored with the round key
    into the lanes (``x0' = hi(M1 x2) ^ x1 ^ k0``, ``x2' = hi(M0 x0) ^ x3 ^ k1``)."""
    n = words.shape[0]
    lanes = np.empty((2, n), np.uint64)         # [x0, x2]
    prev = np.empty((2, n), np.uint64)          # products whose low words are [x3, x1]
    prev[0] = 0
    if (first & 0xFFFFFFFF) + n <= 1 << 32:     # one high counter word for all blocks
        lanes[0] = np.arange(first & 0xFFFFFFFF, (first & 0xFFFFFFFF) + n, dtype=np.uint64)
        prev[1] = first >> 32
    else:
        blocks = np.arange(first, first + n, dtype=np.uint64)
        np.bitwise_and(blocks, _MASK32, lanes[0])
        np.right_shift(blocks, _SHIFT32, prev[1])
    lanes[1] = 0
    prod = np.empty((2, n), np.uint64)
    keys = np.array([[(k1 + r * W1) & 0xFFFFFFFF, (k0 + r * W0) & 0xFFFFFFFF] for r in range(ROUNDS)],
                    dtype=np.uint64).reshape(ROUNDS, 2, 1)     # per round [k1, k0]: the swapped order
    swapped = lanes[::-1]
    for r in range(ROUNDS):
        np.multiply(lanes, _MULTIPLIERS, prod)          # [M0 x0, M1 x2]
        np.left_shift(prev, _SHIFT32, prev)
        np.bitwise_xor(prev, prod, prev)
        np.right_shift(prev, _SHIFT32, prev)            # [x3 ^ hi(M0 x0), x1 ^ hi(M1 x2)]
        np.bitwise_xor(prev, keys[r], swapped)          # x2' = ... ^ k1, x0' = ... ^ k0
        prod, prev = prev, prod                         # the products' low words: the next [x3, x1]
    words[:, 0], words[:, 1], words[:, 2], words[:, 3] = lanes[0], prev[1], lanes[1], prev[0]    # truncating


_STREAM_CHUNK = 1 << 14     # blocks per pass: the arrays of one pass (2 x 16384 words) stay in the CPU's cache


def philox4x32_10(counter, key) -> np.ndarray:
    """Philox4x32-10 of ``counter`` (shape ``(4, ...)`` uint32) under ``key`` (shape ``(2, ...)``).

    Returns the four output words with the counter's shape. Arrays broadcast, so one key may serve many
    counters.

    >>> out = philox4x32_10([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2)
    >>> [f"{w:08x}" for w in out]
    ['408f276d', '41c83b0e', 'a20bc7c6', '6d5451fd']
    """
    ctr = np.asarray(counter, dtype=np.uint64)
    k = np.asarray(key, dtype=np.uint64)
    lanes, other = _rounds(ctr[0], ctr[1], ctr[2], ctr[3], k[0], k[1])
    out = np.empty((4,) + lanes.shape[1:], dtype=np.uint32)
    out[0], out[1], out[2], out[3] = lanes[0], other[0], lanes[1], other[1]    # truncating to 32 bits
    return out


def split_seed(seed: int) -> tuple[int, int]:
    """The key words (low, high) of a 64-bit seed.

    >>> split_seed(0x1234567890)
    (878082192, 18)
    """
    seed = int(seed) & 0xFFFF_FFFF_FFFF_FFFF
    return seed & 0xFFFFFFFF, seed >> 32


def uint32_stream(seed: int, offset: int, n: int) -> np.ndarray:
    """Words ``offset .. offset + n - 1`` of the stream of ``seed`` (uint32, shape ``(n,)``).

    >>> uint32_stream(0, 0, 4).tolist() == philox4x32_10([0, 0, 0, 0], [0, 0]).tolist()
    True
    """
    if n <= 0:
        return np.empty(0, dtype=np.uint32)
    first, last = offset // 4, (offset + n - 1) // 4
    k0, k1 = split_seed(seed)
    words = np.empty((last + 1 - first, 4), dtype=np.uint32)      # stream order: block by block
    for lo in range(0, len(words), _STREAM_CHUNK):
        _stream_rounds(words[lo:lo + _STREAM_CHUNK], first + lo, k0, k1)
    words = words.reshape(-1)
    start = offset - 4 * first
    return words[start:start + n]


def uniform_f32(seed: int, offset: int, n: int) -> np.ndarray:
    """``n`` float32 values in [0, 1) from words ``offset ..`` (24 bits each, exact).

    >>> v = uniform_f32(1, 0, 1000); bool((v >= 0).all() and (v < 1).all()), v.dtype
    (True, dtype('float32'))
    """
    w = uint32_stream(seed, offset, n)
    return ((w >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)).astype(np.float32)


def uniform_f64(seed: int, offset: int, n: int) -> np.ndarray:
    """``n`` float64 values in [0, 1) from words ``offset .. offset + 2n - 1`` (53 bits each, exact).

    >>> float(uniform_f64(3, 8, 2).max()) < 1.0
    True
    """
    w = uint32_stream(seed, offset, 2 * n).astype(np.uint64)
    bits = ((w[0::2] << _SHIFT32) | w[1::2]) >> np.uint64(11)
    return bits.astype(np.float64) * (2.0 ** -53)


def normal_f64(seed: int, offset: int, n: int) -> np.ndarray:
    """``n`` standard normal float64 values by Box-Muller on words ``offset .. offset + 2 ceil(n/2) - 1``.

    >>> v = normal_f64(0, 0, 20000); abs(float(v.mean())) < 0.05 and abs(float(v.std()) - 1) < 0.05
    True
    """
    pairs = (n + 1) // 2
    w = uint32_stream(seed, offset, 2 * pairs).astype(np.float64)
    u1 = (w[0::2] + 1.0) * (2.0 ** -32)
    u2 = w[1::2] * (2.0 ** -32)
    r = np.sqrt(-2.0 * np.log(u1))
    theta = (2.0 * np.pi) * u2
    out = np.empty(2 * pairs, dtype=np.float64)
    out[0::2] = r * np.cos(theta)
    out[1::2] = r * np.sin(theta)
    return out[:n]


def words_used(kind: str, n: int) -> int:
    """How many stream words a transform of ``n`` values reads (before rounding up to a whole block).

    >>> words_used("u32", 5), words_used("f64", 5), words_used("normal", 5)
    (5, 10, 6)
    """
    if kind in ("u32", "f32"):
        return n
    if kind in ("u64", "f64"):
        return 2 * n
    if kind == "normal":
        return 2 * ((n + 1) // 2)
    raise ValueError(f"unknown Philox transform {kind!r}")


__all__ = ["normal_f64", "philox4x32_10", "split_seed", "uint32_stream", "uniform_f32", "uniform_f64", "words_used"]
