"""``openreg.fft``: PyTorch's ``torch.fft`` -- discrete Fourier transforms of one, two or n dimensions
(``fft``/``ifft``, ``rfft``/``irfft`` for real signals, ``hfft``/``ihfft`` for Hermitian ones, ``fft2``, ``fftn``
...), the sample frequencies (``fftfreq``, ``rfftfreq``) and ``fftshift``/``ifftshift``, on the CPU and the
device, differentiable. ``n``/``s`` zero-pad or trim the transformed dimensions first; ``norm`` is
``"backward"`` (default: the inverse divides by n), ``"ortho"`` (both by sqrt(n)) or ``"forward"``.
Integer inputs are transformed in the default float dtype; float16/bfloat16 are not supported (as on
PyTorch's CPU). ``hfft2``/``hfftn`` and their inverses are not provided.

>>> import openreg
>>> x = openreg.tensor([1.0, 2.0, 3.0, 4.0])
>>> openreg.fft.rfft(x).tolist()
[(10+0j), (-2+2j), (-2+0j)]
>>> openreg.fft.irfft(openreg.fft.rfft(x), n=4).tolist()
[1.0, 2.0, 3.0, 4.0]
"""
from __future__ import annotations

import openreg

from . import dtypes as _dt
from ._dispatch.ops import A
from .amp.composite import autocast_composite
from .aten.meta_rules import scalar_type_name, wrap_dim

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn",
           "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]


def _norm(norm, forward: bool) -> int:
    """PyTorch's normalization code: 0 none, 1 by 1/sqrt(n), 2 by 1/n."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "ortho":
        return 1
    if norm == "forward":
        return 2 if forward else 0
    raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")


def _float_input(x, complex_ok: bool = True):
    d = x.dtype
    if d in (_dt.float16, _dt.bfloat16):
        raise RuntimeError(f"Unsupported dtype {scalar_type_name(d)}")
    if d.is_complex:
        if not complex_ok:
            raise RuntimeError(f"expects a real input tensor, but got {scalar_type_name(d)}")
        return x
    if not d.is_floating_point:
        return x.to(_dt.get_default_dtype())
    return x


def _complex_input(x):
    x = _float_input(x)
    return x if x.dtype.is_complex else x.to(x.dtype.to_complex())


def _resize(x, dims, sizes):
    """Zero-pad or trim each of ``dims`` to its size (-1: unchanged)."""
    for d, n in zip(dims, sizes):
        cur = x.shape[d]
        if n == -1 or n == cur:
            continue
        if n < cur:
            x = x.narrow(d, 0, n)
        else:
            pad = list(x.shape)
            pad[d] = n - cur
            x = openreg.cat([x, openreg.zeros(pad, dtype=x.dtype, device=x.device)], d)
    return x


def _check_n(n):
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _dims_and_sizes(x, s, dim, default_all: bool):
    """PyTorch's canonicalization of (s, dim) for the n-dimensional transforms."""
    nd = x.dim()
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [wrap_dim(d, nd) for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} dimensions.")
        dims = list(range(nd - len(s), nd))
    else:
        dims = list(range(nd)) if default_all else [nd - 2, nd - 1]
    sizes = list(s) if s is not None else [-1] * len(dims)
    for n in sizes:
        if n != -1:
            _check_n(n)
    return dims, sizes


def _out(result, out):
    if out is None:
        return result
    if out.dtype is not result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead")
    out.resize_(result.shape)
    return out.copy_(result)


def _c2c_nd(x, dims, sizes, norm, forward: bool):
    x = _float_input(x)
    x = _resize(x, dims, sizes)
    if not x.dtype.is_complex:     # a real signal: the two-sided real-to-complex transform, as PyTorch
        r = A._fft_r2c(x, dims, _norm(norm, forward), False)
        return r if forward else A.conj_physical(r)
    return A._fft_c2c(x, dims, _norm(norm, forward), forward)


def _r2c_nd(x, dims, sizes, norm, forward: bool = True, name: str = "rfft"):
    d = x.dtype
    if d.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {scalar_type_name(d)}")
    x = _resize(_float_input(x), dims, sizes)
    return A._fft_r2c(x, dims, _norm(norm, forward), True)


