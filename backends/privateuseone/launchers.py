"""The two kernel launchers and what they share: operands, launches and the kernel sources.

A launcher runs a :class:`KernelLaunch` (built by ``kernels.py``) on arrays it describes as :class:`Operand`
(address of element 0, dtype, shape, element strides):

* :class:`HostLauncher` runs the .cu sources of ``cuda_kernels/`` on the CPU, compiled by the system C++
  compiler with ``-include host_emulation.h`` (CUDA threads as fibers, one block at a time per worker thread,
  ``__syncthreads`` as a checked barrier) into a shared library, together with a small generated glue file
  that exports, per kernel, ``openreg_launch_<name>(params, void** args, ...)``. Libraries are cached on disk
  by a hash of the source, the emulation header, the compiler and the flags, in ``$OPENREG_KERNEL_CACHE``
  (default ``~/.cache/openreg/kernels``), so they are built once; two processes racing on the same library
  each build to a private temporary name and atomically rename it into place. Loading a library runs its
  code, so the cache folder must be this user's and writable by nobody else (a missing one is created
  ``0700``), and so must each library in it; otherwise the launcher warns and builds into a private temporary
  folder, or rebuilds the library.
* :class:`CupyLauncher` (the ``cuda`` driver) compiles each source with NVRTC into one ``cupy.RawModule`` per
  (source, device); CuPy is imported inside its methods, so importing this module never needs CuPy or a GPU.
  For ``mm_plus_mm`` in float32/float64, shapes large enough for cuBLAS to win (see
  :data:`CUBLAS_CROSSOVER_FLOPS`) run as two GEMMs instead, the second accumulating into ``out`` with beta=1.

Sources reach both launchers with their local ``#include``s expanded (with ``#line`` markers), so NVRTC needs
no include path, CuPy's on-disk cache key covers the headers, and the host launcher hashes exactly what it
compiles.

>>> import numpy as np
>>> from openreg.backends.privateuseone import kernels
>>> launcher = HostLauncher()
>>> x = np.array([-1.5, 2.0, -3.0], dtype=np.float32)
>>> launcher.launch(kernels.abs_launch(launcher.operand(x), launcher.operand(x)))
>>> x.tolist(), launcher.launch_counts["abs_contig_f32"]
([1.5, 2.0, 3.0], 1)
>>> CupyLauncher().name   # no CuPy needed until the first launch
'cuda'
"""
from __future__ import annotations

import atexit
import collections
import ctypes
import functools
import hashlib
import math
import os
import platform
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# ----------------------------------------------------------------------------------------------------------
# Operands and launches
# ----------------------------------------------------------------------------------------------------------
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
ALL_DTYPES: tuple[np.dtype, ...] = tuple(DTYPE_SUFFIX)   # the dtypes of the X-macro lists
# bfloat16 has no NumPy dtype: its words travel as uint16 (openreg's only uint16 arrays), named "bf16".
BF16_WORDS = np.dtype(np.uint16)
DTYPE_SUFFIX[BF16_WORDS] = "bf16"


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
                           f"(supported: {', '.join(str(d) for d in ALL_DTYPES)}, and uint16 bfloat16 words)")
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



# ----------------------------------------------------------------------------------------------------------
# Sources: the .cu text with local #includes expanded
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


@functools.cache
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
# The host launcher: the kernels compiled for the CPU
# ----------------------------------------------------------------------------------------------------------
EMULATION_HEADER = "host_emulation.h"
# -fvisibility=hidden: only the generated glue is exported.  Without it, inline functions' statics and the
# thread_local threadIdx & co. become process-wide (STB_GNU_UNIQUE) symbols shared between kernel libraries.
CXX_FLAGS = ("-O2", "-std=c++17", "-fPIC", "-shared", "-pthread", "-fno-strict-aliasing", "-fvisibility=hidden",
             "-fvisibility-inlines-hidden")
_GLUE_VERSION = "1"  # bump when the generated glue changes shape

