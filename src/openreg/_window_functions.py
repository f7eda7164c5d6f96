"""Spectral windows as ``torch.*_window`` factories: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, with PyTorch's signatures (``periodic=True`` computes a window of
``window_length + 1`` and drops its last value, as used before an FFT), dtypes (floating only, the default
dtype unless given), devices and ``requires_grad``. The values are computed in float64 and rounded once to the
requested dtype.

>>> import openreg
>>> openreg.hann_window(4).tolist()
[0.0, 0.5, 1.0, 0.5]
>>> openreg.bartlett_window(5, periodic=False, dtype=openreg.float64).tolist()
[0.0, 0.5, 1.0, 0.5, 0.0]
"""
from __future__ import annotations

import numpy as np


def _make(name: str, window_length: int, periodic: bool, values, dtype, layout, device, pin_memory: bool,
          requires_grad: bool):
    from . import get_default_dtype, tensor
    from .layouts import strided
    if layout is not None and layout != strided:
        raise RuntimeError(f"{name} is not implemented for layout {layout}: only torch.strided")
    if dtype is None:
        dtype = get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{name}(): argument 'window_length' must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        arr = np.ones(window_length)
    else:
        n = window_length + 1 if periodic else window_length
        arr = values(np.arange(n, dtype=np.float64), n)[:window_length]
    out = tensor(arr, dtype=dtype, device=device)
    if pin_memory:
        out = out.pin_memory()
    if requires_grad:
        out.requires_grad_(True)
    return out


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, pin_memory: bool = False, requires_grad: bool = False):
    """The Hamming window ``alpha - beta * cos(2 pi n / (N - 1))``.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.hamming_window(4).tolist()]
    [0.08, 0.54, 1.0, 0.54]
    """
    return _make("hamming_window", window_length, periodic,
                 lambda n, m: alpha - beta * np.cos(2 * np.pi * n / (m - 1)),
                 dtype, layout, device, pin_memory, requires_grad)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                pin_memory: bool = False, requires_grad: bool = False):
    """The Hann window ``0.5 - 0.5 * cos(2 pi n / (N - 1))``.

    >>> import openreg
    >>> openreg.hann_window(3, periodic=False).tolist()
    [0.0, 1.0, 0.0]
    """
    return _make("hann_window", window_length, periodic, lambda n, m: 0.5 - 0.5 * np.cos(2 * np.pi * n / (m - 1)),
                 dtype, layout, device, pin_memory, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> import openreg
    >>> w = openreg.blackman_window(3, periodic=False)
    >>> w.shape, round(w[1].item(), 6), abs(w[0].item()) < 1e-7
    (openreg.Size([3]), 1.0, True)
    """
    def values(n, m):
        w = 2 * np.pi * n / (m - 1)
        return 0.42 - 0.5 * np.cos(w) + 0.08 * np.cos(2 * w)
    return _make("blackman_window", window_length, periodic, values, dtype, layout, device, pin_memory,
                 requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False):
    """The triangular Bartlett window ``1 - |2 n / (N - 1) - 1|``.

    >>> import openreg
    >>> openreg.bartlett_window(4).tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    return _make("bartlett_window", window_length, periodic, lambda n, m: 1 - np.abs(2 * n / (m - 1) - 1),
                 dtype, layout, device, pin_memory, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, pin_memory: bool = False, requires_grad: bool = False):
    """The Kaiser window ``I0(beta * sqrt(1 - (2 n / (N - 1) - 1)**2)) / I0(beta)``.

    >>> import openreg
    >>> [round(v, 4) for v in openreg.kaiser_window(5, False, 3.0).tolist()]
    [0.2049, 0.7269, 1.0, 0.7269, 0.2049]
    """
    def values(n, m):
        r = 2 * n / (m - 1) - 1
        return np.i0(beta * np.sqrt(np.clip(1 - r * r, 0.0, None))) / np.i0(float(beta))
    return _make("kaiser_window", window_length, periodic, values, dtype, layout, device, pin_memory,
                 requires_grad)


_NAMES = ("bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window")


def publish(namespace) -> None:
    """Set the window factories on ``namespace`` (the ``openreg`` module) where it has none of that name."""
    for name in _NAMES:
        if not hasattr(namespace, name):
            setattr(namespace, name, globals()[name])
