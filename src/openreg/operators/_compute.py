"""Helpers for compute functions written against the array module ``xp`` (NumPy on the CPU and the emulated
device, CuPy on the cuda driver): a tensor's array module, operands in the spec's compute dtype.

Operands are converted to the spec's compute dtype first, so NumPy's own promotion never decides a result
dtype; half-precision inputs of transcendental functions are computed in float32 and rounded once, as in
PyTorch.

>>> import openreg
>>> from openreg.aten.meta_rules import Spec
>>> x = openreg.tensor([1, 2])
>>> operand(x, Spec((2,), openreg.float64, x.device), xp_of(x)).dtype
dtype('float64')
"""
from __future__ import annotations

import numpy as np

from .._array_bridge import from_float32, to_compute, to_float32
from .._dispatch.keys import BACKEND_MASK
from .._quiet import quiet
from ..tensor import TensorBase

_F16 = np.dtype(np.float16)
_F64 = np.dtype(np.float64)


def xp_of(t):
    """The array module (numpy or cupy) of a tensor's storage."""
    return t._storage._backend.array_module


def as_compute(x, spec, xp):
    """An operand (tensor or Python scalar) as an array of the spec's compute dtype.

    An operand of another type is converted to the compute dtype as PyTorch's casts do, so a float16,
    bfloat16 or float8 computation (held in float32 for bfloat16 and float8) takes a Python scalar or a
    wrapped number rounded to that type (through float32, as c10's conversions from double go): ``bf16 + pi``
    adds bfloat16(pi). Kernels that keep a scalar in float32 instead take it through ``opmath_pair``.
    """
    target = spec.compute
    if hasattr(x, "_ks"):
        if x._dtype is target and target.compute_numpy is target.numpy:
            return x._array()
        arr = to_compute(x)
        np_dtype = target.compute_numpy
        if arr.dtype == np_dtype and (x._dtype is target or np_dtype is target.numpy):
            return arr
        if target.is_narrow_float:
            return to_float32(from_float32(arr, target), target)
        if np_dtype is _F16 and arr.dtype == _F64:
            arr = arr.astype(np.float32)
        return arr.astype(np_dtype)
    if target.rounds_scalars:
        return xp.asarray(rounded_scalar(x, target), dtype=target.compute_numpy)
    return xp.asarray(x, dtype=target.compute_numpy)


def rounded_scalar(x, target) -> float:
    """A real Python scalar rounded to the narrow float ``target`` (through float32, as PyTorch converts)."""
    with quiet():
        return float(np.asarray(np.asarray(x, dtype=np.float32).astype(target.numpy), dtype=np.float32))


def round_to(xp, values, d):
    """float32 ``values`` rounded to the float16/bfloat16/float8 type ``d``, back in float32."""
    if d.is_narrow_float:
        return to_float32(from_float32(values, d), d)
    with quiet():
        return values.astype(xp.float16).astype(xp.float32)


def is_cpu_scalar(x) -> bool:
    """A Python number or a zero-dim CPU tensor: what PyTorch's kernels read as one value (``is_cpu_scalar``)."""
    if isinstance(x, TensorBase):
        return not x._size and x._storage.device._type == "cpu"
    return True


def opmath_pair(spec, a, b):
    """``pair``, except that a float16 or bfloat16 computation with a scalar ``b`` (``is_cpu_scalar``) reads it
    in float32 (PyTorch's opmath type), not rounded to the 16-bit type, and computes in float32 (the result is
    rounded once): PyTorch's multiplication and division kernels take a scalar second operand this way, so
    ``float16 * pi`` multiplies by float32(pi). Other operands go as ``pair`` takes them.

    >>> import numpy as np, openreg
    >>> from openreg.aten.meta_rules import Spec
    >>> x = openreg.ones(1, dtype=openreg.float16)
    >>> xp, a, b = opmath_pair(Spec((1,), openreg.float16, x.device), x, 0.1)
    >>> a.dtype, float(b) == float(np.float32(0.1))
    (dtype('float32'), True)
    """
    if spec.compute.is_reduced_float and isinstance(a, TensorBase) and is_cpu_scalar(b):
        xp = xp_of(a)
        if isinstance(b, TensorBase):
            b = b.item()
        with quiet():
            value = np.float32(b)
        return xp, upcast(as_compute(a, spec, xp), xp), xp.asarray(value)
    return pair(spec, a, b)


