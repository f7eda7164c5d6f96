"""The CPU generator's random stream: Philox words, uniforms and normals computed with NumPy (``openreg/philox.py``).

``cpu_draw(impl, kind, n)`` is ``PhiloxGeneratorImpl.draw`` of CPU generators: it reserves the words on the
generator and returns ``n`` values of ``kind`` (``"u32"``, ``"f32"``/``"f64"`` uniform in [0, 1),
``"normal_f32"``/``"normal_f64"``). The sampling kernels that turn these into distributions are in
``openreg/operators/random.py``; the device's generator draws the same values with its Philox kernel.

>>> from openreg.generator import PhiloxGeneratorImpl
>>> from openreg.devices import CPU
>>> cpu_draw(PhiloxGeneratorImpl(CPU, 0), "f64", 3).shape
(3,)
"""
from __future__ import annotations

import numpy as np

from openreg import philox


def cpu_draw(impl, kind: str, n: int, index: int = 0) -> np.ndarray:
    """The CPU's ``draw``: the NumPy Philox reference.

    >>> from openreg.generator import PhiloxGeneratorImpl
    >>> from openreg.devices import CPU
    >>> cpu_draw(PhiloxGeneratorImpl(CPU, 0), "u32", 4).tolist() == philox.uint32_stream(0, 0, 4).tolist()
    True
    """
    seed, offset = impl.reserve(philox.words_used(_WORDS[kind], n))
    return numpy_values(kind, seed, offset, n)


_WORDS = {"u32": "u32", "f32": "f32", "f64": "f64", "normal_f32": "normal", "normal_f64": "normal"}


def words_for(kind: str, n: int) -> int:
    """Stream words a draw of ``n`` values of ``kind`` consumes (before rounding to whole blocks)."""
    return philox.words_used(_WORDS[kind], n)


def numpy_values(kind: str, seed: int, offset: int, n: int) -> np.ndarray:
    """``n`` values of ``kind`` at ``(seed, offset)`` computed by the NumPy reference."""
    if kind == "u32":
        return philox.uint32_stream(seed, offset, n)
    if kind == "f32":
        return philox.uniform_f32(seed, offset, n)
    if kind == "f64":
        return philox.uniform_f64(seed, offset, n)
    if kind == "normal_f32":
        return philox.normal_f64(seed, offset, n).astype(np.float32)
    if kind == "normal_f64":
        return philox.normal_f64(seed, offset, n)
    raise ValueError(f"unknown draw kind {kind!r}")



__all__ = ["cpu_draw", "numpy_values", "words_for"]
