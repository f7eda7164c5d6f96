"""The device's random kernels: Philox words from ``cuda_kernels/philox.cu`` or from ``philox.py``.

``device_draw`` is the device generator's ``draw`` for the sampling kernels of ``operators/random.py``:
on the cuda driver (and on the emulated driver with ``OPENREG_EMULATE_KERNELS=1``) it launches the raw
Philox kernel through the launcher of the driver (CuPy, or the host launcher running the same .cu on the
CPU); otherwise it computes the same words with the NumPy reference. Both give bit-identical words, uniforms
and (up to libm rounding) normals for a ``(seed, offset)`` pair, so the emulated device reproduces a GPU's
random streams.

The launch configuration of the Philox kernels lives here (``philox_launch``, ``block_launch``).

>>> import numpy as np
>>> from openreg.backends.privateuseone.kernel_launch import Operand
>>> out = Operand(4096, np.dtype("float32"), (1000,), (1,))
>>> launch = philox_launch("f32", out, seed=1, offset=8, n=1000)
>>> launch.kernel, launch.grid, int(launch.args[2])
('philox_uniform_f32', (1, 1, 1), 8)
"""
from __future__ import annotations

import numpy as np
from openreg.backends.cpu.kernels_random import numpy_values, words_for

from . import raw_kernels
from .driver_select import get_driver

SOURCE = "philox.cu"
KERNELS = {"u32": "philox_u32", "f32": "philox_uniform_f32", "f64": "philox_uniform_f64",
           "normal_f32": "philox_normal_f32", "normal_f64": "philox_normal_f64"}
DTYPES = {"u32": np.dtype(np.uint32), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
          "normal_f32": np.dtype(np.float32), "normal_f64": np.dtype(np.float64)}
# The launchers describe operands in the kernels' dtype list, which has no uint32: words travel as int32 views.
_WORDS = np.dtype(np.int32)


def _operand_dtype(dtype: np.dtype) -> np.dtype:
    return _WORDS if dtype == np.dtype(np.uint32) else dtype


def _as_operand(launcher, array, what: str, writable: bool = False):
    if array.dtype == np.dtype(np.uint32):
        array = array.view(_WORDS)
    return launcher.operand(array, what=what, writable=writable)


def all_kernel_names() -> list[str]:
    """Every kernel of philox.cu (the build test and the kernel report use it)."""
    return ["philox_block", *KERNELS.values()]


def philox_launch(kind: str, out, seed: int, offset: int, n: int):
    """Fill the contiguous ``out`` with ``n`` values of ``kind`` from stream words ``offset ..`` of ``seed``.

    One work item per Philox block (four words): ``f64`` makes two values per block, the others four.
    ``offset`` must be a multiple of 4 (generators always hand out whole blocks).
    """
    from . import kernel_launch
    if kind not in KERNELS:
        raise ValueError(f"unknown Philox kernel kind {kind!r}")
    if offset % 4:
        raise ValueError(f"philox: offset {offset} is not a multiple of 4")
    if out.dtype != _operand_dtype(DTYPES[kind]) or out.numel < n or (n > 1 and out.strides[-1:] != (1,)) or len(out.shape) != 1:
        raise RuntimeError(f"philox: output must be a contiguous 1-d {DTYPES[kind]} array of at least {n} "
                           f"elements, got {out.dtype} {out.shape} strides {out.strides}")
    if n == 0:
        return None
    items = -(-n // 2) if kind == "f64" else -(-n // 4)
    grid, block = kernel_launch.pointwise_grid(items)
    args = (kernel_launch.pack_pointer(out.ptr), np.uint64(seed % 2 ** 64), np.uint64(offset % 2 ** 64),
            np.int64(n))
    return kernel_launch.KernelLaunch(SOURCE, KERNELS[kind], grid, block, 0, args)


def block_launch(out, inp, n: int):
    """Raw Philox4x32-10 of ``n`` (counter, key) rows: ``inp`` is ``n x 6`` words, ``out`` ``n x 4`` (uint32
    arrays described as int32 operands, see :func:`operand`)."""
    from . import kernel_launch
    if out.dtype != _WORDS or inp.dtype != _WORDS or out.numel != 4 * n or inp.numel != 6 * n:
        raise RuntimeError(f"philox_block: expected uint32 arrays of {6 * n} and {4 * n} elements")
    if n == 0:
        return None
    grid, block = kernel_launch.pointwise_grid(n)
    return kernel_launch.KernelLaunch(SOURCE, "philox_block", grid, block, 0,
                        (kernel_launch.pack_pointer(out.ptr), kernel_launch.pack_pointer(inp.ptr), np.int64(n)))


def operand(launcher, array, what: str = "array", writable: bool = False):
    """The launcher's operand for ``array``; uint32 word arrays are described as int32 (same bytes)."""
    return _as_operand(launcher, array, what, writable)


def kernel_values(launcher, kind: str, seed: int, offset: int, n: int, xp=np, device: int | None = None):
    """``n`` values of ``kind`` computed by the raw kernel through ``launcher`` (arrays of ``xp``)."""
    out = xp.empty(n, dtype=DTYPES[kind])
    launch = philox_launch(kind, _as_operand(launcher, out, "philox output", writable=True), seed, offset, n)
    if launch is not None:
        launcher.launch(launch, device)
    return out


def device_draw(impl, kind: str, n: int, index: int = 0):
    """The device's ``draw``: reserve the words on the generator, then compute them (kernel or NumPy)."""
    seed, offset = impl.reserve(words_for(kind, n))
    if raw_kernels.enabled():
        return kernel_values(raw_kernels.launcher(), kind, seed, offset, n, get_driver().array_module, index)
    return numpy_values(kind, seed, offset, n)


__all__ = ["all_kernel_names", "block_launch", "device_draw", "kernel_values", "operand", "philox_launch"]
