"""Array-level entry points of the raw device kernels: validate, then launch through a launcher.

These functions know nothing about openreg's Tensor: they take a *launcher* and *arrays* -- NumPy arrays
with :class:`~host_launcher.HostLauncher`, CuPy arrays with :class:`~cupy_launcher.CupyLauncher`; any view
(arbitrary strides and offsets) works, since the launcher turns each array into an
:class:`~kernel_launch.Operand` (address of element 0, shape, element strides).  The device backend calls
them with array views of tensor storage.

Everything is checked before anything is launched, and a failed check raises ``RuntimeError`` naming the
operator, the launcher and the offending shapes/dtypes while leaving ``out`` untouched: unsupported or
mismatched dtypes, shape mismatches, arrays on different devices, ``out`` overlapping an input (exactly the
same elements is allowed for the elementwise ops, as for in-place ``abs_``), or ``out`` writing one memory
location twice.

>>> import numpy as np
>>> from openreg.backends.privateuseone.host_launcher import HostLauncher
>>> launcher = HostLauncher()
>>> x = np.array([[-1, 2], [3, -4]], dtype=np.int16)
>>> abs_(launcher, x, x).tolist()
[[1, 2], [3, 4]]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from . import kernel_launch
from .kernel_launch import KernelLaunch, Operand

__all__ = ["Launcher", "abs_", "copy_", "fill_", "mm_plus_mm"]


class Launcher(Protocol):
    """What the functions here need from a launcher (``HostLauncher`` and ``CupyLauncher`` provide it)."""

    name: str
    launch_counts: Any  # collections.Counter: kernel name -> launches

    def operand(self, array: Any, *, what: str = ..., writable: bool = ...) -> Operand: ...

    def launch(self, launch: KernelLaunch, device: int | None = None) -> None: ...

    def prefers_blas(self, dtype: Any, m: int, n: int, k1: int, k2: int) -> bool: ...

    def gemm_plus_gemm(self, a: Any, b: Any, c: Any, d: Any, out: Any) -> None: ...


# ----------------------------------------------------------------------------------------------------------
# Public operations
# ----------------------------------------------------------------------------------------------------------
def abs_(launcher: Launcher, out: Any, inp: Any) -> Any:
    """``out[...] = |inp|`` elementwise; ``out`` may be ``inp`` itself (in-place). Returns ``out``.

    Dtypes: float16/32/64, int8/16/32/64; ``out`` and ``inp`` share dtype and shape (broadcasting is the
    caller's, as zero strides in ``inp``).

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.host_launcher import HostLauncher
    >>> o = np.zeros((2, 6), np.float32)
    >>> abs_(HostLauncher(), o[:, 0:6:2], np.float32([[-1, 2, -3], [4, -5, 6]]))[1].tolist()
    [4.0, 5.0, 6.0]
    """
    op = "abs"
    o = _operand(launcher, op, out, "out", writable=True)
    i = _operand(launcher, op, inp, "input")
    _check_dtype(launcher, op, o, kernel_launch.ABS_DTYPES, "out")
    if o.dtype != i.dtype:
        raise _error(launcher, op, f"out has dtype {o.dtype} but input has dtype {i.dtype}; abs needs equal "
                                   "dtypes (convert with copy_ first)")
    _check_same_shape(launcher, op, o, i)
    _check_devices(launcher, op, [o, i])
    _check_writable_once(launcher, op, o)
    _check_no_partial_overlap(launcher, op, o, i, "input")
    _launch(launcher, kernel_launch.abs_launch(o, i), o)
    return out


def copy_(launcher: Launcher, out: Any, inp: Any) -> Any:
    """``out[...] = inp`` converted to ``out``'s dtype, between any two layouts. Returns ``out``.

    Dtypes: bool, uint8, int8..int64, float16/32/64 in any combination.  ``inp`` must have ``out``'s shape
    (expand broadcasts with zero strides first).  Conversions follow NumPy's ``astype`` (``x != 0`` for
    bool, truncation toward zero for float -> int, round-to-nearest-even into float16).

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.host_launcher import HostLauncher
    >>> o = np.zeros((2, 3), np.float16)
    >>> src = np.arange(3, dtype=np.int64)
    >>> copy_(HostLauncher(), o, np.broadcast_to(src, (2, 3))).tolist()
    [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    """
    op = "copy_"
    o = _operand(launcher, op, out, "out", writable=True)
    i = _operand(launcher, op, inp, "input")
    _check_dtype(launcher, op, o, kernel_launch.COPY_DTYPES, "out")
    _check_dtype(launcher, op, i, kernel_launch.COPY_DTYPES, "input")
    _check_same_shape(launcher, op, o, i)
    _check_devices(launcher, op, [o, i])
    _check_writable_once(launcher, op, o)
    _check_no_partial_overlap(launcher, op, o, i, "input")
    if _same_elements(o, i) and o.dtype == i.dtype:
        return out  # copying a view onto itself
    _launch(launcher, kernel_launch.copy_launch(o, i), o)
    return out


def fill_(launcher: Launcher, out: Any, value: Any) -> Any:
    """``out[...] = value`` for every supported dtype; ``out`` may be any view, even an expanded one.

    ``value`` (a Python or NumPy scalar) must be representable in ``out``'s dtype: integers out of range
    and finite floats beyond float16/float32's range raise ``RuntimeError``, as in PyTorch; floats
    written to integer dtypes truncate toward zero.

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.host_launcher import HostLauncher
    >>> fill_(HostLauncher(), np.zeros(4, np.int8), -7).tolist()
    [-7, -7, -7, -7]
    """
    op = "fill_"
    o = _operand(launcher, op, out, "out", writable=True)
    _check_dtype(launcher, op, o, kernel_launch.FILL_DTYPES, "out")
    scalar = _fill_scalar(launcher, o.dtype, value)
    if o.numel:  # an expanded view repeats memory along its zero-stride dims: write each location once
        keep = [d for d, st in enumerate(o.strides) if st != 0]
        o = replace(o, shape=tuple(o.shape[d] for d in keep), strides=tuple(o.strides[d] for d in keep))
    _launch(launcher, kernel_launch.fill_launch(o, scalar), o)
    return out


def mm_plus_mm(launcher: Launcher, a: Any, b: Any, c: Any, d: Any, out: Any) -> Any:
    """``out = a @ b + c @ d`` in one fused kernel (or two cuBLAS GEMMs where the launcher prefers them).

    ``a``: M x K1, ``b``: K1 x N, ``c``: M x K2, ``d``: K2 x N, ``out``: M x N, all float32, all float64, or
    all float16 (accumulated in float32).  Any strides (transposed views need no copy); K1 may differ from
    K2 and either may be 0.  ``out`` must not overlap an input.  Returns ``out``.

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.host_launcher import HostLauncher
    >>> a = np.eye(2, dtype=np.float32)
    >>> c = np.ones((2, 3), np.float32)
    >>> out = np.empty((2, 2), np.float32)
    >>> mm_plus_mm(HostLauncher(), a, a * 2, c, c.T, out).tolist()
    [[5.0, 3.0], [3.0, 5.0]]
    """
    op = "mm_plus_mm"
    names = ("a", "b", "c", "d")
    ins = [_operand(launcher, op, arr, name) for arr, name in zip((a, b, c, d), names)]
    o = _operand(launcher, op, out, "out", writable=True)
    dtypes = [x.dtype for x in ins] + [o.dtype]
    if any(dt != dtypes[0] for dt in dtypes) or dtypes[0] not in kernel_launch.MM_DTYPES:
        listing = ", ".join(f"{n}: {x.dtype}" for n, x in zip((*names, "out"), (*ins, o)))
        raise _error(launcher, op, f"expected a, b, c, d and out of one dtype among "
                                   f"{_names(kernel_launch.MM_DTYPES)}, got {listing}")
    if any(len(x.shape) != 2 for x in (*ins, o)):
        raise _error(launcher, op, "expected 2-d arrays, got " + _shapes(ins, o))
    (m, k1), (k1b, n), (mc, k2), (k2d, nd) = (x.shape for x in ins)
    if k1 != k1b or k2 != k2d or mc != m or nd != n or o.shape != (m, n):
        raise _error(launcher, op, "shapes do not agree (a: M x K1, b: K1 x N, c: M x K2, d: K2 x N, "
                                   "out: M x N); got " + _shapes(ins, o))
    _check_devices(launcher, op, [*ins, o])
    _check_writable_once(launcher, op, o)
    for x, name in zip(ins, names):
        if _overlaps(o, x):
            raise _error(launcher, op, f"out overlaps input {name} (out {o.shape}, {name} {x.shape}); write to "
                                       "a fresh array or clone the input")
    if m == 0 or n == 0:
        return out
    if launcher.prefers_blas(o.dtype, m, n, k1, k2):
        launcher.gemm_plus_gemm(a, b, c, d, out)
        return out
    _launch(launcher, kernel_launch.mm_plus_mm_launch(*ins, o), o)
    return out


# ----------------------------------------------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------------------------------------------
def _error(launcher: Launcher, op: str, message: str) -> RuntimeError:
    return RuntimeError(f"{op} on the '{launcher.name}' kernel launcher: {message}")


def _names(dtypes: Sequence[np.dtype]) -> str:
    return "[" + ", ".join(str(d) for d in dtypes) + "]"


def _shapes(ins: Sequence[Operand], out: Operand) -> str:
    return ", ".join(f"{n} {x.shape}" for n, x in zip(("a", "b", "c", "d", "out"), (*ins, out)))


def _operand(launcher: Launcher, op: str, array: Any, what: str, writable: bool = False) -> Operand:
    try:
        return launcher.operand(array, what=what, writable=writable)
    except RuntimeError as exc:
        raise _error(launcher, op, str(exc)) from None


def _check_dtype(launcher: Launcher, op: str, x: Operand, allowed: Sequence[np.dtype], what: str) -> None:
    if x.dtype not in allowed:
        raise _error(launcher, op, f"{what} has unsupported dtype {x.dtype} (supported: {_names(allowed)})")


def _check_same_shape(launcher: Launcher, op: str, out: Operand, inp: Operand) -> None:
    if out.shape != inp.shape:
        raise _error(launcher, op, f"out has shape {out.shape} but input has shape {inp.shape} "
                                   "(expand broadcasts with zero strides before the call)")


def _check_devices(launcher: Launcher, op: str, xs: Sequence[Operand]) -> None:
    devices = sorted({x.device for x in xs})
    if len(devices) > 1:
        raise _error(launcher, op, f"expected all arrays on one device, got devices {devices}")


def _check_writable_once(launcher: Launcher, op: str, out: Operand) -> None:
    if _has_internal_overlap(out):
        raise _error(launcher, op, f"unsupported operation: more than one element of the written-to array (shape "
                                   f"{out.shape}, strides {out.strides}) refers to a single memory location; "
                                   "clone it first")


def _check_no_partial_overlap(launcher: Launcher, op: str, out: Operand, inp: Operand, what: str) -> None:
    if _overlaps(out, inp) and not (_same_elements(out, inp) and out.itemsize == inp.itemsize):
        raise _error(launcher, op, f"unsupported operation: some elements of the {what} (shape {inp.shape}, "
                                   f"strides {inp.strides}) and the written-to array (strides {out.strides}) refer "
                                   "to a single memory location; clone the input first")


def _fill_scalar(launcher: Launcher, dtype: np.dtype, value: Any) -> Any:
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise _error(launcher, "fill_", f"value must be a scalar, got an array of shape {value.shape}")
        value = value.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, complex):
        raise _error(launcher, "fill_", f"cannot fill {dtype} with complex value {value!r}")
    if not isinstance(value, (bool, int, float)):
        raise _error(launcher, "fill_", f"value must be a number, got {type(value).__name__}")
    if dtype == np.bool_:
        return bool(value)
    if dtype.kind in "iu":
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _error(launcher, "fill_", f"value {value} cannot be converted to type {dtype} without overflow")
            value = int(value)  # truncation toward zero
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise _error(launcher, "fill_", f"value {value} cannot be converted to type {dtype} without overflow")
        return int(value)
    value = float(value)
    with np.errstate(over="ignore"):
        overflows = math.isfinite(value) and not np.isfinite(np.array(value).astype(dtype))
    if overflows:
        raise _error(launcher, "fill_", f"value {value} cannot be converted to type {dtype} without overflow")
    return value


# ----------------------------------------------------------------------------------------------------------
# Memory-overlap analysis on operand metadata (addresses are never dereferenced)
# ----------------------------------------------------------------------------------------------------------
class _Layout:
    """A NumPy-visible description of an operand's memory, for ``np.shares_memory``."""

    def __init__(self, x: Operand):
        self.__array_interface__ = {"data": (x.ptr, True), "shape": x.shape, "strides": x.byte_strides,
                                    "typestr": x.dtype.str, "version": 3}


def _byte_range(x: Operand) -> tuple[int, int]:
    lo = hi = x.ptr
    for size, stride in zip(x.shape, x.byte_strides):
        if stride > 0:
            hi += stride * (size - 1)
        else:
            lo += stride * (size - 1)
    return lo, hi + x.itemsize


def _overlaps(x: Operand, y: Operand) -> bool:
    """Whether two operands share any byte (exactly, up to a work bound; beyond it: assume they do)."""
    if x.numel == 0 or y.numel == 0:
        return False
    (xlo, xhi), (ylo, yhi) = _byte_range(x), _byte_range(y)
    if xhi <= ylo or yhi <= xlo:
        return False
    try:
        return bool(np.shares_memory(np.asarray(_Layout(x)), np.asarray(_Layout(y)), max_work=1 << 20))
    except _TooHardError:
        return True


def _same_elements(x: Operand, y: Operand) -> bool:
    """Same address, shape and strides (ignoring size-1 dims): element i of both is the same memory."""
    if x.ptr != y.ptr or x.shape != y.shape:
        return False
    return all(sx == sy or size == 1 for size, sx, sy in zip(x.shape, x.byte_strides, y.byte_strides))


_TooHardError = getattr(getattr(np, "exceptions", None), "TooHardError", None) or np.TooHardError

_EXACT_OVERLAP_LIMIT = 1 << 22  # elements; beyond this an ambiguous layout is rejected without enumeration


def _has_internal_overlap(x: Operand) -> bool:
    """Whether two elements of ``x`` share memory (zero strides, or strides that interleave)."""
    dims = sorted((abs(st), size) for size, st in zip(x.shape, x.strides) if size > 1)
    if x.numel == 0 or not dims:
        return False
    if dims[0][0] == 0:
        return True
    extent = 1  # elements spanned by the dims seen so far
    for stride, size in dims:
        if stride < extent:
            break
        extent += stride * (size - 1)
    else:
        return False
    if x.numel > _EXACT_OVERLAP_LIMIT:
        return True
    offsets = np.zeros(1, dtype=np.int64)
    for stride, size in dims:
        offsets = (offsets[:, None] + stride * np.arange(size, dtype=np.int64)[None, :]).ravel()
    return len(np.unique(offsets)) != len(offsets)


def _launch(launcher: Launcher, launch: KernelLaunch | None, out: Operand) -> None:
    if launch is not None:
        launcher.launch(launch, device=out.device)