def operand(x, spec, xp):
    """``x`` (tensor or scalar) in the compute dtype; a zero-dim CPU tensor joins a device computation."""
    if xp is not np and isinstance(x, TensorBase) and x._storage.device._type == "cpu":
        x = x.item()
    try:
        return as_compute(x, spec, xp)
    except OverflowError:  # an int scalar outside the integer dtype's range wraps around, as a C cast does
        return xp.asarray(np.asarray(x, dtype=np.int64).astype(spec.compute.numpy))


# Below this many result elements ``select`` is NumPy's where (one call beats four).
_SELECT_MIN = 2048
_UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def dense_order(a):
    """The axis order (outermost first) in which the NumPy array ``a``, not row-major, is one C-contiguous block (a
    channels_last tensor's, a transposed one's), or None.

    >>> import numpy as np
    >>> dense_order(np.zeros((2, 3, 4)).transpose(0, 2, 1)), dense_order(np.zeros((2, 3)))
    ([0, 2, 1], None)
    """
    if a.ndim < 2 or a.flags.c_contiguous or min(a.strides) < 0:
        return None
    order = sorted(range(a.ndim), key=lambda d: -a.strides[d])
    return order if a.transpose(order).flags.c_contiguous else None


def _in_memory_order(order, *arrays) -> list | None:
    """``arrays`` transposed to ``order`` when each is 0-d or a C-contiguous block in it, else None."""
    out = []
    for v in arrays:
        if v.ndim:
            v = v.transpose(order)
            if not v.flags.c_contiguous:
                return None
        out.append(v)
    return out


def _inverse(order) -> list:
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return inverse


def select(xp, cond, a, b, any_layout: bool = False):
    """``xp.where(cond, a, b)``, bit for bit, and several times faster for large NumPy arrays.

    NumPy's where branches per element, so an unpredictable mask (a ReLU's, a max-pool's comparison) costs
    about 20 multiplies per element. For C-contiguous arrays of one dtype of 1 to 8 bytes, the result is built
    without branches instead: the mask widened to all-ones words, ``(a & mask) | (b & ~mask)`` over the
    values' bits (which copies each chosen value exactly, NaN payloads and signed zeros included). The result is
    row-major, or the operands' layout when they are one permuted dense block (channels_last); ``any_layout``
    takes that path for other strided operands too (NumPy's where would keep their order).

    >>> import numpy as np
    >>> c = np.arange(4096) % 3 == 0
    >>> a, b = np.full(4096, -0.0), np.arange(4096.0)
    >>> bool((select(np, c, a, b) == np.where(c, a, b)).all()), str(select(np, c, a, b)[0])
    (True, '-0.0')
    """
    if (xp is not np or cond.__class__ is not np.ndarray or a.__class__ is not np.ndarray
            or b.__class__ is not np.ndarray or cond.dtype != np.bool_ or a.dtype != b.dtype
            or a.dtype.kind not in "biufc" or max(cond.size, a.size, b.size) < _SELECT_MIN):
        return xp.where(cond, a, b)
    if not (cond.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous):
        order = dense_order(cond)
        if order is not None and a.shape in (cond.shape, ()) and b.shape in (cond.shape, ()):
            same = _in_memory_order(order, cond, a, b)  # one permuted block (channels_last): chosen in memory order,
            if same is not None:                        # in that layout (the same values)
                return select(xp, *same, any_layout).transpose(_inverse(order))
        if not any_layout:
            return xp.where(cond, a, b)
    word = _UINTS.get(a.dtype.itemsize)
    if word is None:
        return xp.where(cond, a, b)
    shape = cond.shape
    if not ((a.shape == shape or not a.ndim) and (b.shape == shape or not b.ndim)):   # (a ReLU's zero is 0-d)
        shape = np.broadcast_shapes(shape, a.shape, b.shape)
    mask = np.empty(shape, word)
    mask[...] = cond.view(np.uint8)        # 1 / 0 (a widening copy: NumPy's casting ufunc loops are slower)
    a_bits, b_bits = a.view(word), b.view(word)
    if b.ndim == 0 and not b_bits:         # b is +0 (a ReLU's or its gradient's zero): a & (all ones if cond)
        np.negative(mask, out=mask)
        np.bitwise_and(mask, a_bits, out=mask)
        return mask.view(a.dtype)
    if a.ndim == 0 and not a_bits:         # a is +0: b & (all ones unless cond)
        np.subtract(mask, word(1), out=mask)
        np.bitwise_and(mask, b_bits, out=mask)
        return mask.view(a.dtype)
    out = np.negative(mask)                # True -> all ones, False -> 0
    np.bitwise_and(out, a_bits, out=out)
    np.subtract(mask, word(1), out=mask)   # the complement: False -> all ones, True -> 0
    np.bitwise_and(mask, b_bits, out=mask)
    np.bitwise_or(out, mask, out=out)
    return out.view(a.dtype)