_modules: dict[str, HostModule] = {}
_build_locks: dict[str, threading.Lock] = {}
_modules_lock = threading.Lock()


class _LaunchParams(ctypes.Structure):
    """Mirror of ``openreg_emu::LaunchParams`` in host_emulation.h."""

    _fields_ = [
        ("grid", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("shared_mem", ctypes.c_uint64),
        ("use_fibers", ctypes.c_int32),
        ("workers", ctypes.c_int32),
    ]


def find_compiler() -> list[str]:
    """The C++ compiler command: ``$CXX`` if set, else the first of g++, clang++, c++ on ``PATH``.

    Raises ``RuntimeError`` when there is none.

    >>> isinstance(find_compiler(), list)
    True
    """
    env = os.environ.get("CXX")
    if env:
        cmd = shlex.split(env)
        if cmd and shutil.which(cmd[0]):
            return cmd
        raise RuntimeError(f"host launcher: $CXX={env!r} is not an executable compiler")
    for name in ("g++", "clang++", "c++"):
        path = shutil.which(name)
        if path:
            return [path]
    raise RuntimeError("host launcher: no C++ compiler found (looked for $CXX, g++, clang++, c++). The host "
                       "launcher compiles the CUDA kernel sources for the CPU; install one (e.g. "
                       "`apt-get install g++`) or set CXX.")


@functools.cache
def _compiler_identity(cmd: tuple[str, ...]) -> str:
    try:
        out = subprocess.run([*cmd, "--version"], check=False, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise RuntimeError(f"host launcher: could not run the C++ compiler {cmd[0]!r}: {exc}") from exc
    return out.splitlines()[0] if out else cmd[0]


def default_cache_dir() -> Path:
    """``$OPENREG_KERNEL_CACHE`` or ``~/.cache/openreg/kernels``."""
    env = os.environ.get("OPENREG_KERNEL_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "openreg" / "kernels"


def default_workers() -> int:
    """Worker threads per launch: ``$OPENREG_HOST_LAUNCHER_THREADS`` or the CPUs this process may use."""
    env = os.environ.get("OPENREG_HOST_LAUNCHER_THREADS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def uses_barrier(text: str) -> bool:
    """Whether a source calls ``__syncthreads`` (comments ignored): its kernels then need fibers.

    >>> uses_barrier("// __syncthreads() here is only a comment")
    False
    """
    return re.search(r"\b__syncthreads\b", _COMMENTS.sub("", text)) is not None


class HostModule:
    """A compiled kernel library: ``launch(kernel, grid, block, shared_mem, args)``."""

    def __init__(self, path: Path, name: str):
        self.path = path
        self.name = name
        self._lib = ctypes.CDLL(str(path))
        self._lib.openreg_module_kernels.restype = ctypes.c_char_p
        self.kernels: tuple[str, ...] = tuple(self._lib.openreg_module_kernels().decode().split())
        self.uses_fibers = bool(self._lib.openreg_module_uses_barrier())
        self._entries: dict[str, tuple[Any, tuple[int, ...]]] = {}

    def _entry(self, kernel: str) -> tuple[Any, tuple[int, ...]]:
        entry = self._entries.get(kernel)
        if entry is None:
            if kernel not in self.kernels:
                raise RuntimeError(f"host launcher: no kernel {kernel!r} in {self.name} "
                                   f"(it has {len(self.kernels)} kernels, e.g. {', '.join(self.kernels[:4])})")
            fn = getattr(self._lib, f"openreg_launch_{kernel}")
            fn.argtypes = [ctypes.POINTER(_LaunchParams), ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                           ctypes.c_size_t]
            fn.restype = ctypes.c_int
            sig = getattr(self._lib, f"openreg_signature_{kernel}")
            sig.restype = ctypes.c_char_p
            sizes = tuple(int(s) for s in sig().decode().split(",") if s)
            entry = self._entries[kernel] = (fn, sizes)
        return entry

    def launch(self, kernel: str, grid: Sequence[int], block: Sequence[int], shared_mem: int,
               args: Sequence[Any], workers: int | None = None) -> None:
        """Run ``kernel`` over ``grid`` x ``block``; ``args`` are packed as by ``kernels.py``."""
        fn, sizes = self._entry(kernel)
        packed = [np.ascontiguousarray(np.asarray(a)) for a in args]
        if len(packed) != len(sizes) or any(p.nbytes != s for p, s in zip(packed, sizes)):
            got = [p.nbytes for p in packed]
            raise RuntimeError(f"host launcher: kernel {kernel!r} takes parameters of {list(sizes)} bytes, "
                               f"got arguments of {got} bytes")
        argv = (ctypes.c_void_p * max(1, len(packed)))(*[p.ctypes.data for p in packed])
        grid3 = tuple(grid) + (1,) * (3 - len(grid))
        block3 = tuple(block) + (1,) * (3 - len(block))
        params = _LaunchParams((ctypes.c_uint32 * 3)(*grid3), (ctypes.c_uint32 * 3)(*block3), shared_mem,
                               int(self.uses_fibers), workers or default_workers())
        err = ctypes.create_string_buffer(4096)
        rc = fn(ctypes.byref(params), argv, err, len(err))  # ctypes releases the GIL for the call
        if rc != 0:
            raise RuntimeError(f"host launcher: kernel {kernel!r} failed: {err.value.decode(errors='replace')}")


class HostLauncher:
    """Launches kernels on the CPU through :class:`HostModule`; counts launches per kernel name.

    >>> launcher = HostLauncher(workers=2)
    >>> launcher.name, dict(launcher.launch_counts)
    ('host', {})
    """

    name = "host"

    def __init__(self, *, workers: int | None = None, cache_dir: str | os.PathLike | None = None,
                 defines: Sequence[str] = ()):
        self.workers = workers
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.defines = tuple(defines)
        self.launch_counts: collections.Counter[str] = collections.Counter()
        self._by_source: dict[str, HostModule] = {}  # source file -> module, so a launch costs no hashing

    # -- arrays ---------------------------------------------------------------------------------------------
    def operand(self, array: Any, *, what: str = "array", writable: bool = False) -> Operand:
        """Describe a host array (anything with ``__array_interface__``, e.g. a NumPy view) for a launch.

        >>> import numpy as np
        >>> HostLauncher().operand(np.zeros((2, 3), np.int32)[:, ::2]).strides
        (3, 2)
        """
        iface = getattr(array, "__array_interface__", None)
        if iface is None:
            where = "device (CUDA) memory" if hasattr(array, "__cuda_array_interface__") else type(array).__name__
            raise RuntimeError(f"{what}: the host launcher needs a host array (NumPy), got {where}")
        ptr, dtype, shape, strides = read_array_interface(iface, what=what, writable=writable)
        return make_operand(ptr, dtype, shape, strides, what=what)

    # -- modules --------------------------------------------------------------------------------------------
    def module(self, source: str) -> HostModule:
        """The compiled library for ``cuda_kernels/<source>`` (built or loaded once per process)."""
        module = self._by_source.get(source)
        if module is None:
            module = self._by_source[source] = self.build(load_source(source), source)
        return module

    def compile(self, text: str, name: str = "inline.cu") -> HostModule:
        """Compile kernel source text (its ``#include "..."`` resolved against cuda_kernels/).

        Tests use it for small kernels of their own, e.g. the barrier-divergence check.
        """
        return self.build(expand_includes(text, name), name)

    def build(self, text: str, name: str) -> HostModule:
        """Compile already-expanded source text into a cached library and load it."""
        cxx = find_compiler()
        header = kernel_dir() / EMULATION_HEADER
        flags = (*CXX_FLAGS, *(f"-D{d}" for d in self.defines))
        key_material = "\0".join([_GLUE_VERSION, text, header.read_text(), _compiler_identity(tuple(cxx)),
                                  " ".join(cxx), " ".join(flags), platform.machine()])
        digest = source_digest(key_material)
        with _modules_lock:
            lock = _build_locks.setdefault(digest, threading.Lock())
        with lock:  # one build per library; different libraries build in parallel
            mod = _modules.get(digest)
            if mod is None:
                cache = self.cache_dir or default_cache_dir()
                stem = re.sub(r"[^A-Za-z0-9_]+", "_", Path(name).stem)
                path = _cache_path(cache) / f"{stem}-{digest}.so"
                if not _trusted_library(path):     # missing, or not ours alone: build our own over it
                    _compile_library(cxx, flags, header, text, name, path)
                try:
                    mod = HostModule(path, name)
                except OSError:  # unloadable leftover (another machine, truncated by a crash): rebuild it
                    _compile_library(cxx, flags, header, text, name, path)
                    mod = HostModule(path, name)
                _modules[digest] = mod
        return mod

    # -- launches -------------------------------------------------------------------------------------------
    def launch(self, launch: KernelLaunch, device: int | None = None) -> None:
        """Run one :class:`~KernelLaunch` (``device`` is ignored: host memory is flat)."""
        module = self.module(launch.source)
        module.launch(launch.kernel, launch.grid, launch.block, launch.shared_mem, launch.args, self.workers)
        self.launch_counts[launch.kernel] += 1

    def prefers_blas(self, dtype: Any, m: int, n: int, k1: int, k2: int) -> bool:
        """The host launcher always runs the fused kernel (there is no cuBLAS on the CPU)."""
        return False

    def gemm_plus_gemm(self, a: Any, b: Any, c: Any, d: Any, out: Any) -> None:
        raise NotImplementedError("the host launcher has no BLAS path for mm_plus_mm; it runs the fused kernel")


def _cache_path(cache: Path) -> Path:
    """``cache`` when this user owns it and nobody else can write to it (created ``0700`` when missing);
    otherwise a fresh private temporary folder for this process, with a warning. Loading a library from a
    folder others can write would run their code."""
    problem = unsafe_cache_reason(cache)
    if problem is None:
        return cache
    global _private_cache
    with _modules_lock:
        if _private_cache is None:
            _private_cache = Path(tempfile.mkdtemp(prefix="openreg-kernels-"))   # 0700, ours, empty
            atexit.register(shutil.rmtree, _private_cache, True)
            warnings.warn(f"openreg host launcher: not using the kernel cache {cache} ({problem}); compiling into "
                          f"the private temporary folder {_private_cache} instead. Set OPENREG_KERNEL_CACHE to a "
                          f"folder only you can write.", RuntimeWarning, stacklevel=3)
        return _private_cache


_private_cache: Path | None = None


def unsafe_cache_reason(folder: Path) -> str | None:
    """Why ``folder`` must not hold libraries we load (None when it may): it must be a directory (not a
    symlink) owned by this user that group and others cannot write. A missing folder is created ``0700``.

    >>> import tempfile
    >>> unsafe_cache_reason(Path(tempfile.mkdtemp())) is None
    True
    """
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
    except OSError as exc:
        return f"cannot create it: {exc}"
    return _unsafe_file_reason(st, directory=True) or (None if os.access(folder, os.W_OK | os.X_OK)
                                                        else "not writable")


def _unsafe_file_reason(st: os.stat_result, *, directory: bool) -> str | None:
    if directory and not stat.S_ISDIR(st.st_mode):
        return "a symlink" if stat.S_ISLNK(st.st_mode) else "not a directory"
    if not directory and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_uid != os.getuid():
        return f"owned by uid {st.st_uid}, not by this user (uid {os.getuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _trusted_library(path: Path) -> bool:
    """Whether ``path`` is a library file of this user that nobody else can write."""
    try:
        return _unsafe_file_reason(os.lstat(path), directory=False) is None
    except OSError:
        return False


_KERNEL_DECL = re.compile(r"__openreg_global__\s+void\s+(\w+)\s*\(")


def _compile_library(cxx: list[str], flags: Sequence[str], header: Path, text: str, name: str, path: Path) -> None:
    """Build ``path`` from ``text``: find the kernels (a preprocessing pass), append the glue, compile to a
    private temporary file and rename it into place (atomic, so racing processes are safe)."""
    tmp_dir = Path(tempfile.mkdtemp(prefix="build-", dir=path.parent))
    try:
        src = tmp_dir / (Path(name).stem + ".cpp")
        src.write_text(text)
        scan = subprocess.run([*cxx, "-E", "-P", "-std=c++17", "-DOPENREG_SCAN_KERNELS", "-include", str(header),
                               "-x", "c++", str(src)], check=False, capture_output=True, text=True, encoding="utf-8", errors="replace")
        if scan.returncode != 0:
            raise RuntimeError(f"host launcher: preprocessing {name} failed:\n{scan.stderr[-8000:]}")
        kernels = sorted(set(_KERNEL_DECL.findall(scan.stdout)))
        glue = [text, "", "// ---- generated by launchers.py ----"]
        glue.append('extern "C" __attribute__((visibility("default"))) const char* openreg_module_kernels() '
                    f'{{ return "{" ".join(kernels)}"; }}')
        glue.append('extern "C" __attribute__((visibility("default"))) int openreg_module_uses_barrier() '
                    f"{{ return {int(uses_barrier(text))}; }}")
        for k in kernels:
            glue.append(f'extern "C" __attribute__((visibility("default"))) int openreg_launch_{k}('
                        "const openreg_emu::LaunchParams* p, void** args, char* err, size_t errlen) "
                        f'{{ return openreg_emu::launch("{k}", &{k}, p, args, err, errlen); }}')
            glue.append(f'extern "C" __attribute__((visibility("default"))) const char* openreg_signature_{k}() '
                        f"{{ return openreg_emu::signature(&{k}); }}")
        src.write_text("\n".join(glue) + "\n")
        tmp_so = tmp_dir / "module.so"
        cmd = [*cxx, *flags, "-include", str(header), "-x", "c++", str(src), "-o", str(tmp_so)]
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, encoding="utf-8", errors="replace")
        if proc.returncode != 0:
            raise RuntimeError(f"host launcher: compiling {name} failed ({shlex.join(cmd)}):\n"
                               f"{proc.stderr[-12000:]}")
        os.chmod(tmp_so, 0o755)     # whatever the umask: only we may write a library we will load
        os.replace(tmp_so, path)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)


# ----------------------------------------------------------------------------------------------------------
# The CUDA launcher: the kernels compiled by NVRTC and run through CuPy
# ----------------------------------------------------------------------------------------------------------

# Work (2*M*N*(K1+K2) FLOPs) above which two cuBLAS GEMMs beat the fused kernel, float32/float64 only.
# Reasoning for an H100 SXM (67 TFLOP/s FP32), to be replaced by a measurement from ci/gpu-check:
#   * the fused kernel (64x64x16 SIMT tiles, 4x4 register blocking, no cp.async, no tensor cores) should
#     reach ~45% of FP32 peak once it has >= 132 tiles; cuBLAS ~88% on large shapes (more with TF32);
#   * fusing saves one launch (~3 us each, ~6 us for the pair including the gap) and a read-modify-write of
#     out (2*M*N*itemsize bytes at 3.35 TB/s -- small next to the launches for these shapes).
#   Break-even: F/(0.45 P) = F/(0.88 P) + 6 us  =>  F = 6e-6 * 67e12 / (1/0.45 - 1/0.88) ~= 3.7e8 FLOPs.
# A FLOP bound (not a size bound) also sends skinny outputs with long K (few tiles: the fused kernel would
# leave most SMs idle, cuBLAS splits K) to cuBLAS.  float16 always stays fused: cupy.cublas.gemm has no
# half path, and the fused kernel accumulates in float32 and rounds once.
CUBLAS_CROSSOVER_FLOPS = 4e8
CUBLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _cupy() -> Any:
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise RuntimeError("the CUDA kernel launcher needs CuPy (pip install 'openreg[cuda12]')") from exc
    return cupy


class CupyLauncher:
    """Kernel launcher for the ``cuda`` driver; counts launches per kernel name (``launch_counts``)."""

    name = "cuda"

    def __init__(self) -> None:
        self.launch_counts: collections.Counter[str] = collections.Counter()
        self._modules: dict[tuple[str, int], Any] = {}
        self._functions: dict[tuple[str, int, str], Any] = {}
        self._lock = threading.Lock()

    # -- arrays ---------------------------------------------------------------------------------------------
    def operand(self, array: Any, *, what: str = "array", writable: bool = False) -> Operand:
        """Describe a CuPy array (or anything with ``__cuda_array_interface__``) for a launch."""
        iface = getattr(array, "__cuda_array_interface__", None)
        if iface is None:
            where = "host memory (NumPy)" if hasattr(array, "__array_interface__") else type(array).__name__
            raise RuntimeError(f"{what}: the CUDA launcher needs a device array (CuPy), got {where}")
        ptr, dtype, shape, strides = read_array_interface(iface, what=what, writable=writable)
        device = getattr(getattr(array, "device", None), "id", None)
        if device is None:
            device = _cupy().cuda.runtime.pointerGetAttributes(ptr).device if ptr else 0
        return make_operand(ptr, dtype, shape, strides, device=int(device), what=what)

    # -- modules --------------------------------------------------------------------------------------------
    def _module(self, source: str, device: int) -> Any:
        key = (source, device)
        module = self._modules.get(key)
        if module is None:
            cupy = _cupy()
            with self._lock, cupy.cuda.Device(device):
                module = self._modules.get(key)
                if module is None:
                    text = load_source(source)
                    module = cupy.RawModule(code=text, options=nvrtc_options())
                    self._modules[key] = module
        return module

    def function(self, source: str, kernel: str, device: int) -> Any:
        """The compiled ``cupy.RawKernel`` (compiles the module on first use; NVRTC's log on failure)."""
        key = (source, device, kernel)
        fn = self._functions.get(key)
        if fn is None:
            cupy = _cupy()
            try:
                with cupy.cuda.Device(device):
                    fn = self._module(source, device).get_function(kernel)
            except cupy.cuda.compiler.CompileException as exc:
                raise RuntimeError(f"NVRTC failed to compile {source} for device {device}:\n{exc}") from exc
            self._functions[key] = fn
        return fn

    # -- launches -------------------------------------------------------------------------------------------
    def launch(self, launch: KernelLaunch, device: int | None = None) -> None:
        """Run one launch on ``device`` (default: the current CuPy device) on its current stream."""
        cupy = _cupy()
        dev = cupy.cuda.Device(device) if device is not None else cupy.cuda.Device()
        with dev:
            fn = self.function(launch.source, launch.kernel, dev.id)
            fn(launch.grid, launch.block, launch.args, shared_mem=launch.shared_mem)
        self.launch_counts[launch.kernel] += 1

    def prefers_blas(self, dtype: Any, m: int, n: int, k1: int, k2: int) -> bool:
        """Whether ``mm_plus_mm`` of this size should run as two cuBLAS GEMMs (see the constant above)."""
        if np.dtype(dtype) not in CUBLAS_DTYPES or min(m, n, k1, k2) < 1:
            return False
        return 2.0 * m * n * (k1 + k2) >= CUBLAS_CROSSOVER_FLOPS

    def gemm_plus_gemm(self, a: Any, b: Any, c: Any, d: Any, out: Any) -> None:
        """``out = a @ b`` (beta=0) then ``out += c @ d`` (beta=1), both by cuBLAS through CuPy."""
        cupy = _cupy()
        from cupy import cublas

        with cupy.cuda.Device(out.device.id):
            cublas.gemm("N", "N", a, b, out=out, alpha=1.0, beta=0.0)
            cublas.gemm("N", "N", c, d, out=out, alpha=1.0, beta=1.0)
        self.launch_counts["cublas_gemm"] += 2
