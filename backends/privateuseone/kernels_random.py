"""The device's random stream: Philox words from ``cuda_kernels/philox.cu`` or from ``openreg/philox.py``.

``device_draw`` is the device generator's ``draw`` for the sampling kernels of ``operators/random.py``:
on the cuda driver (and on the emulated driver with ``OPENREG_EMULATE_KERNELS=1``) it launches the raw
Philox kernel through the launcher of the driver (CuPy, or the host launcher running the same .cu on the
CPU); otherwise it computes the same words with the NumPy reference. Both give bit-identical words, uniforms
and (up to libm rounding) normals for a ``(seed, offset)`` pair, so the emulated device reproduces a GPU's
random streams. The Philox kernels' launch configuration is in ``kernels.py``.

>>> from openreg.generator import PhiloxGeneratorImpl
>>> from openreg.devices import device
>>> impl = PhiloxGeneratorImpl(device("privateuseone", 0), 5)
>>> device_draw(impl, "u32", 3).tolist() == numpy_values("u32", 5, 0, 3).tolist()
True
"""
from __future__ import annotations

from openreg.backends.cpu.kernels_random import numpy_values, words_for

from . import kernels
from .driver_select import get_driver


def device_draw(impl, kind: str, n: int, index: int = 0):
    """The device's ``draw``: reserve the words on the generator, then compute them (kernel or NumPy)."""
    seed, offset = impl.reserve(words_for(kind, n))
    if kernels.enabled():
        return kernels.philox_values(kernels.launcher(), kind, seed, offset, n, get_driver().array_module, index)
    return numpy_values(kind, seed, offset, n)


__all__ = ["device_draw"]