_CONSTANT_CHUNK = 1 << 16
_constants: dict = {}      # (dtype, value bits) -> an array of _CONSTANT_CHUNK copies of the value


def with_constant(xp, ufunc, x, value, constant_first: bool = False):
    """``ufunc(x, value)`` (``ufunc(value, x)`` with ``constant_first``) for a zero-dim ``value`` of ``x``'s
    dtype, bit for bit. NumPy 2's ``maximum``/``minimum`` run 10-20x slower with a broadcast scalar operand than
    with an array (64K float32: ~80 us against 8 us), so on NumPy the value is read from a cached array of it,
    a chunk at a time. The result is row-major, or laid out as ``x`` when ``x`` is a permuted dense block.

    >>> import numpy as np
    >>> with_constant(np, np.maximum, np.arange(-2.0, 3.0), np.zeros(())).tolist()
    [0.0, 0.0, 0.0, 1.0, 2.0]
    """
    if xp is not np or x.__class__ is not np.ndarray or x.size < _SELECT_MIN:
        return ufunc(value, x) if constant_first else ufunc(x, value)
    key = (x.dtype, value.tobytes())
    chunk = _constants.get(key)
    if chunk is None:
        if len(_constants) >= 16:
            _constants.clear()
        chunk = _constants[key] = np.full(_CONSTANT_CHUNK, value, x.dtype)
    order = dense_order(x)
    if order is not None:       # a permuted block (channels_last): computed in memory order, returned in x's layout
        return with_constant(xp, ufunc, x.transpose(order), value, constant_first).transpose(_inverse(order))
    if x.size <= _CONSTANT_CHUNK and x.flags.c_contiguous:     # one call, in x's shape
        c = chunk[:x.size].reshape(x.shape)
        return ufunc(c, x) if constant_first else ufunc(x, c)
    src = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(src.shape, x.dtype)
    for lo in range(0, src.size, _CONSTANT_CHUNK):
        hi = min(src.size, lo + _CONSTANT_CHUNK)
        c = chunk[:hi - lo]
        if constant_first:
            ufunc(c, src[lo:hi], out=out[lo:hi])
        else:
            ufunc(src[lo:hi], c, out=out[lo:hi])
    return out.reshape(x.shape)


def axis_sums(xp, a, axis: int = -1):
    """``a.sum(axis=axis, keepdims=True)``; along the last axis of NumPy float32/float64 arrays in row-major order
    through BLAS (``rows @ ones``): NumPy reduces along short rows ~6x slower than the matrix-vector product (512
    rows of 48: 14 against 2.4 us). The same sum, in BLAS's order.

    >>> import numpy as np
    >>> axis_sums(np, np.arange(6.0).reshape(2, 3)).tolist(), axis_sums(np, np.arange(6.0).reshape(2, 3), 0).tolist()
    ([[3.0], [12.0]], [[3.0, 5.0, 7.0]])
    """
    if (xp is np and a.dtype in _BLAS_FLOATS and a.ndim and axis in (-1, a.ndim - 1) and a.shape[-1] > 1
            and a.flags.c_contiguous):
        n = a.shape[-1]
        return np.matmul(a.reshape(-1, n), _ones_vector(n, a.dtype)).reshape(a.shape[:-1] + (1,))
    return a.sum(axis=axis, keepdims=True)


