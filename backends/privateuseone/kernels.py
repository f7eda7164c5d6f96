"""The raw CUDA kernels of ``cuda_kernels/``: per kernel its dtype table, launch configuration and checked
entry point, and which launcher runs them on the current driver.

Everything that decides *how* a kernel runs lives here, so the CUDA launcher (CuPy on a GPU) and the host
launcher (the same .cu compiled for the CPU, ``launchers.py``) cannot drift apart: kernel names per dtype, grid
and block sizes, shared memory, and argument packing. Arguments are packed as NumPy values with the exact byte
layout of the kernel parameters -- pointers as ``uint64``, scalars as their dtype, parameter structs as 0-d
structured arrays -- which CuPy passes by value and the host launcher hands to the kernel as ``void**``.

The entry points (``abs_``, ``copy_``, ``fill_``, ``mm_plus_mm``) take a *launcher* and *arrays* -- NumPy
arrays with the host launcher, CuPy arrays with the CUDA launcher; any view works, since the launcher turns
each array into an :class:`~launchers.Operand`. Everything is checked before anything is launched, and a failed
check raises ``RuntimeError`` naming the operator, the launcher and the offending shapes/dtypes while leaving
``out`` untouched: unsupported or mismatched dtypes, shape mismatches, arrays on different devices, ``out``
overlapping an input (exactly the same elements is allowed for the elementwise ops, as for in-place ``abs_``),
or ``out`` writing one memory location twice.

``abs_into``/``copy_into``/``fill_into``/``mm_plus_mm_into`` are what the device's operators call: on the cuda
driver they always run the kernels through the CuPy launcher; on the emulated driver through the host launcher
when ``OPENREG_EMULATE_KERNELS=1``, and NumPy reference code otherwise. Dtypes a kernel does not cover
(bfloat16, complex) use the array module's own code on either driver.

Adding a kernel (say ``cuda_kernels/philox.cu``): write the ``extern "C"`` entry points, add its source to
:data:`SOURCES`, and a section here with its dtype table, a ``*_launch`` function returning a
:class:`~launchers.KernelLaunch` (use :func:`pointwise_grid` and :func:`strided_geometry` for elementwise
work), a checked entry point, and its names in :func:`all_kernel_names`. Both launchers and
``ci/kernel-report`` pick the source up from there.

>>> import numpy as np
>>> from openreg.backends.privateuseone.launchers import HostLauncher, Operand
>>> out = Operand(ptr=4096, dtype=np.dtype("float32"), shape=(4, 5), strides=(5, 1))
>>> inp = Operand(ptr=8192, dtype=np.dtype("float32"), shape=(4, 5), strides=(1, 4))
>>> abs_launch(out, out).kernel, abs_launch(out, inp).kernel
('abs_contig_f32', 'abs_strided_f32')
>>> x = np.array([[-1, 2], [3, -4]], dtype=np.int16)
>>> abs_(HostLauncher(), x, x).tolist()
[[1, 2], [3, 4]]
"""
from __future__ import annotations

import math
import operator
import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

import numpy as np

from openreg._quiet import quiet

from . import driver_select
from .driver_select import get_driver
from .launchers import ALL_DTYPES, BF16_WORDS, DTYPE_SUFFIX, CupyLauncher, HostLauncher, KernelLaunch, Operand

# ----------------------------------------------------------------------------------------------------------
# Constants that must match the kernel sources (tests/test_kernels.py checks them against the #defines)
# ----------------------------------------------------------------------------------------------------------
POINTWISE_THREADS = 256  # OPENREG_POINTWISE_THREADS in common.cuh
MAX_DIMS = 8  # OPENREG_MAX_DIMS in indexing.cuh
MM_TILE_M = 64  # OPENREG_MM_BM in mm_plus_mm.cu
MM_TILE_N = 64  # OPENREG_MM_BN
MM_THREADS = 256  # OPENREG_MM_THREADS

# Grid-stride loops need no more blocks than fill the GPU a few times over.  H100 SXM: 132 SMs, 2048
# resident threads per SM = 8 blocks of 256; 4 waves of those keep every SM busy while tails drain.
MAX_POINTWISE_BLOCKS = 132 * 8 * 4

# Fast 32-bit division in the strided kernels is valid for linear indices below 2^31.
FASTDIV_LIMIT = 2**31

SOURCES: dict[str, str] = {
    "abs": "abs.cu",
    "copy": "copy.cu",
    "fill": "fill.cu",
    "mm_plus_mm": "mm_plus_mm.cu",
    "philox": "philox.cu",
    "bf16": "bf16.cu",
    "bf16_reduce": "bf16_reduce.cu",  # bfloat16 sums, extrema and softmax, float32 accumulation in the kernel
    "attention": "attention.cu",  # fused scaled dot-product attention
    "rnn_cells": "rnn_cells.cu",  # fused LSTM / GRU cell pointwise math
}



# ----------------------------------------------------------------------------------------------------------
# Kernel names, argument packing and the elementwise launch
# ----------------------------------------------------------------------------------------------------------
def kernel_name(op: str, variant: str | None, *dtypes: Any) -> str:
    """The ``extern "C"`` name of a kernel.

    >>> kernel_name("copy", "strided", "float16", "int64")
    'copy_strided_f16_from_i64'
    >>> kernel_name("mm_plus_mm", None, "float32")
    'mm_plus_mm_f32'
    """
    suffixes = [DTYPE_SUFFIX[np.dtype(d)] for d in dtypes]
    head = op if variant is None else f"{op}_{variant}"
    return f"{head}_{'_from_'.join(suffixes)}"


def pack_pointer(ptr: int) -> np.uint64:
    """A device/host address as a kernel argument (8 bytes, same ABI as ``T*``)."""
    return np.uint64(ptr)


def pack_scalar(value: Any, dtype: Any) -> np.generic:
    """A scalar as the kernel parameter type for ``dtype`` (``__half`` is 2 bytes, ``bool`` 1 byte).

    >>> pack_scalar(1.5, "float16").tobytes()
    b'\\x00>'
    """
    return np.array(value).astype(np.dtype(dtype)).reshape(())[()]


def _geometry_dtype(n_operands: int) -> np.dtype:
    return np.dtype([
        ("numel", np.int64),
        ("ndim", np.int32),
        ("use_fastdiv", np.int32),
        ("sizes", np.int64, (MAX_DIMS,)),
        ("div_magic", np.uint32, (MAX_DIMS,)),
        ("div_shift", np.uint32, (MAX_DIMS,)),
        ("strides", np.int64, (n_operands, MAX_DIMS)),
    ], align=True)


GEOMETRY_DTYPES = {1: _geometry_dtype(1), 2: _geometry_dtype(2), 3: _geometry_dtype(3)}
assert GEOMETRY_DTYPES[1].itemsize == 208 and GEOMETRY_DTYPES[2].itemsize == 272  # static_asserts in indexing.cuh
assert GEOMETRY_DTYPES[3].itemsize == 336  # static_assert in bf16.cu


def fastdiv_params(divisor: int) -> tuple[int, int]:
    """Magic number and shift so that ``n // d == (umulhi(n, magic) + n) >> shift`` for ``0 <= n < 2**31``.

    >>> magic, shift = fastdiv_params(7)
    >>> (((1000 * magic) >> 32) + 1000) >> shift
    142
    """
    if not 1 <= divisor < FASTDIV_LIMIT:
        raise ValueError(f"fast division needs 1 <= divisor < 2**31, got {divisor}")
    shift = (divisor - 1).bit_length()
    magic = ((1 << 32) * ((1 << shift) - divisor)) // divisor + 1
    return magic, shift


