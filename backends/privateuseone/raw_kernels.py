"""Where the device's ``abs``, ``copy_``, ``fill_`` and ``_mm_plus_mm`` get their raw CUDA kernels.

On the cuda driver they always run the kernels of ``cuda_kernels/`` through the CuPy launcher. On the
emulated driver they run the same kernels through the host launcher when ``OPENREG_EMULATE_KERNELS=1``,
and NumPy reference code otherwise. Dtypes a kernel does not cover (bfloat16, complex) use the array
module's own code on either driver.

>>> import numpy as np
>>> from openreg.backends.privateuseone import raw_kernels
>>> out = np.empty(3, np.float32)
>>> raw_kernels.abs_into(out, np.array([-1.0, 2.0, -3.0], np.float32)); out.tolist()
[1.0, 2.0, 3.0]
"""
from __future__ import annotations

import os
import threading

import numpy as np

from .driver_select import get_driver

_lock = threading.Lock()
_launchers: dict[str, object] = {}


def enabled() -> bool:
    """Whether raw kernels run (cuda driver: always; emulated: ``OPENREG_EMULATE_KERNELS=1``)."""
    return get_driver().name == "cuda" or os.environ.get("OPENREG_EMULATE_KERNELS", "") == "1"


def launcher():
    """The launcher of the current driver (created once): CuPy's on cuda, the host launcher otherwise."""
    name = get_driver().name
    lnch = _launchers.get(name)
    if lnch is None:
        with _lock:
            lnch = _launchers.get(name)
            if lnch is None:
                if name == "cuda":
                    from .cupy_launcher import CupyLauncher
                    lnch = CupyLauncher()
                else:
                    from .host_launcher import HostLauncher
                    lnch = HostLauncher()
                _launchers[name] = lnch
    return lnch


def _kernels():
    from . import device_kernels
    return device_kernels


def _dtypes(attr: str) -> tuple:
    from . import kernel_launch
    return getattr(kernel_launch, attr)


def _use(attr: str, *arrays) -> bool:
    if not enabled():
        return False
    supported = _dtypes(attr)
    return all(np.dtype(a.dtype) in supported for a in arrays)


def abs_into(out, inp) -> None:
    """``out[...] = |inp|`` (same shape and dtype)."""
    if _use("ABS_DTYPES", out, inp):
        _kernels().abs_(launcher(), out, inp)
    else:
        xp = get_driver().array_module if not isinstance(out, np.ndarray) else np
        xp.abs(inp, out=out)


def copy_into(out, inp) -> None:
    """``out[...] = inp`` with dtype conversion and broadcasting (``inp`` may be a broadcast view)."""
    if _use("COPY_DTYPES", out, inp):
        xp = np if isinstance(out, np.ndarray) else get_driver().array_module
        _kernels().copy_(launcher(), out, xp.broadcast_to(inp, out.shape))
    else:
        out[...] = inp


def fill_into(out, value) -> None:
    """``out[...] = value`` (a NumPy scalar already converted to ``out``'s dtype)."""
    if _use("FILL_DTYPES", out):
        _kernels().fill_(launcher(), out, value)
    else:
        out[...] = value


def mm_plus_mm_into(a, b, c, d, out) -> bool:
    """``out = a @ b + c @ d`` through the fused kernel; False when the kernel does not apply (dtype)."""
    if not _use("MM_DTYPES", a, b, c, d, out):
        return False
    _kernels().mm_plus_mm(launcher(), a, b, c, d, out)
    return True


__all__ = ["abs_into", "copy_into", "enabled", "fill_into", "launcher", "mm_plus_mm_into"]