def leading_sums(a, k: int, keepdim: bool = False):
    """The sum of a C-contiguous NumPy float32/float64 array over its first ``k`` axes (a bias gradient's
    reduction over the batch), as ``ones @ a`` through BLAS: NumPy reduces over leading axes one row at a time,
    3-6x slower at (512, 48)..(64, 256) (10 against 1.7 us), and in the same naive order that BLAS at worst
    matches; None when the layout or dtype does not allow it.

    >>> import numpy as np
    >>> leading_sums(np.arange(6.0).reshape(2, 3), 1).tolist(), leading_sums(np.ones((2, 2, 2)), 2, True).shape
    ([3.0, 5.0, 7.0], (1, 1, 2))
    """
    if a.__class__ is not np.ndarray or a.dtype not in _BLAS_FLOATS or not a.flags.c_contiguous or \
            not 0 < k < a.ndim:
        return None
    rows = 1
    for s in a.shape[:k]:
        rows *= s
    if rows < 2 or a.size == 0:
        return None
    kept = a.shape[k:]
    out = np.matmul(_ones_vector(rows, a.dtype), a.reshape(rows, -1)).reshape(kept)
    return out.reshape((1,) * k + kept) if keepdim else out


def _ones_vector(n: int, dtype):
    """A cached read-only vector of ``n`` ones of ``dtype`` (the summing operand of the BLAS reductions)."""
    key = (n, dtype)
    ones = _ones.get(key)
    if ones is None:
        if len(_ones) > 64:
            _ones.clear()
        ones = _ones[key] = np.ones(n, dtype)
        ones.flags.writeable = False
    return ones


def row_dots(xp, a, b):
    """``(a * b).sum(-1, keepdims=True)`` without the product array: a batch of row-by-column matrix products,
    ~3x faster than the product and its sum on NumPy (and on CuPy, which has no ``vecdot``).

    >>> import numpy as np
    >>> row_dots(np, np.arange(6.0).reshape(2, 3), np.ones((2, 3))).tolist()
    [[3.0], [12.0]]
    """
    return xp.matmul(a[..., None, :], b[..., :, None])[..., 0]


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ones: dict = {}    # (length, dtype) -> a read-only vector of ones


def pad_constant(xp, x, pads, value=0):
    """``x`` with ``pads`` ``[(before, after), ...]`` elements of ``value`` around each dimension: NumPy's
    ``pad(mode="constant")``, without its per-call Python overhead (about 3x a copy at a convolution's sizes)."""
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pads))
    out = xp.zeros(shape, x.dtype) if value == 0 else xp.full(shape, value, x.dtype)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, pads))] = x
    return out


def pair(spec, a, b):
    """The array module and both operands in the compute dtype (fast when no conversion is needed)."""
    if isinstance(a, TensorBase) and isinstance(b, TensorBase) and not (a._ks ^ b._ks) & BACKEND_MASK:
        d = spec.compute_dtype or spec.dtype
        if a._dtype is d and b._dtype is d and not d.is_narrow_float:
            return a._storage._backend.array_module, a._array(), b._array()
    xp = xp_of(a) if isinstance(a, TensorBase) else xp_of(b)
    return xp, operand(a, spec, xp), operand(b, spec, xp)


def upcast(arr, xp):
    """float16 computed in float32 (PyTorch's opmath type)."""
    return arr.astype(xp.float32) if arr.dtype == _F16 else arr


def f32_via_f64(xp, fn, x):
    """``fn`` of the float32 array ``x`` evaluated in float64 and rounded to float32: the correctly rounded float32
    value in all but rare cases, as PyTorch's vectorized float32 math (Sleef, within 1 ulp, almost always correctly
    rounded) gives it. The float16/bfloat16 kernels use it where NumPy's float32 ``exp``/``tanh``/... is off by an
    ulp that can move the 16-bit rounding.

    >>> import numpy as np
    >>> f32_via_f64(np, np.exp, np.float32([1.0])).dtype
    dtype('float32')
    """
    with quiet():
        return fn(x.astype(xp.float64)).astype(xp.float32)


def fma_f32(xp, x, y, z):
    """``x * y + z`` of float32 values with one rounding, as a fused multiply-add (the float32 product is exact in
    float64; the float64 sum rounds to float32 as the fused operation would in all but rare double-rounding cases).

    >>> import numpy as np
    >>> float(fma_f32(np, np.float32(3.0), np.float32(1 / 3), np.float32(-1.0))) != 0.0
    True
    """
    f64 = xp.float64
    with quiet():
        return (xp.asarray(x).astype(f64) * xp.asarray(y).astype(f64) + xp.asarray(z).astype(f64)).astype(xp.float32)


__all__ = ["as_compute", "f32_via_f64", "fma_f32", "is_cpu_scalar", "operand", "opmath_pair", "pad_constant", "pair", "quiet", "rounded_scalar", "select", "upcast", "xp_of"]