def coalesce(shape: Sequence[int], strides: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """Drop size-1 dims, order dims outer-to-inner by the output's stride (operand 0, then the others), and
    merge neighbours that are contiguous with each other in every operand.

    >>> coalesce((2, 3, 4), [(12, 4, 1), (12, 4, 1)])
    ([24], [[1], [1]])
    >>> coalesce((4, 5), [(1, 4), (5, 1)])
    ([5, 4], [[4, 1], [1, 5]])
    """
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    dims.sort(key=lambda d: tuple(abs(s[d]) for s in strides), reverse=True)
    new_shape: list[int] = []
    new_strides: list[list[int]] = [[] for _ in strides]
    for d in dims:
        if new_shape and all(ns[-1] == s[d] * shape[d] for ns, s in zip(new_strides, strides)):
            new_shape[-1] *= shape[d]
            for ns, s in zip(new_strides, strides):
                ns[-1] = s[d]
        else:
            new_shape.append(shape[d])
            for ns, s in zip(new_strides, strides):
                ns.append(s[d])
    return new_shape, new_strides


def strided_geometry(shape: Sequence[int], strides: Sequence[Sequence[int]],
                     fastdiv: bool | None = None) -> np.ndarray:
    """Pack a (coalesced) shape and per-operand strides into ``StridedGeometry<N>`` (indexing.cuh).

    ``fastdiv=None`` uses the 32-bit magic-number division whenever the element count allows it;
    ``False`` forces the 64-bit path (tests use it to cover that branch).

    >>> g = strided_geometry([3, 5], [[5, 1], [1, 3]])
    >>> int(g["numel"]), int(g["ndim"]), g["strides"][1][:2].tolist()
    (15, 2, [1, 3])
    """
    ndim = len(shape)
    if ndim > MAX_DIMS:
        raise NotImplementedError(f"the device kernels index at most {MAX_DIMS} dims after merging "
                                  f"contiguous ones, got shape {tuple(shape)}")
    numel = math.prod(shape)
    geom = np.zeros((), dtype=GEOMETRY_DTYPES[len(strides)])
    geom["numel"] = numel
    geom["ndim"] = ndim
    use_fastdiv = numel < FASTDIV_LIMIT if fastdiv is None else (fastdiv and numel < FASTDIV_LIMIT)
    geom["use_fastdiv"] = int(use_fastdiv)
    for d, size in enumerate(shape):
        geom["sizes"][d] = size
        if use_fastdiv:
            geom["div_magic"][d], geom["div_shift"][d] = fastdiv_params(size)
        for k, s in enumerate(strides):
            geom["strides"][k][d] = s[d]
    return geom


def pointwise_grid(work_items: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Grid and block for a grid-stride pointwise kernel with ``work_items`` units of work.

    >>> pointwise_grid(1000)
    ((4, 1, 1), (256, 1, 1))
    """
    blocks = max(1, min(-(-work_items // POINTWISE_THREADS), MAX_POINTWISE_BLOCKS))
    return (blocks, 1, 1), (POINTWISE_THREADS, 1, 1)


def pointwise_launch(op: str, out: Operand, inputs: Sequence[Operand], name_dtypes: Sequence[Any],
                     extra_args: Sequence[Any] = (), fastdiv: bool | None = None,
                     name: str | None = None) -> KernelLaunch | None:
    """Choose the contiguous or strided variant of an elementwise kernel and pack its arguments.

    ``op`` names the source (:data:`SOURCES`) and, unless ``name`` is given, the kernel; ``name_dtypes`` are
    the dtypes spelled in the kernel name (``abs_contig_f32``: ``[float32]``).
    Kernel signatures follow one convention: ``<op>_contig_<dt..>(out, inputs..., extra..., int64 n)`` and
    ``<op>_strided_<dt..>(out, inputs..., extra..., StridedGeometry<1 + len(inputs)>)``.  Returns ``None``
    when there is nothing to do (zero elements).

    >>> import numpy as np
    >>> o = Operand(4096, np.dtype("int8"), (3, 1000), (1000, 1))
    >>> launch = pointwise_launch("abs", o, [o], [o.dtype])
    >>> launch.kernel, launch.grid, int(launch.args[2])
    ('abs_contig_i8', (1, 1, 1), 3000)
    """
    numel = out.numel
    if numel == 0:
        return None
    operands = [out, *inputs]
    shape, strides = coalesce(out.shape, [o.strides for o in operands])
    source = SOURCES[op]
    pointers = [pack_pointer(o.ptr) for o in operands]
    if len(shape) == 0 or (len(shape) == 1 and all(s[0] == 1 for s in strides)):
        width = 16 // max(o.itemsize for o in operands)  # elements per 16-byte vector, as pointwise.cuh
        grid, block = pointwise_grid(-(-numel // width))
        return KernelLaunch(source, kernel_name(name or op, "contig", *name_dtypes), grid, block, 0,
                            (*pointers, *extra_args, np.int64(numel)))
    grid, block = pointwise_grid(numel)
    return KernelLaunch(source, kernel_name(name or op, "strided", *name_dtypes), grid, block, 0,
                        (*pointers, *extra_args, strided_geometry(shape, strides, fastdiv)))


# ----------------------------------------------------------------------------------------------------------
# Launchers and checks
# ----------------------------------------------------------------------------------------------------------
class Launcher(Protocol):
    """What the functions here need from a launcher (``HostLauncher`` and ``CupyLauncher`` provide it)."""

    name: str
    launch_counts: Any  # collections.Counter: kernel name -> launches

    def operand(self, array: Any, *, what: str = ..., writable: bool = ...) -> Operand: ...

    def launch(self, launch: KernelLaunch, device: int | None = None) -> None: ...

    def prefers_blas(self, dtype: Any, m: int, n: int, k1: int, k2: int) -> bool: ...

    def gemm_plus_gemm(self, a: Any, b: Any, c: Any, d: Any, out: Any) -> None: ...


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


# ----------------------------------------------------------------------------------------------------------
# abs (abs.cu)
# ----------------------------------------------------------------------------------------------------------
ABS_DTYPES: tuple[np.dtype, ...] = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "int16",
                                                                 "int32", "int64"))


def abs_launch(out: Operand, inp: Operand, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out = |inp|`` (same dtype and shape; validated by :func:`abs_`).

    >>> import numpy as np
    >>> x = Operand(4096, np.dtype("float64"), (8,), (2,))
    >>> abs_launch(x, x).kernel
    'abs_strided_f64'
    """
    return pointwise_launch("abs", out, [inp], [out.dtype], fastdiv=fastdiv)


def abs_(launcher: Launcher, out: Any, inp: Any) -> Any:
    """``out[...] = |inp|`` elementwise; ``out`` may be ``inp`` itself (in-place). Returns ``out``.

    Dtypes: float16/32/64, int8/16/32/64; ``out`` and ``inp`` share dtype and shape (broadcasting is the
    caller's, as zero strides in ``inp``).

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> o = np.zeros((2, 6), np.float32)
    >>> abs_(HostLauncher(), o[:, 0:6:2], np.float32([[-1, 2, -3], [4, -5, 6]]))[1].tolist()
    [4.0, 5.0, 6.0]
    """
    op = "abs"
    o = _operand(launcher, op, out, "out", writable=True)
    i = _operand(launcher, op, inp, "input")
    _check_dtype(launcher, op, o, ABS_DTYPES, "out")
    if o.dtype != i.dtype:
        raise _error(launcher, op, f"out has dtype {o.dtype} but input has dtype {i.dtype}; abs needs equal "
                                   "dtypes (convert with copy_ first)")
    _check_same_shape(launcher, op, o, i)
    _check_devices(launcher, op, [o, i])
    _check_writable_once(launcher, op, o)
    _check_no_partial_overlap(launcher, op, o, i, "input")
    _launch(launcher, abs_launch(o, i), o)
    return out


# ----------------------------------------------------------------------------------------------------------
# copy_ (copy.cu)
# ----------------------------------------------------------------------------------------------------------
COPY_DTYPES = ALL_DTYPES


def copy_launch(out: Operand, inp: Operand, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out[...] = inp`` converted to ``out.dtype``; broadcasting arrives as zero strides in ``inp``.

    >>> import numpy as np
    >>> o = Operand(4096, np.dtype("float32"), (3, 4), (4, 1))
    >>> i = Operand(8192, np.dtype("int64"), (3, 4), (0, 1))
    >>> copy_launch(o, i).kernel
    'copy_strided_f32_from_i64'
    """
    return pointwise_launch("copy", out, [inp], [out.dtype, inp.dtype], fastdiv=fastdiv)


def copy_(launcher: Launcher, out: Any, inp: Any) -> Any:
    """``out[...] = inp`` converted to ``out``'s dtype, between any two layouts. Returns ``out``.

    Dtypes: bool, uint8, int8..int64, float16/32/64 in any combination.  ``inp`` must have ``out``'s shape
    (expand broadcasts with zero strides first).  Conversions follow NumPy's ``astype`` (``x != 0`` for
    bool, truncation toward zero for float -> int, round-to-nearest-even into float16).

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> o = np.zeros((2, 3), np.float16)
    >>> src = np.arange(3, dtype=np.int64)
    >>> copy_(HostLauncher(), o, np.broadcast_to(src, (2, 3))).tolist()
    [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    """
    op = "copy_"
    o = _operand(launcher, op, out, "out", writable=True)
    i = _operand(launcher, op, inp, "input")
    _check_dtype(launcher, op, o, COPY_DTYPES, "out")
    _check_dtype(launcher, op, i, COPY_DTYPES, "input")
    _check_same_shape(launcher, op, o, i)
    _check_devices(launcher, op, [o, i])
    _check_writable_once(launcher, op, o)
    _check_no_partial_overlap(launcher, op, o, i, "input")
    if _same_elements(o, i) and o.dtype == i.dtype:
        return out  # copying a view onto itself
    _launch(launcher, copy_launch(o, i), o)
    return out


# ----------------------------------------------------------------------------------------------------------
# fill_ (fill.cu)
# ----------------------------------------------------------------------------------------------------------
FILL_DTYPES = ALL_DTYPES


def fill_launch(out: Operand, value: Any, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out[...] = value`` (``value`` is converted to ``out.dtype`` here; range checks are the caller's).

    >>> import numpy as np
    >>> o = Operand(4096, np.dtype("float16"), (10,), (1,))
    >>> launch = fill_launch(o, 2.0)
    >>> launch.kernel, launch.args[1].dtype
    ('fill_contig_f16', dtype('float16'))
    """
    return pointwise_launch("fill", out, [], [out.dtype], extra_args=[pack_scalar(value, out.dtype)],
                            fastdiv=fastdiv)


def fill_(launcher: Launcher, out: Any, value: Any) -> Any:
    """``out[...] = value`` for every supported dtype; ``out`` may be any view, even an expanded one.

    ``value`` (a Python or NumPy scalar) must be representable in ``out``'s dtype: integers out of range
    and finite floats beyond float16/float32's range raise ``RuntimeError``, as in PyTorch; floats
    written to integer dtypes truncate toward zero.

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> fill_(HostLauncher(), np.zeros(4, np.int8), -7).tolist()
    [-7, -7, -7, -7]
    """
    op = "fill_"
    o = _operand(launcher, op, out, "out", writable=True)
    _check_dtype(launcher, op, o, FILL_DTYPES, "out")
    scalar = _fill_scalar(launcher, o.dtype, value)
    if o.numel:  # an expanded view repeats memory along its zero-stride dims: write each location once
        keep = [d for d, st in enumerate(o.strides) if st != 0]
        o = replace(o, shape=tuple(o.shape[d] for d in keep), strides=tuple(o.strides[d] for d in keep))
    _launch(launcher, fill_launch(o, scalar), o)
    return out


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
# mm_plus_mm (mm_plus_mm.cu)
# ----------------------------------------------------------------------------------------------------------
MM_DTYPES: tuple[np.dtype, ...] = tuple(np.dtype(t) for t in ("float16", "float32", "float64"))
MM_SHAPE_DTYPE = np.dtype([
    ("m", np.int64), ("n", np.int64), ("k1", np.int64), ("k2", np.int64),
    ("a_stride", np.int64, (2,)), ("b_stride", np.int64, (2,)), ("c_stride", np.int64, (2,)),
    ("d_stride", np.int64, (2,)), ("out_stride", np.int64, (2,)),
    ("k_fast", np.int32), ("reserved", np.int32),
], align=True)
assert MM_SHAPE_DTYPE.itemsize == 120  # static_assert in mm_plus_mm.cu



def _k_fast(row_stride: int, col_stride: int, k_is_row: bool) -> bool:
    """Load the operand with consecutive threads along K when K is its smaller stride (coalescing)."""
    k_stride, other = (row_stride, col_stride) if k_is_row else (col_stride, row_stride)
    return abs(k_stride) < abs(other) or (abs(k_stride) == abs(other) and not k_is_row)


def mm_plus_mm_launch(a: Operand, b: Operand, c: Operand, d: Operand, out: Operand) -> KernelLaunch | None:
    """``out = a @ b + c @ d`` with a 64x64 output tile per 256-thread block (mm_plus_mm.cu).

    Shapes and dtypes are validated by :func:`mm_plus_mm`.

    >>> import numpy as np
    >>> f = np.dtype("float32")
    >>> a, b = Operand(0, f, (100, 7), (7, 1)), Operand(0, f, (7, 130), (130, 1))
    >>> c, d = Operand(0, f, (100, 9), (1, 100)), Operand(0, f, (9, 130), (130, 1))
    >>> launch = mm_plus_mm_launch(a, b, c, d, Operand(0, f, (100, 130), (130, 1)))
    >>> launch.kernel, launch.grid, launch.block, int(launch.args[-1]["k_fast"])
    ('mm_plus_mm_f32', (6, 1, 1), (256, 1, 1), 1)
    """
    m, n = out.shape
    k1, k2 = a.shape[1], c.shape[1]
    if m == 0 or n == 0:
        return None
    tiles = -(-m // MM_TILE_M) * -(-n // MM_TILE_N)
    if tiles > 2**31 - 1:
        raise NotImplementedError(f"mm_plus_mm: output {m}x{n} needs more than 2^31-1 tiles")
    shape = np.zeros((), dtype=MM_SHAPE_DTYPE)
    shape["m"], shape["n"], shape["k1"], shape["k2"] = m, n, k1, k2
    for field, op in (("a_stride", a), ("b_stride", b), ("c_stride", c), ("d_stride", d), ("out_stride", out)):
        shape[field] = op.strides
    k_fast = 0
    for bit, op, k_is_row in ((0, a, False), (1, b, True), (2, c, False), (3, d, True)):
        if _k_fast(op.strides[0], op.strides[1], k_is_row):
            k_fast |= 1 << bit
    shape["k_fast"] = k_fast
    args = tuple(pack_pointer(o.ptr) for o in (out, a, b, c, d)) + (shape,)
    return KernelLaunch(SOURCES["mm_plus_mm"], kernel_name("mm_plus_mm", None, out.dtype), (tiles, 1, 1),
                        (MM_THREADS, 1, 1), 0, args)


def mm_plus_mm(launcher: Launcher, a: Any, b: Any, c: Any, d: Any, out: Any) -> Any:
    """``out = a @ b + c @ d`` in one fused kernel (or two cuBLAS GEMMs where the launcher prefers them).

    ``a``: M x K1, ``b``: K1 x N, ``c``: M x K2, ``d``: K2 x N, ``out``: M x N, all float32, all float64, or
    all float16 (accumulated in float32).  Any strides (transposed views need no copy); K1 may differ from
    K2 and either may be 0.  ``out`` must not overlap an input.  Returns ``out``.

    >>> import numpy as np
    >>> from openreg.backends.privateuseone.launchers import HostLauncher
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
    if any(dt != dtypes[0] for dt in dtypes) or dtypes[0] not in MM_DTYPES:
        listing = ", ".join(f"{n}: {x.dtype}" for n, x in zip((*names, "out"), (*ins, o)))
        raise _error(launcher, op, f"expected a, b, c, d and out of one dtype among "
                                   f"{_names(MM_DTYPES)}, got {listing}")
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
    _launch(launcher, mm_plus_mm_launch(*ins, o), o)
    return out


# ----------------------------------------------------------------------------------------------------------
# bfloat16 elementwise work, widened per element (bf16.cu)
# ----------------------------------------------------------------------------------------------------------
F32 = np.dtype(np.float32)
B8 = np.dtype(np.bool_)
BF16_ARITHMETIC_OPS = ("add", "sub", "mul", "div", "pow")
BF16_COMPARE_OPS = ("eq", "ne", "lt", "le", "gt", "ge")
BF16_MIXED_OPS = ("add", "sub", "mul", "div")          # bfloat16 with a float32 tensor: float32 result
# tensor-tensor ops (gelu_backward*: a is the gradient, b the input); and the ops with a float32 scalar
BF16_BINARY_OPS = (*BF16_ARITHMETIC_OPS, "gelu_backward", "gelu_tanh_backward", *BF16_COMPARE_OPS)
BF16_SCALAR_OPS = (*BF16_ARITHMETIC_OPS, "rsub", *BF16_COMPARE_OPS)
BF16_UNARY_OPS = ("neg", "relu", "exp", "log", "tanh", "sigmoid", "abs", "sqrt", "rsqrt", "sin", "cos", "gelu",
                  "gelu_tanh")
BF16_DTYPES: tuple[np.dtype, ...] = (BF16_WORDS,)


def _bf16_names(out: Operand, ins: Sequence[Operand]) -> list[np.dtype]:
    """The dtypes spelled in a bf16.cu kernel name: ``bf16`` alone when every operand is bfloat16."""
    dtypes = [out.dtype, *(i.dtype for i in ins)]
    return dtypes[:1] if all(d == BF16_WORDS for d in dtypes) else dtypes


def bf16_binary_launch(op: str, out: Operand, a: Operand, b: Operand, alpha: float = 1.0, *,
                       fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out = a <op> b`` on bfloat16 words (``add``/``sub`` scale ``b`` by ``alpha``); broadcasting arrives as
    zero strides. A float32 operand gives the mixed kernel (float32 out), a comparison writes bool.

    >>> x = Operand(4096, np.dtype("uint16"), (4, 3), (3, 1))
    >>> f = Operand(8192, np.dtype("float32"), (4, 3), (3, 1))
    >>> bf16_binary_launch("add", x, x, x).kernel, bf16_binary_launch("mul", f, f, x).kernel
    ('bf16_add_contig_bf16', 'bf16_mul_contig_f32_from_f32_from_bf16')
    """
    return pointwise_launch("bf16", out, [a, b], _bf16_names(out, [a, b]), extra_args=(np.float32(alpha),),
                            fastdiv=fastdiv, name=f"bf16_{op}")


def bf16_scalar_launch(op: str, out: Operand, a: Operand, value: float, alpha: float = 1.0, *,
                       fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out = a <op> value`` on bfloat16 words, ``value`` a float32 scalar (``rsub``: ``value - alpha*a``).

    >>> x = Operand(4096, np.dtype("uint16"), (4, 3), (3, 1))
    >>> launch = bf16_scalar_launch("mul", x, x, 0.1)
    >>> launch.kernel, launch.args[2].dtype
    ('bf16_mul_scalar_contig_bf16', dtype('float32'))
    """
    return pointwise_launch("bf16", out, [a], _bf16_names(out, [a]),
                            extra_args=(np.float32(value), np.float32(alpha)), fastdiv=fastdiv,
                            name=f"bf16_{op}_scalar")


def bf16_unary_launch(op: str, out: Operand, inp: Operand, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out = op(inp)`` on bfloat16 words.

    >>> out = Operand(4096, np.dtype("uint16"), (4, 3), (3, 1))
    >>> bf16_unary_launch("exp", out, Operand(8192, np.dtype("uint16"), (4, 3), (1, 4))).kernel
    'bf16_exp_strided_bf16'
    """
    return pointwise_launch("bf16", out, [inp], [BF16_WORDS], fastdiv=fastdiv, name=f"bf16_{op}")


def bf16_copy_launch(out: Operand, inp: Operand, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out = inp`` converted, one side bfloat16 words.

    >>> out = Operand(4096, np.dtype("float32"), (4, 3), (3, 1))
    >>> bf16_copy_launch(out, Operand(8192, np.dtype("uint16"), (4, 3), (3, 1))).kernel
    'bf16_copy_contig_f32_from_bf16'
    """
    return pointwise_launch("bf16", out, [inp], _bf16_names(out, [inp]), fastdiv=fastdiv, name="bf16_copy")


def _bf16_result_dtypes(op: str, ins: Sequence[Operand]) -> tuple[np.dtype, ...]:
    if op in BF16_COMPARE_OPS:
        return (B8,)
    return (F32,) if any(i.dtype == F32 for i in ins) else BF16_DTYPES


def _bf16_kernel_name(launcher: Launcher, op: str, supported) -> str:
    """The name a bfloat16 kernel's messages use, once ``op`` is known to be one of ``supported``."""
    name = f"{op} (bfloat16)"
    if op not in supported:
        raise _error(launcher, name, f"unknown op {op!r} (supported: {list(supported)})")
    return name


def _bf16_out_and_input(launcher: Launcher, name: str, out: Any, inp: Any) -> tuple:
    """The checked operands of a one-input bfloat16 kernel whose ``out`` is bfloat16 too."""
    o = _operand(launcher, name, out, "out", writable=True)
    i = _operand(launcher, name, inp, "input")
    for x, what in ((o, "out"), (i, "input")):
        _check_dtype(launcher, name, x, BF16_DTYPES, what)
    return o, i


def bf16_binary(launcher: Launcher, op: str, out: Any, a: Any, b: Any, alpha: float = 1.0) -> Any:
    """``out[...] = a <op> b`` for bfloat16 words (arrays of one shape; broadcast inputs first), widened and
    rounded per element inside the kernel; ``op`` is one of :data:`BF16_BINARY_OPS` (``add``/``sub`` scale ``b``
    by ``alpha``). Comparisons write bool; for :data:`BF16_MIXED_OPS` one input may be float32 (``out`` float32).

    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> x = (np.float32([1.5, -2.0, 3.0]).view(np.uint32) >> 16).astype(np.uint16)   # exact in bfloat16
    >>> out = bf16_binary(HostLauncher(), "add", np.empty_like(x), x, x, 2.0)
    >>> (out.astype(np.uint32) << 16).view(np.float32).tolist()
    [4.5, -6.0, 9.0]
    >>> bf16_binary(HostLauncher(), "le", np.empty(3, bool), x, x[::-1].copy()).tolist()
    [True, True, False]
    """
    name = _bf16_kernel_name(launcher, op, BF16_BINARY_OPS)
    o = _operand(launcher, name, out, "out", writable=True)
    ins = [_operand(launcher, name, a, "a"), _operand(launcher, name, b, "b")]
    mixed = op in BF16_MIXED_OPS and any(i.dtype == F32 for i in ins) and any(i.dtype == BF16_WORDS for i in ins)
    for x, what in zip(ins, ("a", "b")):
        _check_dtype(launcher, name, x, (BF16_WORDS, F32) if mixed else BF16_DTYPES, what)
    _check_dtype(launcher, name, o, _bf16_result_dtypes(op, ins), "out")
    _check_bf16_elementwise(launcher, name, o, ins, ("a", "b"))
    _launch(launcher, bf16_binary_launch(op, o, *ins, alpha), o)
    return out


def bf16_scalar(launcher: Launcher, op: str, out: Any, a: Any, value: float, alpha: float = 1.0) -> Any:
    """``out[...] = a <op> value`` for bfloat16 words and a float32 scalar (PyTorch's opmath: the scalar is not
    rounded to bfloat16), widened and rounded per element; ``op`` is one of :data:`BF16_SCALAR_OPS` (``rsub``:
    ``value - alpha * a``; the others take ``alpha`` already applied to ``value``).

    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> x = (np.float32([1.5, -2.0, 3.0]).view(np.uint32) >> 16).astype(np.uint16)
    >>> out = bf16_scalar(HostLauncher(), "rsub", np.empty_like(x), x, 0.5)
    >>> (out.astype(np.uint32) << 16).view(np.float32).tolist()
    [-1.0, 2.5, -2.5]
    """
    name = f"{op} (bfloat16, scalar)"
    if op not in BF16_SCALAR_OPS:
        raise _error(launcher, name, f"unknown op {op!r} (supported: {list(BF16_SCALAR_OPS)})")
    o = _operand(launcher, name, out, "out", writable=True)
    i = _operand(launcher, name, a, "a")
    _check_dtype(launcher, name, i, BF16_DTYPES, "a")
    _check_dtype(launcher, name, o, _bf16_result_dtypes(op, [i]), "out")
    _check_bf16_elementwise(launcher, name, o, [i], ("a",))
    _launch(launcher, bf16_scalar_launch(op, o, i, value, alpha), o)
    return out


def bf16_unary(launcher: Launcher, op: str, out: Any, inp: Any) -> Any:
    """``out[...] = op(inp)`` for bfloat16 words, widened and rounded per element inside the kernel; ``op`` is
    one of :data:`BF16_UNARY_OPS`. Returns ``out``.

    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> x = (np.float32([-1.5, 0.0, 2.0]).view(np.uint32) >> 16).astype(np.uint16)
    >>> out = bf16_unary(HostLauncher(), "relu", np.empty_like(x), x)
    >>> (out.astype(np.uint32) << 16).view(np.float32).tolist()
    [0.0, 0.0, 2.0]
    """
    name = _bf16_kernel_name(launcher, op, BF16_UNARY_OPS)
    o, i = _bf16_out_and_input(launcher, name, out, inp)
    _check_bf16_elementwise(launcher, name, o, [i], ("input",))
    _launch(launcher, bf16_unary_launch(op, o, i), o)
    return out


def bf16_copy(launcher: Launcher, out: Any, inp: Any) -> Any:
    """``out[...] = inp`` where ``out`` or ``inp`` holds bfloat16 words and the other any dtype of
    :data:`ALL_DTYPES` (or bfloat16: a word copy); conversions go through float32 (``openreg::convert``).

    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> x = (np.float32([-1.5, 0.0, 2.0]).view(np.uint32) >> 16).astype(np.uint16)
    >>> bf16_copy(HostLauncher(), np.empty(3, np.int64), x).tolist()
    [-1, 0, 2]
    """
    name = "copy_ (bfloat16)"
    o = _operand(launcher, name, out, "out", writable=True)
    i = _operand(launcher, name, inp, "input")
    if BF16_WORDS not in (o.dtype, i.dtype):
        raise _error(launcher, name, f"one side must be bfloat16 words, got {_names([i.dtype])} -> "
                                     f"{_names([o.dtype])}")
    for x, what in ((o, "out"), (i, "input")):
        _check_dtype(launcher, name, x, (*ALL_DTYPES, BF16_WORDS), what)
    _check_bf16_elementwise(launcher, name, o, [i], ("input",))
    _launch(launcher, bf16_copy_launch(o, i), o)
    return out


def _check_bf16_elementwise(launcher: Launcher, op: str, out: Operand, ins: list, names: tuple) -> None:
    for x in ins:
        _check_same_shape(launcher, op, out, x)
    _check_devices(launcher, op, [out, *ins])
    _check_writable_once(launcher, op, out)
    for x, what in zip(ins, names):
        _check_no_partial_overlap(launcher, op, out, x, what)


def bf16_kernel_names() -> list[str]:
    """Every kernel of bf16.cu."""
    stems = [(f"bf16_{op}", [BF16_WORDS]) for op in (*BF16_ARITHMETIC_OPS, "gelu_backward", "gelu_tanh_backward",
                                                     *BF16_UNARY_OPS)]
    stems += [(f"bf16_{op}_scalar", [BF16_WORDS]) for op in (*BF16_ARITHMETIC_OPS, "rsub")]
    stems += [(f"bf16_{op}", [F32, *pair]) for op in BF16_MIXED_OPS for pair in ((BF16_WORDS, F32), (F32, BF16_WORDS))]
    stems += [(f"bf16_{op}", [B8, BF16_WORDS, BF16_WORDS]) for op in BF16_COMPARE_OPS]
    stems += [(f"bf16_{op}_scalar", [B8, BF16_WORDS]) for op in BF16_COMPARE_OPS]
    stems += [("bf16_copy", pair) for d in ALL_DTYPES for pair in ((d, BF16_WORDS), (BF16_WORDS, d))]
    stems += [("bf16_copy", [BF16_WORDS])]
    return [kernel_name(stem, v, *dts) for stem, dts in stems for v in ("contig", "strided")]


# ----------------------------------------------------------------------------------------------------------
# bfloat16 reductions, accumulated in float32 inside the kernel (bf16_reduce.cu)
# ----------------------------------------------------------------------------------------------------------
REDUCE_THREADS = 256  # OPENREG_REDUCE_THREADS in bf16_reduce.cu
BF16_REDUCE_OPS = ("sum", "amax", "amin")
BF16_SOFTMAX_OPS = ("softmax", "log_softmax")


def _bf16_rows_grid(rows: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (max(1, min(rows, MAX_POINTWISE_BLOCKS)), 1, 1), (REDUCE_THREADS, 1, 1)


def bf16_reduce_launch(op: str, out: Operand, inp: Operand, dims: Sequence[int], keepdim: bool,
                       divisor: float = 1.0) -> KernelLaunch | None:
    """``out = reduce(inp over dims) / divisor`` on bfloat16 words: one block per output element, the reduced
    elements in memory order (coalesced), float32 accumulation, one rounding (``out`` bfloat16 words or float32).

    >>> x = Operand(4096, np.dtype("uint16"), (4, 3), (3, 1))
    >>> launch = bf16_reduce_launch("sum", Operand(8192, np.dtype("float32"), (4,), (1,)), x, (1,), False)
    >>> launch.kernel, launch.grid, int(launch.args[3]["numel"])
    ('bf16_sum_f32_from_bf16', (4, 1, 1), 3)
    """
    kept = [d for d in range(len(inp.shape)) if d not in dims]
    out_strides = [out.strides[d] for d in kept] if keepdim else list(out.strides)
    row_shape, row_strides = coalesce([inp.shape[d] for d in kept], [out_strides, [inp.strides[d] for d in kept]])
    col_shape, col_strides = coalesce([inp.shape[d] for d in dims], [[inp.strides[d] for d in dims]])
    rows = math.prod(row_shape)
    if rows == 0:
        return None
    grid, block = _bf16_rows_grid(rows)
    name = kernel_name(f"bf16_{op}", None, *_bf16_names(out, [inp]))
    extra = (np.float32(divisor),) if op == "sum" else ()
    cols = strided_geometry(col_shape, col_strides) if all(col_shape) else strided_geometry([], [[]])
    cols["numel"] = math.prod(col_shape)             # an empty reduction: nothing to add (sum 0, mean 0/0)
    return KernelLaunch(SOURCES["bf16_reduce"], name, grid, block, 0,
                        (pack_pointer(out.ptr), pack_pointer(inp.ptr), strided_geometry(row_shape, row_strides),
                         cols, *extra))


def bf16_softmax_launch(op: str, out: Operand, inp: Operand, dim: int) -> KernelLaunch | None:
    """``out = softmax(inp)`` / ``log_softmax`` along ``dim`` on bfloat16 words: one block per row.

    >>> x = Operand(4096, np.dtype("uint16"), (4, 3), (3, 1))
    >>> launch = bf16_softmax_launch("log_softmax", x, x, 1)
    >>> launch.kernel, [int(a) for a in launch.args[3:]]
    ('bf16_log_softmax_bf16', [3, 1, 1])
    """
    if not inp.shape:
        n, in_stride, out_stride, others = 1, 0, 0, []
    else:
        n, in_stride, out_stride = inp.shape[dim], inp.strides[dim], out.strides[dim]
        others = [d for d in range(len(inp.shape)) if d != dim]
    row_shape, row_strides = coalesce([inp.shape[d] for d in others],
                                      [[out.strides[d] for d in others], [inp.strides[d] for d in others]])
    rows = math.prod(row_shape)
    if rows == 0 or n == 0:
        return None
    grid, block = _bf16_rows_grid(rows)
    return KernelLaunch(SOURCES["bf16_reduce"], kernel_name(f"bf16_{op}", None, BF16_WORDS), grid, block, 0,
                        (pack_pointer(out.ptr), pack_pointer(inp.ptr), strided_geometry(row_shape, row_strides),
                         np.int64(n), np.int64(in_stride), np.int64(out_stride)))


def bf16_reduce(launcher: Launcher, op: str, out: Any, inp: Any, dims: Sequence[int], keepdim: bool = False,
                divisor: float = 1.0) -> Any:
    """``out[...] = op(inp over dims) / divisor`` for bfloat16 words, accumulated in float32 inside the kernel and
    rounded once; ``op`` is one of :data:`BF16_REDUCE_OPS` (``sum`` may write float32 and divide: ``mean``).

    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> x = (np.float32([[1.5, -2.0, 3.0], [0.25, 0.5, 1.0]]).view(np.uint32) >> 16).astype(np.uint16)
    >>> bf16_reduce(HostLauncher(), "sum", np.empty(2, np.float32), x, (1,), divisor=3.0).tolist()
    [0.8333333134651184, 0.5833333134651184]
    """
    name = _bf16_kernel_name(launcher, op, BF16_REDUCE_OPS)
    o = _operand(launcher, name, out, "out", writable=True)
    i = _operand(launcher, name, inp, "input")
    _check_dtype(launcher, name, i, BF16_DTYPES, "input")
    _check_dtype(launcher, name, o, (BF16_WORDS, F32) if op == "sum" else BF16_DTYPES, "out")
    dims = tuple(sorted(set(dims)))
    if any(not 0 <= d < len(i.shape) for d in dims):
        raise _error(launcher, name, f"dims {dims} out of range for input of shape {i.shape}")
    want = tuple(1 if d in dims else s for d, s in enumerate(i.shape)) if keepdim else \
        tuple(s for d, s in enumerate(i.shape) if d not in dims)
    if tuple(o.shape) != want:
        raise _error(launcher, name, f"out has shape {tuple(o.shape)}, expected {want}")
    _check_devices(launcher, name, [o, i])
    _check_writable_once(launcher, name, o)
    if _overlaps(o, i):
        raise _error(launcher, name, "out overlaps the input")
    _launch(launcher, bf16_reduce_launch(op, o, i, dims, keepdim, divisor), o)
    return out


def bf16_softmax(launcher: Launcher, op: str, out: Any, inp: Any, dim: int) -> Any:
    """``out[...] = softmax(inp, dim)`` (or ``log_softmax``) for bfloat16 words: the row's maximum and sum of
    exponentials in float32 inside the kernel, each result rounded once.

    >>> from openreg.backends.privateuseone.launchers import HostLauncher
    >>> x = np.zeros((2, 4), np.uint16)                     # zeros: a uniform distribution
    >>> out = bf16_softmax(HostLauncher(), "softmax", np.empty_like(x), x, 1)
    >>> (out.astype(np.uint32) << 16).view(np.float32).tolist()
    [[0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]]
    """
    name = _bf16_kernel_name(launcher, op, BF16_SOFTMAX_OPS)
    o, i = _bf16_out_and_input(launcher, name, out, inp)
    _check_same_shape(launcher, name, o, i)
    if i.shape and not 0 <= dim < len(i.shape):
        raise _error(launcher, name, f"dim {dim} out of range for input of shape {i.shape}")
    _check_devices(launcher, name, [o, i])
    _check_writable_once(launcher, name, o)
    if _overlaps(o, i):
        raise _error(launcher, name, "out overlaps the input")
    _launch(launcher, bf16_softmax_launch(op, o, i, dim), o)
    return out


# ----------------------------------------------------------------------------------------------------------
# Philox random words (philox.cu)
# ----------------------------------------------------------------------------------------------------------
PHILOX_KERNELS = {"u32": "philox_u32", "f32": "philox_uniform_f32", "f64": "philox_uniform_f64",
                  "normal_f32": "philox_normal_f32", "normal_f64": "philox_normal_f64"}
PHILOX_DTYPES = {"u32": np.dtype(np.uint32), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
                 "normal_f32": np.dtype(np.float32), "normal_f64": np.dtype(np.float64)}
# The launchers describe operands in the kernels' dtype list, which has no uint32: words travel as int32 views.
PHILOX_WORDS = np.dtype(np.int32)


def philox_operand_dtype(dtype: np.dtype) -> np.dtype:
    """The operand dtype of a Philox output of ``dtype`` (uint32 words as int32)."""
    return PHILOX_WORDS if dtype == np.dtype(np.uint32) else dtype


def philox_operand(launcher, array, what: str = "array", writable: bool = False) -> Operand:
    """The launcher's operand for ``array``; uint32 word arrays are described as int32 (same bytes)."""
    if array.dtype == np.dtype(np.uint32):
        array = array.view(PHILOX_WORDS)
    return launcher.operand(array, what=what, writable=writable)


def philox_launch(kind: str, out: Operand, seed: int, offset: int, n: int) -> KernelLaunch | None:
    """Fill the contiguous ``out`` with ``n`` values of ``kind`` from stream words ``offset ..`` of ``seed``.

    One work item per Philox block (four words): ``f64`` makes two values per block, the others four.
    ``offset`` must be a multiple of 4 (generators always hand out whole blocks).

    >>> out = Operand(4096, np.dtype("float32"), (1000,), (1,))
    >>> launch = philox_launch("f32", out, seed=1, offset=8, n=1000)
    >>> launch.kernel, launch.grid, int(launch.args[2])
    ('philox_uniform_f32', (1, 1, 1), 8)
    """
    if kind not in PHILOX_KERNELS:
        raise ValueError(f"unknown Philox kernel kind {kind!r}")
    if offset % 4:
        raise ValueError(f"philox: offset {offset} is not a multiple of 4")
    if (out.dtype != philox_operand_dtype(PHILOX_DTYPES[kind]) or out.numel < n
            or (n > 1 and out.strides[-1:] != (1,)) or len(out.shape) != 1):
        raise RuntimeError(f"philox: output must be a contiguous 1-d {PHILOX_DTYPES[kind]} array of at least {n} "
                           f"elements, got {out.dtype} {out.shape} strides {out.strides}")
    if n == 0:
        return None
    items = -(-n // 2) if kind == "f64" else -(-n // 4)
    grid, block = pointwise_grid(items)
    args = (pack_pointer(out.ptr), np.uint64(seed % 2 ** 64), np.uint64(offset % 2 ** 64), np.int64(n))
    return KernelLaunch(SOURCES["philox"], PHILOX_KERNELS[kind], grid, block, 0, args)


def philox_block_launch(out: Operand, inp: Operand, n: int) -> KernelLaunch | None:
    """Raw Philox4x32-10 of ``n`` (counter, key) rows: ``inp`` is ``n x 6`` words, ``out`` ``n x 4`` (uint32
    arrays described as int32 operands, see :func:`philox_operand`)."""
    if out.dtype != PHILOX_WORDS or inp.dtype != PHILOX_WORDS or out.numel != 4 * n or inp.numel != 6 * n:
        raise RuntimeError(f"philox_block: expected uint32 arrays of {6 * n} and {4 * n} elements")
    if n == 0:
        return None
    grid, block = pointwise_grid(n)
    return KernelLaunch(SOURCES["philox"], "philox_block", grid, block, 0,
                        (pack_pointer(out.ptr), pack_pointer(inp.ptr), np.int64(n)))


def philox_values(launcher, kind: str, seed: int, offset: int, n: int, xp=np, device: int | None = None):
    """``n`` values of ``kind`` computed by the raw kernel through ``launcher`` (arrays of ``xp``)."""
    out = xp.empty(n, dtype=PHILOX_DTYPES[kind])
    launch = philox_launch(kind, philox_operand(launcher, out, "philox output", writable=True), seed, offset, n)
    if launch is not None:
        launcher.launch(launch, device)
    return out


# ----------------------------------------------------------------------------------------------------------
# Fused attention and recurrent cells (attention.cu, rnn_cells.cu): dense operands prepared by the *_forward /
# *_backward functions below (which also decide whether the kernels apply)
# ----------------------------------------------------------------------------------------------------------
ATTN_THREADS = 128  # OPENREG_ATTN_THREADS in attention.cu
ATTN_MAX_HEAD = 128  # OPENREG_ATTN_MAX_HEAD
# (forward query tile, backward key tile) per dtype: AttnTiles<T> in attention.cu (kFwdQ, kBwdK)
# (bfloat16 words accumulate in float32: float32's tiles)
ATTN_TILES: dict[np.dtype, tuple[int, int]] = {np.dtype("float32"): (16, 16), np.dtype("float64"): (8, 8),
                                               BF16_WORDS: (16, 16)}
ATTENTION_DTYPES: tuple[np.dtype, ...] = tuple(ATTN_TILES)
CELL_DTYPES: tuple[np.dtype, ...] = (np.dtype("float32"), np.dtype("float64"))
MAX_GRID_Y = 65535

ATTENTION_SHAPE_DTYPE = np.dtype([
    ("bh", np.int64), ("heads", np.int64), ("q_len", np.int64), ("k_len", np.int64), ("head_dim", np.int64),
    ("value_dim", np.int64), ("mask_stride", np.int64, (4,)), ("scale", np.float64),
    ("causal", np.int32), ("has_mask", np.int32),
], align=True)
assert ATTENTION_SHAPE_DTYPE.itemsize == 96  # static_assert in attention.cu

CELL_SHAPE_DTYPE = np.dtype([
    ("batch", np.int64), ("hidden", np.int64), ("has_bias", np.int32), ("has_grad_hy", np.int32),
    ("has_grad_cy", np.int32), ("reserved", np.int32),
], align=True)
assert CELL_SHAPE_DTYPE.itemsize == 32  # static_assert in rnn_cells.cu


def attention_shape(bh: int, heads: int, q_len: int, k_len: int, head_dim: int, value_dim: int,
                    mask_strides: Sequence[int] | None, scale: float, causal: bool) -> np.ndarray:
    """The ``AttentionShape`` parameter struct (``mask_strides``: batch, head, row, col in elements)."""
    shape = np.zeros((), dtype=ATTENTION_SHAPE_DTYPE)
    for field, value in (("bh", bh), ("heads", heads), ("q_len", q_len), ("k_len", k_len), ("head_dim", head_dim),
                         ("value_dim", value_dim), ("scale", scale), ("causal", int(causal)),
                         ("has_mask", int(mask_strides is not None))):
        shape[field] = value
    shape["mask_stride"] = tuple(mask_strides) if mask_strides is not None else (0, 0, 0, 0)
    return shape


def attention_launch(variant: str, dtype: Any, shape: np.ndarray, pointers: Sequence[int]) -> KernelLaunch:
    """``attention_{fwd,bwd_dq,bwd_dkdv}_<dt>``: one block per query tile (fwd, bwd_dq) or key tile (bwd_dkdv)
    of each (batch, head); ``pointers`` in the kernel's parameter order (0 for no mask).

    >>> s = attention_shape(6, 3, 40, 40, 16, 16, None, 0.25, True)
    >>> launch = attention_launch("fwd", "float32", s, [0] * 6)
    >>> launch.kernel, launch.grid, launch.block
    ('attention_fwd_f32', (3, 6, 1), (128, 1, 1))
    """
    dtype = np.dtype(dtype)
    q_tile, k_tile = ATTN_TILES[dtype]
    rows = int(shape["k_len"]) if variant == "bwd_dkdv" else int(shape["q_len"])
    tile = k_tile if variant == "bwd_dkdv" else q_tile
    grid = (max(1, -(-rows // tile)), int(shape["bh"]), 1)
    return KernelLaunch(SOURCES["attention"], kernel_name("attention", variant, dtype), grid, (ATTN_THREADS, 1, 1),
                        0, tuple(pack_pointer(p) for p in pointers) + (shape,))


def cell_launch(cell: str, direction: str, dtype: Any, batch: int, hidden: int, pointers: Sequence[int], *,
                has_bias: bool = False, has_grad_hy: bool = True, has_grad_cy: bool = True) -> KernelLaunch:
    """``{lstm,gru}_cell_{fwd,bwd}_<dt>``: one thread per (batch, hidden) element, grid-stride.

    >>> launch = cell_launch("lstm", "fwd", "float64", 16, 64, [0] * 8, has_bias=True)
    >>> launch.kernel, launch.grid, int(launch.args[-1]["has_bias"])
    ('lstm_cell_fwd_f64', (4, 1, 1), 1)
    """
    shape = np.zeros((), dtype=CELL_SHAPE_DTYPE)
    shape["batch"], shape["hidden"] = batch, hidden
    shape["has_bias"], shape["has_grad_hy"], shape["has_grad_cy"] = int(has_bias), int(has_grad_hy), int(has_grad_cy)
    grid, block = pointwise_grid(batch * hidden)
    return KernelLaunch(SOURCES["rnn_cells"], kernel_name(f"{cell}_cell", direction, dtype), grid, block, 0,
                        tuple(pack_pointer(p) for p in pointers) + (shape,))


def _pointers(launcher: Launcher, op: str, named: Sequence[tuple[str, Any, bool]]) -> list[int]:
    """Element-0 addresses of ``(name, array or None, writable)`` (0 for None)."""
    return [0 if arr is None else _operand(launcher, op, arr, name, writable).ptr for name, arr, writable in named]


def attention_fwd(launcher: Launcher, out: Any, lse: Any, q: Any, k: Any, v: Any, mask: Any, shape: Any) -> None:
    """``attention_fwd_<dt>``: ``out`` ``(BH, L, Ev)`` and ``lse`` ``(BH, L)`` from dense ``q``/``k``/``v`` and an
    optional additive ``mask`` read through ``shape``'s strides."""
    ptrs = _pointers(launcher, "attention", [("out", out, True), ("lse", lse, True), ("query", q, False),
                                              ("key", k, False), ("value", v, False), ("mask", mask, False)])
    launcher.launch(attention_launch("fwd", q.dtype, shape, ptrs))


def attention_bwd(launcher: Launcher, dq: Any, dk: Any, dv: Any, row_dot: Any, q: Any, k: Any, v: Any, out: Any,
                  grad_out: Any, lse: Any, mask: Any, shape: Any) -> None:
    """``attention_bwd_dq_<dt>`` (also writes ``row_dot``), then ``attention_bwd_dkdv_<dt>``."""
    p = dict(zip(("q", "k", "v", "out", "grad_out", "lse", "mask"), _pointers(launcher, "attention", [
        ("query", q, False), ("key", k, False), ("value", v, False), ("out", out, False),
        ("grad_out", grad_out, False), ("logsumexp", lse, False), ("mask", mask, False)])))
    dq_ptr, dot_ptr, dk_ptr, dv_ptr = _pointers(launcher, "attention", [
        ("dq", dq, True), ("row_dot", row_dot, True), ("dk", dk, True), ("dv", dv, True)])
    launcher.launch(attention_launch("bwd_dq", q.dtype, shape, [
        dq_ptr, dot_ptr, p["q"], p["k"], p["v"], p["out"], p["grad_out"], p["lse"], p["mask"]]))
    launcher.launch(attention_launch("bwd_dkdv", q.dtype, shape, [
        dk_ptr, dv_ptr, p["q"], p["k"], p["v"], p["grad_out"], p["lse"], dot_ptr, p["mask"]]))


def lstm_cell_fwd(launcher: Launcher, hy: Any, cy: Any, ws: Any, ig: Any, hg: Any, cx: Any, ib: Any, hb: Any) -> None:
    """``lstm_cell_fwd_<dt>``: ``hy``, ``cy`` ``(B, H)`` and the workspace ``(B, 4H)``; biases optional."""
    ptrs = _pointers(launcher, "lstm_cell", [("hy", hy, True), ("cy", cy, True), ("workspace", ws, True),
                                              ("input_gates", ig, False), ("hidden_gates", hg, False),
                                              ("cx", cx, False), ("input_bias", ib, False), ("hidden_bias", hb, False)])
    launcher.launch(cell_launch("lstm", "fwd", cx.dtype, cx.shape[0], cx.shape[1], ptrs, has_bias=ib is not None))


def lstm_cell_bwd(launcher: Launcher, grad_gates: Any, grad_cx: Any, grad_hy: Any, grad_cy: Any, cx: Any, cy: Any,
                  ws: Any) -> None:
    """``lstm_cell_bwd_<dt>``: ``grad_gates`` ``(B, 4H)`` and ``grad_cx``; a None output gradient counts as zeros."""
    ptrs = _pointers(launcher, "lstm_cell", [("grad_gates", grad_gates, True), ("grad_cx", grad_cx, True),
                                              ("grad_hy", grad_hy, False), ("grad_cy", grad_cy, False),
                                              ("cx", cx, False), ("cy", cy, False), ("workspace", ws, False)])
    launcher.launch(cell_launch("lstm", "bwd", cx.dtype, cx.shape[0], cx.shape[1], ptrs,
                                has_grad_hy=grad_hy is not None, has_grad_cy=grad_cy is not None))


def gru_cell_fwd(launcher: Launcher, hy: Any, ws: Any, ig: Any, hg: Any, hx: Any, ib: Any, hb: Any) -> None:
    """``gru_cell_fwd_<dt>``: ``hy`` ``(B, H)`` and the workspace ``(B, 5H)``; biases optional."""
    ptrs = _pointers(launcher, "gru_cell", [("hy", hy, True), ("workspace", ws, True), ("input_gates", ig, False),
                                             ("hidden_gates", hg, False), ("hx", hx, False),
                                             ("input_bias", ib, False), ("hidden_bias", hb, False)])
    launcher.launch(cell_launch("gru", "fwd", hx.dtype, hx.shape[0], hx.shape[1], ptrs, has_bias=ib is not None))


def gru_cell_bwd(launcher: Launcher, grad_input: Any, grad_hidden: Any, grad_hx: Any, grad_hy: Any, ws: Any) -> None:
    """``gru_cell_bwd_<dt>``: the input- and hidden-gate gradients ``(B, 3H)`` and ``grad_hx``."""
    ptrs = _pointers(launcher, "gru_cell", [("grad_input_gates", grad_input, True),
                                             ("grad_hidden_gates", grad_hidden, True), ("grad_hx", grad_hx, True),
                                             ("grad_hy", grad_hy, False), ("workspace", ws, False)])
    launcher.launch(cell_launch("gru", "bwd", ws.dtype, grad_hx.shape[0], grad_hx.shape[1], ptrs))


# ----------------------------------------------------------------------------------------------------------
# Every kernel
# ----------------------------------------------------------------------------------------------------------
def all_kernel_names(source: str) -> list[str]:
    """Every kernel name this module may launch from ``source`` (used by the build test and the report).

    >>> len(all_kernel_names("copy.cu"))
    162
    """
    if source == "abs.cu":
        return [kernel_name("abs", v, d) for d in ABS_DTYPES for v in ("contig", "strided")]
    if source == "fill.cu":
        return [kernel_name("fill", v, d) for d in FILL_DTYPES for v in ("contig", "strided")]
    if source == "copy.cu":
        return [kernel_name("copy", v, o, i) for o in COPY_DTYPES for i in COPY_DTYPES for v in ("contig", "strided")]
    if source == "mm_plus_mm.cu":
        return [kernel_name("mm_plus_mm", None, d) for d in MM_DTYPES]
    if source == "philox.cu":
        return ["philox_block", *PHILOX_KERNELS.values()]
    if source == "bf16.cu":
        return bf16_kernel_names()
    if source == "bf16_reduce.cu":
        return [kernel_name("bf16_sum", None, BF16_WORDS), kernel_name("bf16_sum", None, F32, BF16_WORDS),
                *(kernel_name(f"bf16_{op}", None, BF16_WORDS) for op in ("amax", "amin", *BF16_SOFTMAX_OPS))]
    if source == "attention.cu":
        return [kernel_name("attention", v, d) for d in ATTENTION_DTYPES for v in ("fwd", "bwd_dq", "bwd_dkdv")]
    if source == "rnn_cells.cu":
        return [kernel_name(f"{c}_cell", v, d) for d in CELL_DTYPES for c in ("lstm", "gru") for v in ("fwd", "bwd")]
    raise KeyError(f"unknown kernel source {source!r}")


# ----------------------------------------------------------------------------------------------------------
# Running on the current driver
# ----------------------------------------------------------------------------------------------------------
_lock = threading.Lock()
_launchers: dict[str, object] = {}


# ``os.environ``'s own mapping, read with the encoded key: ``os.environ.get`` costs a chain of Python calls,
# and this is asked on every call of a device op that may run a raw kernel. ``os.environ``'s writes
# (``os.environ[...] = ``, ``monkeypatch.setenv``) update this mapping, so a change is seen at the next call.
_environ_data = getattr(os.environ, "_data", None)
try:
    _EMULATE_KEY, _EMULATE_ON = os.environ.encodekey("OPENREG_EMULATE_KERNELS"), os.environ.encodevalue("1")
except (AttributeError, TypeError):      # not CPython's os.environ: ask it the ordinary way
    _environ_data = None


def enabled() -> bool:
    """Whether raw kernels run (cuda driver: always; emulated: ``OPENREG_EMULATE_KERNELS=1``)."""
    drv = driver_select._driver         # get_driver(), without its call once the driver exists
    if (drv if drv is not None else get_driver()).name == "cuda":
        return True
    if _environ_data is not None:
        return _environ_data.get(_EMULATE_KEY) == _EMULATE_ON
    return os.environ.get("OPENREG_EMULATE_KERNELS", "") == "1"


def _enabled_check():
    """``enabled`` for the driver in use, as cheap a check as it allows: True on the cuda driver (raw kernels
    always run); on the emulated one a C-level test of ``os.environ``'s own mapping, with no Python frame."""
    drv = driver_select._driver
    if (drv if drv is not None else get_driver()).name == "cuda":
        return True
    if _environ_data is None:
        return enabled
    return partial(operator.contains, _environ_data.items(), (_EMULATE_KEY, _EMULATE_ON))


# What a structured kernel whose ``ufunc_unless`` is ``enabled`` asks per call (resolved per driver).
enabled.for_driver = _enabled_check


def launcher():
    """The launcher of the current driver (created once): CuPy's on cuda, the host launcher otherwise."""
    name = get_driver().name
    lnch = _launchers.get(name)
    if lnch is None:
        with _lock:
            lnch = _launchers.get(name)
            if lnch is None:
                lnch = _launchers[name] = CupyLauncher() if name == "cuda" else HostLauncher()
    return lnch


def _use(supported: Sequence[np.dtype], *arrays) -> bool:
    return enabled() and all(np.dtype(a.dtype) in supported for a in arrays)
def abs_into(out, inp) -> None:
    """``out[...] = |inp|`` (same shape and dtype)."""
    if _use(ABS_DTYPES, out, inp):
        abs_(launcher(), out, inp)
    else:
        xp = get_driver().array_module if not isinstance(out, np.ndarray) else np
        xp.abs(inp, out=out)


def copy_into(out, inp) -> None:
    """``out[...] = inp`` with dtype conversion and broadcasting (``inp`` may be a broadcast view)."""
    if _use(COPY_DTYPES, out, inp):
        xp = np if isinstance(out, np.ndarray) else get_driver().array_module
        copy_(launcher(), out, xp.broadcast_to(inp, out.shape))
    else:
        with quiet():   # out-of-range values convert silently (1e30 to float16 is inf), as PyTorch's copy does
            out[...] = inp


def fill_into(out, value) -> None:
    """``out[...] = value`` (a NumPy scalar already converted to ``out``'s dtype)."""
    if _use(FILL_DTYPES, out):
        fill_(launcher(), out, value)
    else:
        out[...] = value


def mm_plus_mm_into(a, b, c, d, out) -> bool:
    """``out = a @ b + c @ d`` through the fused kernel; False when the kernel does not apply (dtype)."""
    if not _use(MM_DTYPES, a, b, c, d, out):
        return False
    mm_plus_mm(launcher(), a, b, c, d, out)
    return True


def bf16_binary_into(op: str, out, a, b, alpha: float = 1.0) -> bool:
    """``out = a <op> b`` on bfloat16 words (one operand may be float32 for the mixed ops) through the raw kernel,
    inputs broadcast to ``out``'s shape; False when raw kernels are off (the emulated driver without
    ``OPENREG_EMULATE_KERNELS=1``)."""
    if not enabled():
        return False
    xp = np if isinstance(out, np.ndarray) else get_driver().array_module
    bf16_binary(launcher(), op, out, xp.broadcast_to(a, out.shape), xp.broadcast_to(b, out.shape), alpha)
    return True


def bf16_scalar_into(op: str, out, a, value: float, alpha: float = 1.0) -> bool:
    """``out = a <op> value`` on bfloat16 words and a float32 scalar; False when raw kernels are off."""
    if not enabled():
        return False
    bf16_scalar(launcher(), op, out, a, value, alpha)
    return True


def bf16_unary_into(op: str, out, inp) -> bool:
    """``out = op(inp)`` on bfloat16 words through the raw kernel; False when raw kernels are off."""
    if not enabled():
        return False
    bf16_unary(launcher(), op, out, inp)
    return True


def bf16_copy_into(out, inp) -> bool:
    """``out[...] = inp`` (broadcast), one side bfloat16 words, the other a kernel dtype; False when raw kernels
    are off or the other dtype has no kernel (complex)."""
    if not enabled():
        return False
    other = inp if out.dtype == BF16_WORDS else out
    if np.dtype(other.dtype) not in (*ALL_DTYPES, BF16_WORDS):
        return False
    xp = np if isinstance(out, np.ndarray) else get_driver().array_module
    bf16_copy(launcher(), out, xp.broadcast_to(inp, out.shape))
    return True


def bf16_reduce_into(op: str, out, inp, dims, keepdim: bool, divisor: float = 1.0) -> bool:
    """``out = op(inp over dims) / divisor`` on bfloat16 words (``out`` words or float32); False when raw kernels
    are off."""
    if not enabled():
        return False
    bf16_reduce(launcher(), op, out, inp, dims, keepdim, divisor)
    return True


def bf16_softmax_into(op: str, out, inp, dim: int) -> bool:
    """``out = softmax(inp, dim)`` / ``log_softmax`` on bfloat16 words; False when raw kernels are off."""
    if not enabled():
        return False
    bf16_softmax(launcher(), op, out, inp, dim)
    return True


def _xp_of(arr):
    return np if isinstance(arr, np.ndarray) else get_driver().array_module


def _bhld(xp, arr, dtype):
    """``arr`` ``(..., rows, cols)`` as a dense ``(batch, rows, cols)`` array of ``dtype``."""
    return xp.ascontiguousarray(arr.reshape((-1,) + arr.shape[-2:]), dtype=dtype)


def _attention_fits(q, k, v, mask) -> bool:
    if not _use(ATTENTION_DTYPES, q, k, v) or not (q.dtype == k.dtype == v.dtype):
        return False
    if q.ndim < 2 or not (q.shape[:-2] == k.shape[:-2] == v.shape[:-2]):
        return False            # broadcast batch dimensions (grouped-query views) stay on the array path
    bh = int(np.prod(q.shape[:-2], dtype=np.int64))
    return (0 < q.shape[-1] <= ATTN_MAX_HEAD and 0 < v.shape[-1] <= ATTN_MAX_HEAD and 0 < bh <= MAX_GRID_Y
            and q.shape[-2] > 0 and k.shape[-2] > 0 and (mask is None or mask.ndim <= q.ndim))


def _attention_mask(xp, mask, batch: tuple, L: int, S: int, dtype):
    """``(array, element strides (batch, head, row, col))`` of an additive mask, broadcast without a copy;
    a bool mask becomes ``0 / -inf`` at its own size."""
    if mask is None:
        return None, None
    if mask.dtype == bool:
        mask = xp.where(mask, dtype.type(0), dtype.type(-np.inf))
    elif mask.dtype != dtype:
        mask = mask.astype(dtype)
    full = xp.broadcast_to(mask, batch + (L, S))
    if len(batch) > 2:
        full = full.reshape((-1, batch[-1], L, S))
    lead = (1,) * (2 - min(len(batch), 2))
    full = full.reshape(lead + full.shape) if lead else full
    return full, tuple(s // full.itemsize for s in full.strides)


def _accumulation_dtype(dt):
    """float32 for bfloat16 words (whose results are words again), else the dtype itself."""
    return F32 if dt == BF16_WORDS else dt


def attention_forward(q, k, v, mask, is_causal: bool, scale: float):
    """``(out, lse)`` through ``attention_fwd_<dt>``, or None when the kernel does not apply (raw kernels off,
    dtype, broadcast batch dimensions, head size above ``ATTN_MAX_HEAD``). bfloat16 words give words and a float32
    ``lse`` (the mask, if any, is float32)."""
    if not _attention_fits(q, k, v, mask):
        return None
    xp, dt = _xp_of(q), q.dtype
    ct = _accumulation_dtype(dt)
    batch, (L, E), (S, Ev) = q.shape[:-2], q.shape[-2:], v.shape[-2:]
    q3, k3, v3 = _bhld(xp, q, dt), _bhld(xp, k, dt), _bhld(xp, v, dt)
    bh = q3.shape[0]
    out = xp.empty((bh, L, Ev), dtype=dt)
    lse = xp.empty((bh, L), dtype=ct)
    m, strides = _attention_mask(xp, mask, batch, L, S, ct)
    shape = attention_shape(bh, batch[-1] if batch else 1, L, S, E, Ev, strides, scale, is_causal)
    attention_fwd(launcher(), out, lse, q3, k3, v3, m, shape)
    return out.reshape(batch + (L, Ev)), lse.reshape(batch + (L,))


def attention_backward(grad_out, q, k, v, out, lse, mask, is_causal: bool, scale: float):
    """``(dq, dk, dv)`` through ``attention_bwd_dq_<dt>`` then ``attention_bwd_dkdv_<dt>``, or None when the
    kernels do not apply."""
    if not _attention_fits(q, k, v, mask):
        return None
    xp, dt = _xp_of(q), q.dtype
    ct = _accumulation_dtype(dt)
    batch, (L, E), (S, Ev) = q.shape[:-2], q.shape[-2:], v.shape[-2:]
    q3, k3, v3 = _bhld(xp, q, dt), _bhld(xp, k, dt), _bhld(xp, v, dt)
    o3, g3 = _bhld(xp, out, dt), _bhld(xp, grad_out, dt)
    lse2 = xp.ascontiguousarray(lse.reshape(-1, L), dtype=ct)
    bh = q3.shape[0]
    dq, dk, dv = xp.empty_like(q3), xp.empty_like(k3), xp.empty_like(v3)
    row_dot = xp.empty((bh, L), dtype=ct)
    m, strides = _attention_mask(xp, mask, batch, L, S, ct)
    shape = attention_shape(bh, batch[-1] if batch else 1, L, S, E, Ev, strides, scale, is_causal)
    attention_bwd(launcher(), dq, dk, dv, row_dot, q3, k3, v3, o3, g3, lse2, m, shape)
    return dq.reshape(q.shape), dk.reshape(k.shape), dv.reshape(v.shape)


def _dense(xp, arr, dtype):
    return None if arr is None else xp.ascontiguousarray(arr, dtype=dtype)


def lstm_cell_forward(input_gates, hidden_gates, cx, input_bias, hidden_bias):
    """``(hy, cy, workspace)`` through ``lstm_cell_fwd_<dt>``, or None when the kernel does not apply."""
    if not _use(CELL_DTYPES, input_gates, hidden_gates, cx):
        return None
    xp, dt = _xp_of(cx), input_gates.dtype
    ig, hg, c = _dense(xp, input_gates, dt), _dense(xp, hidden_gates, dt), _dense(xp, cx, dt)
    ib, hb = _dense(xp, input_bias, dt), _dense(xp, hidden_bias, dt)
    hy, cy, ws = xp.empty_like(c), xp.empty_like(c), xp.empty_like(ig)
    lstm_cell_fwd(launcher(), hy, cy, ws, ig, hg, c, ib, hb)
    return hy, cy, ws


def lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace):
    """``(grad_gates, grad_cx)`` through ``lstm_cell_bwd_<dt>`` (a None gradient counts as zeros), or None."""
    if not _use(CELL_DTYPES, cx, cy, workspace):
        return None
    xp, dt = _xp_of(cx), workspace.dtype
    c, c_new, ws = _dense(xp, cx, dt), _dense(xp, cy, dt), _dense(xp, workspace, dt)
    gh, gc = _dense(xp, grad_hy, dt), _dense(xp, grad_cy, dt)
    grad_gates, grad_cx = xp.empty_like(ws), xp.empty_like(c)
    lstm_cell_bwd(launcher(), grad_gates, grad_cx, gh, gc, c, c_new, ws)
    return grad_gates, grad_cx


def gru_cell_forward(input_gates, hidden_gates, hx, input_bias, hidden_bias):
    """``(hy, workspace)`` through ``gru_cell_fwd_<dt>``, or None when the kernel does not apply."""
    if not _use(CELL_DTYPES, input_gates, hidden_gates, hx):
        return None
    xp, dt = _xp_of(hx), input_gates.dtype
    ig, hg, h = _dense(xp, input_gates, dt), _dense(xp, hidden_gates, dt), _dense(xp, hx, dt)
    ib, hb = _dense(xp, input_bias, dt), _dense(xp, hidden_bias, dt)
    hy, ws = xp.empty_like(h), xp.empty((h.shape[0], 5 * h.shape[1]), dtype=dt)
    gru_cell_fwd(launcher(), hy, ws, ig, hg, h, ib, hb)
    return hy, ws


def gru_cell_backward(grad_hy, workspace):
    """``(grad_input_gates, grad_hidden_gates, grad_hx)`` through ``gru_cell_bwd_<dt>``, or None."""
    if not _use(CELL_DTYPES, grad_hy, workspace):
        return None
    xp, dt = _xp_of(workspace), workspace.dtype
    gh, ws = _dense(xp, grad_hy, dt), _dense(xp, workspace, dt)
    gates = (gh.shape[0], 3 * gh.shape[1])
    gi, gg, ghx = xp.empty(gates, dtype=dt), xp.empty(gates, dtype=dt), xp.empty_like(gh)
    gru_cell_bwd(launcher(), gi, gg, ghx, gh, ws)
    return gi, gg, ghx


__all__ = [
    "ABS_DTYPES",
    "ATTENTION_DTYPES",
    "BF16_ARITHMETIC_OPS",
    "BF16_BINARY_OPS",
    "BF16_COMPARE_OPS",
    "BF16_MIXED_OPS",
    "BF16_REDUCE_OPS",
    "BF16_SCALAR_OPS",
    "BF16_SOFTMAX_OPS",
    "BF16_UNARY_OPS",
    "CELL_DTYPES",
    "COPY_DTYPES",
    "FILL_DTYPES",
    "MM_DTYPES",
    "PHILOX_DTYPES",
    "PHILOX_KERNELS",
    "SOURCES",
    "Launcher",
    "abs_",
    "abs_into",
    "abs_launch",
    "all_kernel_names",
    "attention_backward",
    "attention_bwd",
    "attention_forward",
    "attention_fwd",
    "attention_launch",
    "bf16_binary",
    "bf16_binary_into",
    "bf16_binary_launch",
    "bf16_copy",
    "bf16_copy_into",
    "bf16_copy_launch",
    "bf16_kernel_names",
    "bf16_reduce",
    "bf16_reduce_into",
    "bf16_reduce_launch",
    "bf16_scalar",
    "bf16_scalar_into",
    "bf16_scalar_launch",
    "bf16_softmax",
    "bf16_softmax_into",
    "bf16_softmax_launch",
    "bf16_unary",
    "bf16_unary_into",
    "bf16_unary_launch",
    "cell_launch",
    "copy_",
    "copy_into",
    "copy_launch",
    "enabled",
    "fill_",
    "fill_into",
    "fill_launch",
    "gru_cell_backward",
    "gru_cell_bwd",
    "gru_cell_forward",
    "gru_cell_fwd",
    "kernel_name",
    "launcher",
    "lstm_cell_backward",
    "lstm_cell_bwd",
    "lstm_cell_forward",
    "lstm_cell_fwd",
    "mm_plus_mm",
    "mm_plus_mm_into",
    "mm_plus_mm_launch",
    "philox_block_launch",
    "philox_launch",
    "philox_operand",
    "philox_values",
    "pointwise_launch",
]
