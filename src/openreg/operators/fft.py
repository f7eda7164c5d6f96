"""Discrete Fourier transforms: PyTorch's three primitives ``_fft_r2c`` (real to complex, optionally keeping the
non-redundant half of the last transformed dimension), ``_fft_c2r`` (its inverse direction from such a half) and
``_fft_c2c``, over any set of dimensions, computed by the array module's FFT (NumPy's pocketfft on the CPU and
the emulated device, cuFFT through CuPy on the cuda driver). ``normalization`` scales the unnormalized sums by 1
(0), ``1/sqrt(n)`` (1) or ``1/n`` (2), ``n`` the number of points transformed; ``openreg.fft`` builds the public
functions on them. Their gradients are transforms again (the adjoint of a DFT is the DFT in the other direction
with the same scaling), so they are differentiable to any order.

>>> import openreg
>>> x = openreg.tensor([1.0, 2.0, 3.0, 4.0])
>>> openreg.ops.aten._fft_r2c(x, [0], 0, True).tolist()
[(10+0j), (-2+2j), (-2+0j)]
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, scalar_type_name, wrap_dim
from ._compute import xp_of
from ._record import Deriv, Op, register

_COMPLEX_OF = {"float32": _dt.complex64, "float64": _dt.complex128}


def _dims(op: str, self, dim) -> list:
    n = len(self._size)
    dims = [wrap_dim(d, n) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    return dims


def _r2c_meta(self, dim, normalization, onesided) -> Spec:
    if self._dtype.name not in _COMPLEX_OF:
        raise RuntimeError(f"_fft_r2c expects a float32 or float64 tensor, but got {scalar_type_name(self._dtype)}")
    dims = _dims("_fft_r2c", self, dim)
    size = list(self._size)
    if onesided and dims:
        size[dims[-1]] = size[dims[-1]] // 2 + 1
    return Spec(tuple(size), _COMPLEX_OF[self._dtype.name], self._storage.device)


def _c2r_meta(self, dim, normalization, last_dim_size) -> Spec:
    if not self._dtype.is_complex:
        raise RuntimeError(f"_fft_c2r expects a complex tensor, but got {scalar_type_name(self._dtype)}")
    dims = _dims("_fft_c2r", self, dim)
    size = list(self._size)
    if dims:
        size[dims[-1]] = last_dim_size
    return Spec(tuple(size), self._dtype.to_real(), self._storage.device)


def _c2c_meta(self, dim, normalization, forward) -> Spec:
    if not self._dtype.is_complex:
        raise RuntimeError(f"_fft_c2c expects a complex tensor, but got {scalar_type_name(self._dtype)}")
    _dims("_fft_c2c", self, dim)
    return Spec(self._size, self._dtype, self._storage.device)


def _scale(out, sizes, normalization: int, xp, dtype):
    n = math.prod(sizes)
    if normalization == 1 and n:
        out = out * (1 / math.sqrt(n))
    elif normalization == 2 and n:
        out = out * (1 / n)
    return out.astype(dtype.numpy, copy=False)


def _r2c(spec, self, dim, normalization, onesided):
    xp = xp_of(self)
    x = self._array()
    dims = _dims("_fft_r2c", self, dim)
    if not dims:
        return x.astype(spec.dtype.numpy)
    if onesided:
        out = xp.fft.rfftn(x, axes=dims)
    else:
        out = xp.fft.fftn(x.astype(spec.dtype.numpy), axes=dims)
    return _scale(out, [self._size[d] for d in dims], normalization, xp, spec.dtype)


def _c2r(spec, self, dim, normalization, last_dim_size):
    xp = xp_of(self)
    dims = _dims("_fft_c2r", self, dim)
    sizes = [spec.size[d] for d in dims]
    out = xp.fft.irfftn(self._array(), s=sizes, axes=dims, norm="forward")    # "forward": the inverse unscaled
    return _scale(out, sizes, normalization, xp, spec.dtype)


def _c2c(spec, self, dim, normalization, forward):
    xp = xp_of(self)
    dims = _dims("_fft_c2c", self, dim)
    x = self._array()
    if not dims:
        return x.copy()
    out = xp.fft.fftn(x, axes=dims) if forward else xp.fft.ifftn(x, axes=dims, norm="forward")
    return _scale(out, [self._size[d] for d in dims], normalization, xp, spec.dtype)


def _r2c_grad(g, a):
    """The adjoint of the (one-sided) real-to-complex transform: the dropped half of the last dimension has
    zero gradient; an inverse-direction complex transform with the same scaling; the real part."""
    dims = list(a.dim)
    if not a.onesided:
        return A.real(A._fft_c2c(g, dims, a.normalization, False))
    n = len(g._size)
    last = wrap_dim(dims[-1], n)
    full = a.size_of("self")[last]
    if full > g._size[last]:
        pad = list(g._size)
        pad[last] = full - g._size[last]
        g = A.cat([g, A.zeros(pad, dtype=g.dtype, device=g.device)], last)
    return A.real(A._fft_c2c(g, dims, a.normalization, False))


def _c2r_grad(g, a):
    """The adjoint of the complex-to-real transform from a half spectrum: a one-sided real-to-complex transform
    of the gradient whose entries standing for two conjugate-symmetric points count twice."""
    dims = list(a.dim)
    gi = A._fft_r2c(g, dims, a.normalization, True)
    last = wrap_dim(dims[-1], len(g._size))
    double = g._size[last] - gi._size[last]
    if double > 0:
        parts = [A.narrow(gi, last, 0, 1), A.narrow(gi, last, 1, double) * 2]
        rest = gi._size[last] - 1 - double
        if rest:
            parts.append(A.narrow(gi, last, 1 + double, rest))
        gi = A.cat(parts, last)
    return gi


fft_r2c = Op(
    "_fft_r2c", """
    _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor
    _fft_r2c.out(Tensor self, int[] dim, int normalization, bool onesided, *, Tensor(a!) out) -> Tensor(a!)
    """, meta=_r2c_meta, compute=_r2c,
    derivatives={"_fft_r2c": Deriv(linear=True, name="FftR2CBackward0", self=_r2c_grad)},
    function=False, method=False)
fft_c2r = Op(
    "_fft_c2r", """
    _fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor
    _fft_c2r.out(Tensor self, int[] dim, int normalization, SymInt last_dim_size, *, Tensor(a!) out) -> Tensor(a!)
    """, meta=_c2r_meta, compute=_c2r,
    derivatives={"_fft_c2r": Deriv(linear=True, name="FftC2RBackward0", self=_c2r_grad)},
    function=False, method=False)
fft_c2c = Op(
    "_fft_c2c", """
    _fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor
    _fft_c2c.out(Tensor self, SymInt[] dim, int normalization, bool forward, *, Tensor(a!) out) -> Tensor(a!)
    """, meta=_c2c_meta, compute=_c2c,
    derivatives={"_fft_c2c": Deriv(linear=True, name="FftC2CBackward0",
                                   self=lambda g, a: A._fft_c2c(g, list(a.dim), a.normalization, not a.forward))},
    function=False, method=False)

register(fft_r2c, fft_c2r, fft_c2c)
