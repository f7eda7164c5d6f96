"""Intra-op threads: the pool that splits large elementwise and reduction kernels, and the BLAS thread count.

One number, PyTorch's ``set_num_threads``/``get_num_threads``, sizes both: the pool (the calling thread plus
``n - 1`` workers; NumPy releases the GIL inside ufuncs and reductions, so the pieces run on ``n`` cores) and
OpenBLAS's threads for the GEMMs. The default is ``OMP_NUM_THREADS`` when set, else the cores this process
may run on. The two never oversubscribe the cores: a kernel runs either pool work or a BLAS call, never both at
once, and the pool is idle (blocked, not spinning) while BLAS runs. Pool work is one parallel region at a time;
a call made while the pool is busy (another Python thread, or from inside a piece) runs on its own thread.

>>> import openreg
>>> n = openreg.get_num_threads()
>>> openreg.set_num_threads(1); openreg.get_num_threads()
1
>>> openreg.set_num_threads(n)
"""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._quiet import quiet

# Below this many elements per piece a kernel stays on one thread: handing work to a Python thread costs
# tens of microseconds, which a piece must outweigh (PyTorch's grain size is 32768 elements).
GRAIN = 1 << 16

_lock = threading.Lock()          # guards the pool's (re)creation
_busy = threading.Lock()          # held while a parallel region runs
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def _default_threads() -> int:
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


_num_threads = _default_threads()


def _openblas_setters() -> list:
    """``set_num_threads`` functions of the OpenBLAS libraries loaded in this process (NumPy's wheel bundles
    scipy-openblas with its own symbol names)."""
    found = []
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line}
    except OSError:
        return found
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads",
                     "openblas_set_num_threads64_"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes, fn.restype = [ctypes.c_int], None
                found.append(fn)
                break
    return found


def set_num_threads(n: int) -> None:
    """Use ``n`` threads for intra-op parallelism: the pool of large elementwise/reduction kernels and BLAS.

    >>> import openreg
    >>> old = openreg.get_num_threads()
    >>> openreg.set_num_threads(2); openreg.get_num_threads()
    2
    >>> openreg.set_num_threads(old)
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"set_num_threads(): argument 'int' must be int, not {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("Number of threads must be positive")
    global _num_threads
    with _lock:
        _num_threads = n
        for setter in _openblas_setters():
            setter(n)


def get_num_threads() -> int:
    """The number of threads used for intra-op parallelism (``set_num_threads``).

    >>> import openreg
    >>> openreg.get_num_threads() >= 1
    True
    """
    return _num_threads


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size != workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="openreg-intra-op")
            _pool_size = workers
        return _pool


def pieces(numel: int, length: int) -> int:
    """How many pieces to split work of ``numel`` elements along a dimension of ``length`` into (1: don't).

    >>> pieces(100, 10)
    1
    """
    n = min(_num_threads, length, numel // GRAIN)
    return max(1, n)


def bounds(length: int, n: int) -> list[tuple[int, int]]:
    """``n`` contiguous ``(start, stop)`` ranges covering ``range(length)``, as equal as possible.

    >>> bounds(10, 3)
    [(0, 4), (4, 7), (7, 10)]
    """
    step, extra = divmod(length, n)
    out, start = [], 0
    for i in range(n):
        stop = start + step + (i < extra)
        out.append((start, stop))
        start = stop
    return out


def run(fn, items: list) -> list:
    """``[fn(item) for item in items]``, the items spread over the pool (the caller runs the first one).

    The pieces see the caller's dispatch state (thread-local keys) and run with grad mode off, as kernels below
    autograd do. The first exception raised by any piece is raised here, after every piece has finished. Runs
    everything on the calling thread when the pool is busy.

    >>> run(lambda x: x * x, [1, 2, 3])
    [1, 4, 9]
    """
    if len(items) <= 1 or _num_threads <= 1 or not _busy.acquire(blocking=False):
        return [fn(item) for item in items]
    try:
        from ._dispatch import tls
        include, exclude = tls.state.include, tls.state.exclude

        def piece(item):
            from .autograd import grad_mode
            tls.state.include, tls.state.exclude = include, exclude
            with grad_mode.no_grad(), quiet():     # a new thread starts in NumPy's default (warning) state
                return fn(item)
        futures = [_executor(_num_threads - 1).submit(piece, item) for item in items[1:]]
        first = error = None
        try:
            first = fn(items[0])
        except BaseException as exc:  # noqa: BLE001 - re-raised below once the workers are done
            error = exc
        results = [first]
        for future in futures:
            try:
                results.append(future.result())
            except BaseException as exc:  # noqa: BLE001
                error = error or exc
        if error is not None:
            raise error
        return results
    finally:
        _busy.release()


def reduce(fn, arr, axes, keepdims: bool):
    """``fn(arr)`` for a reduction of the NumPy array ``arr`` over ``axes`` (``fn`` keeps or drops them as
    ``keepdims`` says), split along the outermost kept axis longer than 1 when ``arr`` is large. Every result
    element is reduced exactly as in one call. A reduction over every axis stays in one piece.

    >>> import numpy as np
    >>> reduce(lambda a: a.sum(axis=1), np.ones((4, 3)), (1,), False).tolist()
    [3.0, 3.0, 3.0, 3.0]
    """
    if _num_threads <= 1 or arr.size < 2 * GRAIN or type(arr) is not np.ndarray:
        return fn(arr)
    axes = range(arr.ndim) if axes is None else axes
    dim = next((d for d in range(arr.ndim) if d not in axes and arr.shape[d] > 1), None)
    n = 1 if dim is None else pieces(arr.size, arr.shape[dim])
    if n == 1:
        return fn(arr)
    out_dim = dim if keepdims else dim - sum(1 for a in axes if a < dim)
    head = (slice(None),) * dim
    parts = run(lambda b: fn(arr[head + (slice(*b),)]), bounds(arr.shape[dim], n))
    return np.concatenate(parts, axis=out_dim)


__all__ = ["GRAIN", "bounds", "get_num_threads", "pieces", "reduce", "run", "set_num_threads"]