def _c2r_nd(x, dims, sizes, norm, forward: bool = False):
    x = _complex_input(x)
    last = sizes[-1] if sizes[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    x = _resize(x, dims, sizes[:-1] + [last // 2 + 1])
    return A._fft_c2r(x, dims, _norm(norm, forward), last)


@autocast_composite("fft_fft")
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional discrete Fourier transform along ``dim`` (complex result).

    >>> import openreg
    >>> openreg.fft.fft(openreg.tensor([1.0, 0.0, -1.0, 0.0])).tolist()
    [0j, (2+0j), 0j, (2+0j)]
    """
    _check_n(n)
    return _out(_c2c_nd(input, [wrap_dim(dim, input.dim())], [-1 if n is None else n], norm, True), out)


@autocast_composite("fft_ifft")
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of ``fft`` along ``dim``.

    >>> import openreg
    >>> openreg.fft.ifft(openreg.tensor([0j, 2, 0, 2])).tolist()
    [(1+0j), 0j, (-1+0j), 0j]
    """
    _check_n(n)
    return _out(_c2c_nd(input, [wrap_dim(dim, input.dim())], [-1 if n is None else n], norm, False), out)


@autocast_composite("fft_rfft")
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Fourier transform of a real signal: the ``n // 2 + 1`` non-negative frequencies.

    >>> import openreg
    >>> openreg.fft.rfft(openreg.tensor([1.0, 1.0, 1.0])).tolist()
    [(3+0j), 0j]
    """
    _check_n(n)
    return _out(_r2c_nd(input, [wrap_dim(dim, input.dim())], [-1 if n is None else n], norm), out)


@autocast_composite("fft_irfft")
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``) from its half spectrum.

    >>> import openreg
    >>> openreg.fft.irfft(openreg.tensor([3 + 0j, 0j]), n=3).tolist()
    [1.0, 1.0, 1.0]
    """
    _check_n(n)
    return _out(_c2r_nd(input, [wrap_dim(dim, input.dim())], [-1 if n is None else n], norm), out)


@autocast_composite("fft_hfft")
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The real transform of a Hermitian-symmetric signal given by its first half (``irfft`` of the
    conjugate with the forward scaling).

    >>> import openreg
    >>> openreg.fft.hfft(openreg.tensor([1 + 0j, 0j]), n=2).tolist()
    [1.0, 1.0]
    """
    _check_n(n)
    x = A.conj_physical(_complex_input(input))
    return _out(_c2r_nd(x, [wrap_dim(dim, input.dim())], [-1 if n is None else n], norm, forward=True), out)


@autocast_composite("fft_ihfft")
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of ``hfft``: the half spectrum (conjugated, inverse scaling) of a real signal.

    >>> import openreg
    >>> openreg.fft.ihfft(openreg.tensor([1.0, 2.0, 3.0])).real.tolist()
    [2.0, -0.5]
    """
    _check_n(n)
    r = _r2c_nd(input, [wrap_dim(dim, input.dim())], [-1 if n is None else n], norm, forward=False, name="ihfft")
    return _out(A.conj_physical(r), out)


@autocast_composite("fft_fftn")
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """n-dimensional ``fft`` over ``dim`` (default: all dimensions, or the last ``len(s)``).

    >>> import openreg
    >>> openreg.fft.fftn(openreg.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    dims, sizes = _dims_and_sizes(input, s, dim, True)
    return _out(_c2c_nd(input, dims, sizes, norm, True), out)


@autocast_composite("fft_ifftn")
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """n-dimensional ``ifft``.

    >>> import openreg
    >>> openreg.fft.ifftn(openreg.fft.fftn(openreg.ones(2, 2))).real.tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    dims, sizes = _dims_and_sizes(input, s, dim, True)
    return _out(_c2c_nd(input, dims, sizes, norm, False), out)


@autocast_composite("fft_rfftn")
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """n-dimensional ``rfft``: the last transformed dimension keeps its non-negative frequencies.

    >>> import openreg
    >>> openreg.fft.rfftn(openreg.ones(2, 4)).shape
    openreg.Size([2, 3])
    """
    dims, sizes = _dims_and_sizes(input, s, dim, True)
    return _out(_r2c_nd(input, dims, sizes, norm), out)


@autocast_composite("fft_irfftn")
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """n-dimensional ``irfft``.

    >>> import openreg
    >>> openreg.fft.irfftn(openreg.fft.rfftn(openreg.ones(2, 4)), s=(2, 4)).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    dims, sizes = _dims_and_sizes(input, s, dim, True)
    return _out(_c2r_nd(input, dims, sizes, norm), out)


@autocast_composite("fft_fft2")
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``fft`` (``fftn`` over the last two dimensions by default).

    >>> import openreg
    >>> openreg.fft.fft2(openreg.ones(2, 2)).abs().sum().item()
    4.0
    """
    return fftn(input, s, dim, norm, out=out)


@autocast_composite("fft_ifft2")
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``ifft``.

    >>> import openreg
    >>> openreg.fft.ifft2(openreg.fft.fft2(openreg.ones(2, 2))).real.sum().item()
    4.0
    """
    return ifftn(input, s, dim, norm, out=out)


@autocast_composite("fft_rfft2")
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``rfft``.

    >>> import openreg
    >>> openreg.fft.rfft2(openreg.ones(3, 4)).shape
    openreg.Size([3, 3])
    """
    return rfftn(input, s, dim, norm, out=out)


@autocast_composite("fft_irfft2")
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``irfft``.

    >>> import openreg
    >>> openreg.fft.irfft2(openreg.fft.rfft2(openreg.ones(3, 4)), s=(3, 4)).sum().item()
    12.0
    """
    return irfftn(input, s, dim, norm, out=out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """n-dimensional ``hfft``: the real transform of a signal Hermitian-symmetric in every transformed dimension,
    given by its half along the last one (default size of that one ``2 * (m - 1)``).

    >>> import openreg
    >>> openreg.fft.hfftn(openreg.tensor([[4 + 0j, 0j], [0j, 0j]])).tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    dims, sizes = _dims_and_sizes(input, s, dim, True)
    x = A.conj_physical(_complex_input(input))
    return _out(_c2r_nd(x, dims, sizes, norm, forward=True), out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Inverse of ``hfftn``: the half spectrum (conjugated, inverse scaling) of a real signal along ``dim``.

    >>> import openreg
    >>> openreg.fft.ihfftn(openreg.ones(2, 2)).real.tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    dims, sizes = _dims_and_sizes(input, s, dim, True)
    return _out(A.conj_physical(_r2c_nd(input, dims, sizes, norm, forward=False, name="ihfftn")), out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``hfft`` (``hfftn`` over the last two dimensions by default).

    >>> import openreg
    >>> openreg.fft.hfft2(openreg.tensor([[4 + 0j, 0j], [0j, 0j]])).shape
    openreg.Size([2, 2])
    """
    return hfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``ihfft`` (``ihfftn`` over the last two dimensions by default).

    >>> import openreg
    >>> openreg.fft.ihfft2(openreg.ones(2, 4)).shape
    openreg.Size([2, 3])
    """
    return ihfftn(input, s, dim, norm, out=out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point ``fft`` with sample spacing ``d``.

    >>> import openreg
    >>> openreg.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    k = openreg.cat([openreg.arange(0, (n - 1) // 2 + 1), openreg.arange(-(n // 2), 0)])
    r = k.to(dtype or _dt.get_default_dtype()) * (1.0 / (n * d))
    r = r.to(device) if device is not None else r
    return _out(r.requires_grad_(requires_grad), out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point ``rfft`` (the non-negative ones).

    >>> import openreg
    >>> openreg.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    r = openreg.arange(0, n // 2 + 1).to(dtype or _dt.get_default_dtype()) * (1.0 / (n * d))
    r = r.to(device) if device is not None else r
    return _out(r.requires_grad_(requires_grad), out)


def _shift(input, dim, sign: int):
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return openreg.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Moves the zero frequency to the centre (a roll by ``n // 2`` in each of ``dim``, default all).

    >>> import openreg
    >>> openreg.fft.fftshift(openreg.arange(5)).tolist()
    [3, 4, 0, 1, 2]
    """
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """Inverse of ``fftshift``.

    >>> import openreg
    >>> openreg.fft.ifftshift(openreg.tensor([3, 4, 0, 1, 2])).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shift(input, dim, -1)
