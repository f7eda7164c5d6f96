"""Factory operators: ``empty``/``empty_strided``, ``zeros``, ``ones``, ``full``, ``arange``, ``linspace``,
``eye``, the ``*_like`` and ``new_*`` families, ``triu_indices``/``tril_indices`` and ``scalar_tensor``.

They have no tensor argument (or only a template tensor), so BackendSelect picks the kernel from ``device=``
(``Library.define`` registers it for every schema with a ``Device?`` argument). ``empty``/``empty_strided``
allocate through the storage backend of the requested device; the others allocate through them and fill with
``fill_``/``zero_`` or with values computed on the host and copied in (``arange``, ``linspace``, ``eye``,
``triu_indices``): one CompositeExplicitAutograd kernel serves the CPU, the device and Meta.

>>> import openreg
>>> openreg.arange(1, 7, 2).tolist(), openreg.arange(3.0).dtype
([1, 3, 5], openreg.float32)
>>> openreg.eye(2, 3, dtype=openreg.int64).tolist()
[[1, 0, 0], [0, 1, 0]]
>>> openreg.empty_strided((2, 3), (1, 2)).stride()
(1, 2)
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_compute, wrap_array
from .._dispatch.keys import AFTER_ADINPLACE_MASK
from .._dispatch.ops import A
from .._factory_args import finish, into, size_args, sizes_or_keyword
from ..aten.factories import empty_memory_format as _empty
from ..aten.factories import empty_strided as _empty_strided
from ..aten.factories import resolve_device
from ..aten.structured import resize_out
from ..aten.views import below_inplace_or_view, fresh
from ..devices import CPU
from ..memory_format import normalize, preserve_format, preserved_strides, strides_for
from ..scalar_conversion import as_tensor_scalar, check_scalar_fits
from ..storage_bounds import storage_nbytes
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._record import NONDIFF, Op, register


def from_host(arr: np.ndarray, dtype, device) -> Tensor:
    """A tensor on ``device`` holding host-computed values ``arr`` converted to ``dtype``."""
    dev = resolve_device(device)
    if dev._type == "meta":
        return _empty(arr.shape, dtype=dtype, device=dev)
    t = wrap_array(from_compute(arr, dtype), dtype, CPU)
    if dev._type == "cpu":
        return t
    return fresh(A._to_copy(t, device=dev))


def full_dtype(value):
    """The dtype ``full`` gives ``value`` when none is asked for (bool, int64, default float, complex)."""
    if isinstance(value, complex):
        return _dt.complex128 if _dt.get_default_dtype() is _dt.float64 else _dt.complex64
    return _dt.default_dtype_for_category(_dt.scalar_category(value))


def _alloc(size, dtype, device, pin_memory) -> Tensor:
    return _empty(size, dtype=dtype, device=device, pin_memory=pin_memory)


def _zero_new(t: Tensor) -> Tensor:
    """``zero_`` on a tensor this kernel just allocated: straight to its backend's kernel (the autograd and
    ADInplaceOrView layers have nothing to do for it: no history, and its version stays 0)."""
    A.zero_.redispatch_fn(t._ks & AFTER_ADINPLACE_MASK, t)
    return t


def _fill_new(t: Tensor, value) -> Tensor:
    """``fill_`` on a tensor this kernel just allocated (see ``_zero_new``)."""
    A.fill___Scalar.redispatch_fn(t._ks & AFTER_ADINPLACE_MASK, t, value)
    return t


def _zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _zero_new(_alloc(size, dtype, device, pin_memory))


def _ones(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _fill_new(_alloc(size, dtype, device, pin_memory), 1)


def _full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dtype = dtype or full_dtype(fill_value)
    return _fill_new(_alloc(size, dtype, device, pin_memory), fill_value)


def _is_float(x) -> bool:
    return isinstance(x, (float, complex))


def _arange_values(start, end, step, dtype):
    """The host values of arange, following PyTorch: bounds and step are first converted to the accumulate
    type (double for floating dtypes, int64 for integral ones, truncating), then checked; the length is
    ceil((end - start) / step)."""
    # PyTorch converts the bounds to int64 (integral dtypes), float (half types) or double first.
    convert = _dt.float64 if dtype.is_floating_point else _dt.int64
    if dtype is _dt.float16 or dtype is _dt.bfloat16:
        convert = _dt.float32
    for v in (start, end, step):
        check_scalar_fits(v, _dt.float64 if isinstance(v, complex) else convert)
    if isinstance(start, complex) or isinstance(end, complex) or isinstance(step, complex):
        raise RuntimeError("arange(): complex values are not supported")  # noqa: TRY004 (PyTorch's type)
    floating = dtype.is_floating_point or dtype.is_complex
    conv = float if floating else _trunc_int
    xstart, xend, xstep = conv(start), conv(end), conv(step)
    if xstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart} -> {xend}")
    if (xstep > 0 and xend < xstart) or (xstep < 0 and xend > xstart):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is _dt.int64:
        sgn = 1 if xstep > 0 else -1
        n = (xend - xstart + xstep - sgn) // xstep  # numerator and step share a sign: floor == C++'s trunc
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    storage_nbytes((n,), None, dtype.itemsize)  # a length int64 bytes cannot hold raises PyTorch's error
    if floating:
        return xstart + xstep * np.arange(n, dtype=np.float64)
    return xstart + xstep * np.arange(n, dtype=np.int64)


def _trunc_int(x) -> int:
    if isinstance(x, float) and not math.isfinite(x):
        raise RuntimeError(f"unsupported range: {x}")
    return int(x)  # C++'s conversion: truncation toward zero


def _arange_dtype(dtype, *values):
    if dtype is not None:
        return dtype
    return _dt.get_default_dtype() if any(_is_float(v) for v in values) else _dt.int64


def _arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dtype = _arange_dtype(dtype, start, end, step)
    if dtype is _dt.bool:
        raise RuntimeError("\"arange_cpu\" not implemented for 'Bool'")
    if dtype.is_complex:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'ComplexFloat'")
    if dtype in _dt.FLOAT8_DTYPES:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.scalar_name}'")
    return from_host(_arange_values(start, end, step, dtype), dtype, device)


def _arange(end, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _arange_start_step(0, end, 1, dtype=dtype, device=device, pin_memory=pin_memory)


def _arange_start(start, end, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _arange_start_step(start, end, 1, dtype=dtype, device=device, pin_memory=pin_memory)


def _arange_start_out(start, end, step=1, *, out: Tensor) -> Tensor:
    values = _arange_values(start, end, step, out._dtype)
    resize_out("arange", out, values.shape)
    if not out.is_meta:
        with below_inplace_or_view():
            A.copy_(out, from_host(values, out._dtype, CPU))
    return out


def _arange_out(end, *, out: Tensor) -> Tensor:
    return _arange_start_out(0, end, 1, out=out)


def _linspace(start, end, steps: int, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        complex_in = isinstance(start, complex) or isinstance(end, complex)
        dtype = full_dtype(1j) if complex_in else _dt.get_default_dtype()
    # PyTorch computes in the output's own precision (float32 for float32 ...), in double for integers.
    work = {"float64": np.float64, "float16": np.float16, "complex64": np.complex64,
            "complex128": np.complex128}.get(dtype.name, np.float32 if dtype.is_floating_point else np.float64)
    if not (dtype.is_floating_point or dtype.is_complex):
        start, end = _trunc_int(start.real if isinstance(start, complex) else start), \
            _trunc_int(end.real if isinstance(end, complex) else end)
    out = _alloc((steps,), dtype, device, pin_memory)     # the allocator's size checks before any host work
    if out.device.type == "meta":
        return out
    try:
        values = _linspace_values(start, end, steps, work)
    except MemoryError:
        raise RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{steps * np.dtype(work).itemsize} bytes.") from None
    if not (dtype.is_floating_point or dtype.is_complex):
        values = np.trunc(values.real).astype(np.int64)
    del out
    return from_host(values, dtype, device)


def _linspace_values(start, end, steps: int, work):
    idx = np.arange(steps).astype(work)
    if steps == 1:
        values = np.full(1, start, dtype=work)
    else:
        s, e = work(start), work(end)
        step = (e - s) / work(steps - 1)
        half = steps // 2
        # PyTorch's symmetric formula: the first half counts up from start, the second down from end.
        values = np.where(np.arange(steps) < half, s + step * idx, e - step * (work(steps - 1) - idx)).astype(work)
    return values


def _scalar_of(op: str, name: str, t: Tensor):
    if t.dim() != 0:
        raise RuntimeError(f"{op}(): argument '{name}' must be a 0-dim tensor (a scalar), but got a tensor with "
                           f"{t.dim()} dimensions")
    return t.item()


def _linspace_tensor_tensor(start, end, steps: int, *, dtype=None, layout=None, device=None,
                           pin_memory=None) -> Tensor:
    s = _scalar_of("linspace", "start", start) if isinstance(start, Tensor) else start
    e = _scalar_of("linspace", "end", end) if isinstance(end, Tensor) else end
    if device is None:
        device = (start if isinstance(start, Tensor) else end).device
    return _linspace(s, e, steps, dtype=dtype, device=device, pin_memory=pin_memory)


def _eye_m(n: int, m: int, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    # Allocate first (the allocator's size checks and errors), then zero and fill the diagonal in place:
    # no host temporary of n * m values.
    out = _zero_new(_alloc((n, m), dtype or _dt.get_default_dtype(), device, pin_memory))
    if min(n, m) and out.device.type != "meta":
        diagonal = A.as_strided(out, (min(n, m),), (m + 1,), 0)
        A.fill___Scalar.redispatch_fn(diagonal._ks & AFTER_ADINPLACE_MASK, diagonal, 1)
    return fresh(out)


def _eye(n: int, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _eye_m(n, n, dtype=dtype, device=device, pin_memory=pin_memory)


def _like_alloc(self: Tensor, dtype, device, pin_memory, memory_format) -> Tensor:
    fmt = normalize(memory_format)
    stride = preserved_strides(self) if fmt is preserve_format else strides_for(self._size, fmt)
    out = _empty_strided(self._size, stride, dtype=dtype or self._dtype,
                         device=self.device if device is None else device)
    return out.pin_memory() if pin_memory else out


def _empty_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    return _like_alloc(self, dtype, device, pin_memory, memory_format)


def _zeros_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    return _zero_new(_like_alloc(self, dtype, device, pin_memory, memory_format))


def _ones_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    return _fill_new(_like_alloc(self, dtype, device, pin_memory, memory_format), 1)


def _full_like(self, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None) -> Tensor:
    return _fill_new(_like_alloc(self, dtype, device, pin_memory, memory_format), fill_value)


def _tri_rows(row: int, col: int, offset: int, upper: bool) -> tuple[int, int, int]:
    """``(first, stop, count)``: the rows that hold indices of the triangle, and how many indices there are.

    Exact Python arithmetic, so a huge or extreme ``offset`` or size never reaches NumPy.
    """
    def clamp(v: int, lo: int, hi: int) -> int:
        return max(lo, min(v, hi))

    def series(a: int, b: int, c: int) -> int:       # sum of (c + i) for a <= i < b
        return 0 if b <= a else (b - a) * c + (b - a) * (a + b - 1) // 2
    if col == 0:
        return 0, 0, 0
    if upper:                                        # row i: columns [max(0, i + offset), col)
        first, stop = 0, clamp(col - offset, 0, row)
        split = clamp(-offset, first, stop)          # rows before it are full
        return first, stop, (split - first) * col + (stop - split) * (col - offset) - series(split, stop, 0)
    first, stop = clamp(-offset, 0, row), row        # row i: columns [0, min(col, i + offset + 1))
    split = clamp(col - offset - 1, first, stop)     # rows from it on are full
    return first, stop, series(first, split, offset + 1) + (stop - split) * col


def _tri_indices(op: str, row: int, col: int, offset: int, dtype, device, upper: bool) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"\"{op}\" not implemented for '{dtype.name}'")
    offset = max(-row - 1, min(offset, col + 1))     # beyond these the triangle is empty or full anyway
    first, stop, count = _tri_rows(row, col, offset, upper)
    if 2 * count * dtype.itemsize > (1 << 63) - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[2, {count}]")
    dev = resolve_device(device)
    out = _empty((2, count), dtype=dtype, device=dev if dev._type == "meta" else CPU)
    if dev._type == "meta" or count == 0:
        return out if dev._type in ("meta", "cpu") else fresh(A._to_copy(out, device=dev))
    i = np.arange(first, stop, dtype=np.int64)
    start = np.maximum(i + offset, 0) if upper else np.zeros_like(i)
    lengths = (col - start) if upper else np.minimum(i + offset + 1, col)
    ends = np.cumsum(lengths)
    values = out._array()
    values[0] = np.repeat(i, lengths)
    values[1] = np.arange(count, dtype=np.int64) - np.repeat(ends - lengths - start, lengths)
    return out if dev._type == "cpu" else fresh(A._to_copy(out, device=dev))


def _triu_indices(row: int, col: int, offset: int = 0, *, dtype=_dt.int64, layout=None, device=None,
                 pin_memory=None) -> Tensor:
    return _tri_indices("triu_indices", row, col, offset, dtype or _dt.int64, device, True)


def _tril_indices(row: int, col: int, offset: int = 0, *, dtype=_dt.int64, layout=None, device=None,
                 pin_memory=None) -> Tensor:
    return _tri_indices("tril_indices", row, col, offset, dtype or _dt.int64, device, False)


def _scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    if dtype is None:
        dtype = full_dtype(1j) if isinstance(s, complex) else _dt.get_default_dtype()
    return _fill_new(_alloc((), dtype, device, pin_memory), as_tensor_scalar(s, dtype))


def _new_opts(self, dtype, device):
    return dtype or self._dtype, self.device if device is None else device


def _new_empty(self, size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dtype, device = _new_opts(self, dtype, device)
    return _empty(size, dtype=dtype, device=device, pin_memory=pin_memory)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dtype, device = _new_opts(self, dtype, device)
    return _empty_strided(size, stride, dtype=dtype, device=device, pin_memory=pin_memory)


def _new_zeros(self, size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _zero_new(_new_empty(self, size, dtype=dtype, device=device, pin_memory=pin_memory))


def _new_ones(self, size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _fill_new(_new_empty(self, size, dtype=dtype, device=device, pin_memory=pin_memory), 1)


def _new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _new_empty(self, size, dtype=dtype, device=device, pin_memory=pin_memory)
    return _fill_new(out, fill_value)



# -- openreg.<fn>: PyTorch's Python signatures (sizes as ``*size`` or one sequence, requires_grad=, out=) ------
def _item(x):
    return x.item() if isinstance(x, Tensor) else x


def _size_of(size) -> tuple:
    return size_args((size,) if isinstance(size, (int, np.integer)) else tuple(size))


def empty(*sizes, size=None, dtype=None, device=None, requires_grad=False, pin_memory=False, layout=None,
          memory_format=None, out=None) -> Tensor:
    """An uninitialised tensor of ``size``.

    >>> import openreg
    >>> openreg.empty(2, 3).shape, openreg.empty((2, 3), dtype=openreg.int64).dtype
    (openreg.Size([2, 3]), openreg.int64)
    """
    size = sizes_or_keyword('empty', sizes, size)
    t = A.empty__memory_format(size, dtype=dtype, device=device, pin_memory=pin_memory or None,
                               memory_format=memory_format)
    return finish(into(t, out), requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False,
                  layout=None) -> Tensor:
    """An uninitialised tensor with explicit strides.

    >>> import openreg
    >>> openreg.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    t = A.empty_strided(tuple(size), tuple(stride), dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(t, requires_grad)


def zeros(*sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, out=None) -> Tensor:
    """A tensor of zeros.

    >>> import openreg
    >>> openreg.zeros(2, 1).tolist()
    [[0.0], [0.0]]
    """
    size = sizes_or_keyword('zeros', sizes, size)
    t = A.zeros(size, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(into(t, out), requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, out=None) -> Tensor:
    """A tensor of ones.

    >>> import openreg
    >>> openreg.ones(2, dtype=openreg.int64).tolist()
    [1, 1]
    """
    size = sizes_or_keyword('ones', sizes, size)
    t = A.ones(size, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(into(t, out), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False,
         out=None) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from the value when not given).

    >>> import openreg
    >>> openreg.full((2,), True).dtype, openreg.full((1,), 2.5).tolist()
    (openreg.bool, [2.5])
    """
    t = A.full(_size_of(size), _item(fill_value), dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(into(t, out), requires_grad)


def arange(*args, start=None, end=None, step=None, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """``arange(end)``, ``arange(start, end)``, ``arange(start, end, step)``: int64 unless a bound is float.

    >>> import openreg
    >>> openreg.arange(5).tolist(), openreg.arange(0, 1, 0.25).tolist()
    ([0, 1, 2, 3, 4], [0.0, 0.25, 0.5, 0.75])
    """
    args = [_item(a) for a in args]
    if len(args) > 3:
        raise TypeError(f"arange() takes from 1 to 3 positional arguments but {len(args)} were given")
    if len(args) == 1:
        if end is not None:
            start, end = args[0], _item(end)
        else:
            end = args[0]
    elif len(args) >= 2:
        start, end = args[0], args[1]
        if len(args) == 3:
            step = args[2]
    start = 0 if start is None else _item(start)
    step = 1 if step is None else _item(step)
    if end is None:
        raise TypeError("arange() missing required argument 'end'")
    end = _item(end)
    if out is not None:
        return A.arange__start_out(start, end, step, out=out)
    t = A.arange__start_step(start, end, step, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(t, requires_grad)


def linspace(start, end, steps: int, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    >>> import openreg
    >>> openreg.linspace(-1, 1, 5).tolist()
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    t = A.linspace(_item(start), _item(end), steps, dtype=dtype, device=device)
    if out is not None:
        resize_out("linspace", out, t._size)
        return out.copy_(t)
    return finish(t, requires_grad)


def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad: bool = False) -> Tensor:
    """The identity matrix (``n`` x ``m``).

    >>> import openreg
    >>> openreg.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    t = A.eye(n, dtype=dtype, device=device) if m is None else A.eye__m(n, m, dtype=dtype, device=device)
    return finish(t, requires_grad)


def _like(op, input, *args, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
          pin_memory=False):
    return finish(op(input, *args, dtype=dtype, device=device, memory_format=memory_format,
                     pin_memory=pin_memory or None), requires_grad)


def empty_like(input: Tensor, **kwargs) -> Tensor:
    """An uninitialised tensor like ``input`` (same strides when it is dense).

    >>> import openreg
    >>> openreg.empty_like(openreg.zeros(2, 3).t()).stride()
    (1, 3)
    """
    return _like(A.empty_like, input, **kwargs)


def zeros_like(input: Tensor, **kwargs) -> Tensor:
    """Zeros shaped like ``input``.

    >>> import openreg
    >>> openreg.zeros_like(openreg.ones(2)).tolist()
    [0.0, 0.0]
    """
    return _like(A.zeros_like, input, **kwargs)


def ones_like(input: Tensor, **kwargs) -> Tensor:
    """Ones shaped like ``input``.

    >>> import openreg
    >>> openreg.ones_like(openreg.zeros(2, dtype=openreg.int32)).tolist()
    [1, 1]
    """
    return _like(A.ones_like, input, **kwargs)


def full_like(input: Tensor, fill_value, **kwargs) -> Tensor:
    """``fill_value`` shaped like ``input`` (and of its dtype unless ``dtype=`` is given).

    >>> import openreg
    >>> openreg.full_like(openreg.zeros(2), 7).tolist()
    [7.0, 7.0]
    """
    return _like(A.full_like, input, _item(fill_value), **kwargs)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """Row and column indices (2 x N) of the upper triangle of a ``row`` x ``col`` matrix.

    >>> import openreg
    >>> openreg.triu_indices(3, 3).tolist()
    [[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]
    """
    return A.triu_indices(row, col, offset, dtype=dtype or _dt.int64, device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """Row and column indices (2 x N) of the lower triangle of a ``row`` x ``col`` matrix.

    >>> import openreg
    >>> openreg.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    return A.tril_indices(row, col, offset, dtype=dtype or _dt.int64, device=device)


def scalar_tensor(s, *, dtype=None, device=None, layout=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """A 0-dim tensor holding ``s`` (default dtype unless given).

    >>> import openreg
    >>> openreg.scalar_tensor(3).item(), openreg.scalar_tensor(3).dtype
    (3.0, openreg.float32)
    """
    return finish(A.scalar_tensor(_item(s), dtype=dtype, device=device), requires_grad)



_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LIKE = _OPTS + ", MemoryFormat? memory_format=None"
_LONG_OPTS = "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None"
CEA = "CompositeExplicitAutograd"


def factory(name: str, schemas: str, kernels: dict, nondiff: tuple = (), function=False) -> Op:
    """A factory record: CompositeExplicitAutograd kernels ``{overload: fn}``, no derivative for the overloads
    in ``nondiff`` (their results never require grad), its ``openreg.<fn>`` written above (``function``: sizes
    as ``*size``, ``requires_grad=``, ``out=``); the ``new_*`` methods are in ``_tensor_methods_views.py``."""
    return Op(name, schemas, kernels={o: {CEA: fn} for o, fn in kernels.items()},
              derivatives=dict.fromkeys(nondiff, NONDIFF), function=function, method=False)


empty_op = factory("empty", f"""
    empty.memory_format(SymInt[] size, *, {_OPTS}, MemoryFormat? memory_format=None) -> Tensor  [core]
    """, {"empty.memory_format": _empty}, ("empty.memory_format",), function=empty)
empty_strided_op = factory("empty_strided", f"""
    empty_strided(SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor  [core]
    """, {"empty_strided": _empty_strided}, ("empty_strided",), function=empty_strided)
zeros_op = factory("zeros", f"zeros(SymInt[] size, *, {_OPTS}) -> Tensor", {"zeros": _zeros}, ("zeros",), function=zeros)
ones_op = factory("ones", f"ones(SymInt[] size, *, {_OPTS}) -> Tensor", {"ones": _ones}, ("ones",), function=ones)
full_op = factory("full", f"full(SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor  [core]", {"full": _full},
               ("full",), function=full)
arange_op = factory("arange", f"""
    arange(Scalar end, *, {_OPTS}) -> Tensor
    arange.start(Scalar start, Scalar end, *, {_OPTS}) -> Tensor
    arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor  [core]
    arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)
    arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)
    """, {"arange": _arange, "arange.start": _arange_start, "arange.start_step": _arange_start_step,
          "arange.out": _arange_out, "arange.start_out": _arange_start_out},
    ("arange", "arange.start", "arange.start_step"), function=arange)
linspace_op = factory("linspace", f"""
    linspace(Scalar start, Scalar end, int steps, *, {_OPTS}) -> Tensor
    linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, {_OPTS}) -> Tensor
    linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, {_OPTS}) -> Tensor
    linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, {_OPTS}) -> Tensor
    """, {"linspace": _linspace, "linspace.Tensor_Tensor": _linspace_tensor_tensor,
          "linspace.Tensor_Scalar": _linspace_tensor_tensor, "linspace.Scalar_Tensor": _linspace_tensor_tensor},
    ("linspace", "linspace.Tensor_Tensor", "linspace.Tensor_Scalar", "linspace.Scalar_Tensor"), function=linspace)
eye_op = factory("eye", f"""
    eye(SymInt n, *, {_OPTS}) -> Tensor
    eye.m(SymInt n, SymInt m, *, {_OPTS}) -> Tensor
    """, {"eye": _eye, "eye.m": _eye_m}, ("eye", "eye.m"), function=eye)
empty_like_op = factory("empty_like", f"empty_like(Tensor self, *, {_LIKE}) -> Tensor", {"empty_like": _empty_like},
                     ("empty_like",), function=empty_like)
zeros_like_op = factory("zeros_like", f"zeros_like(Tensor self, *, {_LIKE}) -> Tensor", {"zeros_like": _zeros_like},
                     ("zeros_like",), function=zeros_like)
ones_like_op = factory("ones_like", f"ones_like(Tensor self, *, {_LIKE}) -> Tensor", {"ones_like": _ones_like},
                    ("ones_like",), function=ones_like)
full_like_op = factory("full_like", f"full_like(Tensor self, Scalar fill_value, *, {_LIKE}) -> Tensor  [core]",
                    {"full_like": _full_like}, ("full_like",), function=full_like)
# The device computes triu_indices through the CPU fallback (as PyTorch's open-registration example backend).
triu_indices_op = Op("triu_indices", f"triu_indices(int row, int col, int offset=0, *, {_LONG_OPTS}) -> Tensor",
                  kernels={"triu_indices": {
                      CEA: _triu_indices,
                      "PrivateUse1": "openreg.backends.privateuseone.fallback:cpu_fallback_kernel"}},
                  function=triu_indices, method=False)
tril_indices_op = factory("tril_indices", f"tril_indices(int row, int col, int offset=0, *, {_LONG_OPTS}) -> Tensor",
                       {"tril_indices": _tril_indices}, function=tril_indices)
scalar_tensor_op = factory("scalar_tensor", f"scalar_tensor(Scalar s, *, {_OPTS}) -> Tensor  [core]",
                        {"scalar_tensor": _scalar_tensor}, ("scalar_tensor",), function=scalar_tensor)
new_empty_op = factory("new_empty", f"new_empty(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor",
                    {"new_empty": _new_empty}, ("new_empty",))
new_empty_strided_op = factory(
    "new_empty_strided", f"new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor",
    {"new_empty_strided": _new_empty_strided}, ("new_empty_strided",))
new_zeros_op = factory("new_zeros", f"new_zeros(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor",
                    {"new_zeros": _new_zeros}, ("new_zeros",))
new_ones_op = factory("new_ones", f"new_ones(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor",
                   {"new_ones": _new_ones}, ("new_ones",))
new_full_op = factory("new_full", f"new_full(Tensor self, SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor",
                   {"new_full": _new_full}, ("new_full",))

register(empty_op, empty_strided_op, zeros_op, ones_op, full_op, arange_op, linspace_op, eye_op, empty_like_op,
         zeros_like_op, ones_like_op, full_like_op, triu_indices_op, tril_indices_op, scalar_tensor_op, new_empty_op,
         new_empty_strided_op, new_zeros_op, new_ones_op, new_full_op)
