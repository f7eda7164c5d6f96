"""``openreg.testing.make_tensor``: a random tensor for tests, with PyTorch's rules: values uniform in
``[low, high)`` (defaults -9 and 9 for floating and complex, -9 and 10 for integers, 0 and 2 for bool), bounds
clamped to the dtype's range, ``noncontiguous`` (every other element of a twice-as-wide last dimension, offset by
one), ``memory_format``, ``exclude_zero`` (zeros become 1, or the smallest normal float) and ``requires_grad``
(floating and complex only).

>>> import openreg
>>> t = openreg.testing.make_tensor(2, 3, dtype=openreg.float32, device="cpu", low=-1, high=1)
>>> t.shape, t.dtype, bool(((t >= -1) & (t < 1)).all())
(openreg.Size([2, 3]), openreg.float32, True)
>>> openreg.testing.make_tensor((4,), dtype=openreg.int64, device="cpu", noncontiguous=True).is_contiguous()
False
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import openreg

__all__ = ["make_tensor"]


def _interval(dtype, low, high, lowest: float, highest: float, default_low: float, default_high: float):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dtype.is_floating_point or dtype.is_complex):
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if not (dtype.is_floating_point or dtype.is_complex):
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform_(t, low: float, high: float):
    if high - low >= openreg.finfo(t.dtype).max:    # uniform_ needs high - low to be finite in the dtype
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None):
    """A tensor of ``shape`` on ``device`` with values drawn uniformly from ``[low, high)`` (see the module)."""
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    integral = dtype is openreg.bool or not (dtype.is_floating_point or dtype.is_complex)
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is openreg.bool:
        low, high = _interval(dtype, low, high, 0, 2, 0, 2)
        result = openreg.randint(low, high, shape, device=device, dtype=dtype)
    elif integral:
        info = openreg.iinfo(dtype)
        top = info.max + (1 if dtype is not openreg.int64 else 0)
        low, high = _interval(dtype, low, high, info.min, top, -9, 10)
        result = openreg.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype.is_narrow_float and dtype.itemsize == 1:       # float8: drawn in float32, then rounded
        info = openreg.finfo(dtype)
        low, high = _interval(dtype, low, high, info.min, info.max, -9, 9)
        result = _uniform_(openreg.empty(shape, device=device, dtype=openreg.float32), low, high).to(dtype)
    else:
        info = openreg.finfo(dtype)
        low, high = _interval(dtype, low, high, info.min, info.max, -9, 9)
        result = openreg.empty(shape, device=device, dtype=dtype)
        _uniform_(openreg.view_as_real(result) if dtype.is_complex else result, low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else openreg.finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result
