"""Launch configuration for the raw CUDA kernels in ``cuda_kernels/``, shared by both launchers.

Everything that decides *how* a kernel runs lives here, so the CUDA launcher (CuPy on a GPU) and the host
launcher (the same .cu compiled for the CPU) cannot drift apart: kernel names per dtype, grid and block
sizes, shared memory, and argument packing.  Arguments are packed as NumPy values with the exact byte layout
of the kernel parameters -- pointers as ``uint64``, scalars as their dtype, parameter structs as 0-d
structured arrays -- which CuPy passes by value and the host launcher hands to the kernel as ``void**``.

Operands are described by :class:`Operand` (address of element 0, dtype, shape, strides in elements), so
this module never touches NumPy or CuPy arrays themselves; the launchers build operands from arrays.

Adding a kernel (say ``cuda_kernels/philox.cu``): write the ``extern "C"`` entry points, add its source to
:data:`SOURCES`, add a ``*_launch`` function here that returns a :class:`KernelLaunch` (use
:func:`pointwise_grid` and :func:`strided_geometry` for elementwise work), and a thin validated wrapper in
``device_kernels.py``.  Both launchers and ``ci/kernel-report`` pick the source up from there.

>>> import numpy as np
>>> out = Operand(ptr=4096, dtype=np.dtype("float32"), shape=(4, 5), strides=(5, 1))
>>> inp = Operand(ptr=8192, dtype=np.dtype("float32"), shape=(4, 5), strides=(1, 4))
>>> abs_launch(out, out).kernel, abs_launch(out, inp).kernel
('abs_contig_f32', 'abs_strided_f32')
"""
from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

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
    "philox": "philox.cu",  # random numbers: launched by kernels_random.py
}

# dtype -> suffix used in kernel names (the X-macro lists in common.cuh)
DTYPE_SUFFIX: dict[np.dtype, str] = {
    np.dtype(np.bool_): "b8",
    np.dtype(np.uint8): "u8",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}
ALL_DTYPES: tuple[np.dtype, ...] = tuple(DTYPE_SUFFIX)
ABS_DTYPES: tuple[np.dtype, ...] = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "int16",
                                                                 "int32", "int64"))
COPY_DTYPES = ALL_DTYPES
FILL_DTYPES = ALL_DTYPES
MM_DTYPES: tuple[np.dtype, ...] = tuple(np.dtype(t) for t in ("float16", "float32", "float64"))


# ----------------------------------------------------------------------------------------------------------
# Operands and launches
# ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Operand:
    """A strided view of device (or host) memory: address of element 0, dtype, shape, element strides.

    >>> import numpy as np
    >>> Operand(0x1000, np.dtype("int16"), (2, 3), (3, 1)).numel
    6
    """

    ptr: int
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    device: int = 0

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def byte_strides(self) -> tuple[int, ...]:
        return tuple(s * self.itemsize for s in self.strides)


def read_array_interface(iface: dict, *, what: str, writable: bool) -> tuple[int, np.dtype, tuple, tuple]:
    """``(ptr, dtype, shape, byte_strides)`` from an ``__array_interface__`` / ``__cuda_array_interface__`` dict.

    Both interfaces share this layout; missing strides mean C-contiguous.

    >>> read_array_interface({"data": (64, False), "typestr": "<f4", "shape": (2, 3)}, what="x", writable=True)
    (64, dtype('float32'), (2, 3), (12, 4))
    """
    ptr, readonly = iface["data"]
    if writable and readonly:
        raise RuntimeError(f"{what}: the output array is read-only")
    dtype = np.dtype(iface["typestr"])
    shape = tuple(iface["shape"])
    strides = iface.get("strides")
    if strides is None:
        strides, acc = [], dtype.itemsize
        for size in reversed(shape):
            strides.insert(0, acc)
            acc *= max(size, 1)
    return ptr or 0, dtype, shape, tuple(strides)


def make_operand(ptr: int, dtype: Any, shape: Sequence[int], byte_strides: Sequence[int], *, device: int = 0,
                 what: str = "array") -> Operand:
    """Build an :class:`Operand` from an array's address, dtype, shape and *byte* strides.

    Raises ``RuntimeError`` for dtypes the kernels do not know, byte-swapped data, strides that are not a
    multiple of the item size, or a misaligned address.

    >>> make_operand(4096, "float64", (2, 2), (8, 16)).strides
    (1, 2)
    """
    dt = np.dtype(dtype)
    if dt not in DTYPE_SUFFIX:
        raise RuntimeError(f"{what}: dtype {dt} is not supported by the device kernels "
                           f"(supported: {', '.join(str(d) for d in ALL_DTYPES)})")
    if not dt.isnative:
        raise RuntimeError(f"{what}: byte-swapped dtype {dt.str} is not supported; convert to native order")
    shape = tuple(int(s) for s in shape)
    if len(byte_strides) != len(shape):
        raise RuntimeError(f"{what}: {len(byte_strides)} strides for a {len(shape)}-d shape {shape}")
    strides = []
    for s in byte_strides:
        if int(s) % dt.itemsize:
            raise RuntimeError(f"{what}: byte stride {s} is not a multiple of the {dt} item size {dt.itemsize}")
        strides.append(int(s) // dt.itemsize)
    if math.prod(shape) and int(ptr) % dt.itemsize:
        raise RuntimeError(f"{what}: address {int(ptr):#x} is not aligned to the {dt} item size")
    return Operand(int(ptr), dt, shape, tuple(strides), device)


@dataclass(frozen=True)
class KernelLaunch:
    """One kernel launch: which kernel of which source, grid/block/dynamic shared memory, packed args."""

    source: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    args: tuple[Any, ...]


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
        from .kernels_random import all_kernel_names as philox_kernel_names
        return philox_kernel_names()
    raise KeyError(f"unknown kernel source {source!r}")


# ----------------------------------------------------------------------------------------------------------
# Sources: the .cu text with local #includes expanded (with #line markers), so NVRTC needs no include path,
# CuPy's on-disk cache key covers the headers, and the host launcher hashes exactly what it compiles.
# ----------------------------------------------------------------------------------------------------------
def kernel_dir() -> Path:
    """The folder holding the .cu/.cuh sources (``openreg/cuda_kernels``, in the repository or installed)."""
    here = Path(__file__).resolve().parents[2] / "cuda_kernels"
    if (here / "common.cuh").exists():
        return here
    from openreg.cuda_kernels import source_dir  # an install layout other than the two above

    return source_dir()


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"')
_PRAGMA_ONCE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b")


def expand_includes(text: str, name: str, include_dir: Path | None = None,
                    _seen: set[str] | None = None) -> str:
    """Inline the ``#include "..."`` files of ``text`` (each once), keeping file/line info with ``#line``.

    >>> print(expand_includes('int a;\\n', 'x.cu'))
    #line 1 "x.cu"
    int a;
    <BLANKLINE>
    """
    include_dir = include_dir or kernel_dir()
    seen = set() if _seen is None else _seen
    out = [f'#line 1 "{name}"']
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = _INCLUDE.match(line)
        if m:
            header = m.group(1)
            if header not in seen:
                seen.add(header)
                path = include_dir / header
                if not path.exists():
                    raise RuntimeError(f"{name}:{lineno}: included file {header!r} not found in {include_dir}")
                out.append(expand_includes(path.read_text(), header, include_dir, seen).rstrip("\n"))
            out.append(f'#line {lineno + 1} "{name}"')
        elif _PRAGMA_ONCE.match(line):
            out.append("")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


@cache
def _load_source_cached(name: str, mtime_ns: int) -> str:
    return expand_includes((kernel_dir() / name).read_text(), name)


def load_source(name: str) -> str:
    """The expanded text of ``cuda_kernels/<name>``.

    >>> '#line 1 "common.cuh"' in load_source("abs.cu")
    True
    """
    path = kernel_dir() / name
    if not path.exists():
        raise RuntimeError(f"kernel source {name!r} not found in {kernel_dir()}")
    stamp = max(p.stat().st_mtime_ns for p in kernel_dir().iterdir() if p.suffix in (".cu", ".cuh"))
    return _load_source_cached(name, stamp)


def source_digest(text: str) -> str:
    """A short stable hash of a source text (cache keys).

    >>> len(source_digest("x"))
    16
    """
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def nvrtc_options(arch: str | None = None) -> tuple[str, ...]:
    """NVRTC options used by the CUDA launcher (CuPy adds the arch itself) and the build test.

    >>> nvrtc_options("sm_90")
    ('-std=c++17', '--gpu-architecture=sm_90')
    """
    opts: tuple[str, ...] = ("-std=c++17",)
    if arch is not None:
        opts += (f"--gpu-architecture={arch}",)
    return opts


# ----------------------------------------------------------------------------------------------------------
# Packing helpers
# ----------------------------------------------------------------------------------------------------------
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


GEOMETRY_DTYPES = {1: _geometry_dtype(1), 2: _geometry_dtype(2)}
assert GEOMETRY_DTYPES[1].itemsize == 208 and GEOMETRY_DTYPES[2].itemsize == 272  # static_asserts in indexing.cuh

MM_SHAPE_DTYPE = np.dtype([
    ("m", np.int64), ("n", np.int64), ("k1", np.int64), ("k2", np.int64),
    ("a_stride", np.int64, (2,)), ("b_stride", np.int64, (2,)), ("c_stride", np.int64, (2,)),
    ("d_stride", np.int64, (2,)), ("out_stride", np.int64, (2,)),
    ("k_fast", np.int32), ("reserved", np.int32),
], align=True)
assert MM_SHAPE_DTYPE.itemsize == 120  # static_assert in mm_plus_mm.cu


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


# ----------------------------------------------------------------------------------------------------------
# Launches
# ----------------------------------------------------------------------------------------------------------
def pointwise_launch(op: str, out: Operand, inputs: Sequence[Operand], name_dtypes: Sequence[Any],
                     extra_args: Sequence[Any] = (), fastdiv: bool | None = None) -> KernelLaunch | None:
    """Choose the contiguous or strided variant of an elementwise kernel and pack its arguments.

    ``name_dtypes`` are the dtypes spelled in the kernel name (``abs_contig_f32``: ``[float32]``).
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
        return KernelLaunch(source, kernel_name(op, "contig", *name_dtypes), grid, block, 0,
                            (*pointers, *extra_args, np.int64(numel)))
    grid, block = pointwise_grid(numel)
    return KernelLaunch(source, kernel_name(op, "strided", *name_dtypes), grid, block, 0,
                        (*pointers, *extra_args, strided_geometry(shape, strides, fastdiv)))


def abs_launch(out: Operand, inp: Operand, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out = |inp|`` (same dtype and shape; validated by ``device_kernels.abs_``).

    >>> import numpy as np
    >>> x = Operand(4096, np.dtype("float64"), (8,), (2,))
    >>> abs_launch(x, x).kernel
    'abs_strided_f64'
    """
    return pointwise_launch("abs", out, [inp], [out.dtype], fastdiv=fastdiv)


def copy_launch(out: Operand, inp: Operand, *, fastdiv: bool | None = None) -> KernelLaunch | None:
    """``out[...] = inp`` converted to ``out.dtype``; broadcasting arrives as zero strides in ``inp``.

    >>> import numpy as np
    >>> o = Operand(4096, np.dtype("float32"), (3, 4), (4, 1))
    >>> i = Operand(8192, np.dtype("int64"), (3, 4), (0, 1))
    >>> copy_launch(o, i).kernel
    'copy_strided_f32_from_i64'
    """
    return pointwise_launch("copy", out, [inp], [out.dtype, inp.dtype], fastdiv=fastdiv)


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


def _k_fast(row_stride: int, col_stride: int, k_is_row: bool) -> bool:
    """Load the operand with consecutive threads along K when K is its smaller stride (coalescing)."""
    k_stride, other = (row_stride, col_stride) if k_is_row else (col_stride, row_stride)
    return abs(k_stride) < abs(other) or (abs(k_stride) == abs(other) and not k_is_row)


def mm_plus_mm_launch(a: Operand, b: Operand, c: Operand, d: Operand, out: Operand) -> KernelLaunch | None:
    """``out = a @ b + c @ d`` with a 64x64 output tile per 256-thread block (mm_plus_mm.cu).

    Shapes and dtypes are validated by ``device_kernels.mm_plus_mm``.

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
