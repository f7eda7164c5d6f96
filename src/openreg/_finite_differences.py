"""``openreg.gradient``: the derivative of sampled values along dimensions by central differences in the interior
and one-sided first- or second-order differences at the edges (PyTorch's ``torch.gradient``, NumPy's
``numpy.gradient``), with uniform spacing or sample coordinates per dimension. Written with tensor operators, so
it runs on every device and is differentiable.

>>> import openreg
>>> [g.tolist() for g in openreg.gradient(openreg.tensor([1.0, 2.0, 4.0, 8.0, 10.0]))]
[[1.0, 1.5, 3.0, 3.0, 2.0]]
"""
from __future__ import annotations

import numbers

from .tensor import Tensor

__all__ = ["gradient"]


def _along(t: Tensor, dim: int, start: int, stop: int | None) -> Tensor:
    return t.narrow(dim, start, (t.shape[dim] if stop is None else stop) - start)


def _shape_for(coord: Tensor, dim: int, ndim: int) -> Tensor:
    """A 1-D tensor of per-position values laid along ``dim`` (broadcasting over the other dimensions)."""
    shape = [1] * ndim
    shape[dim] = coord.shape[0]
    return coord.reshape(shape)


def _uniform(f: Tensor, dim: int, h, edge_order: int) -> Tensor:
    import openreg
    n = f.shape[dim]
    interior = (_along(f, dim, 2, None) - _along(f, dim, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (_along(f, dim, 1, 2) - _along(f, dim, 0, 1)) / h
        last = (_along(f, dim, n - 1, n) - _along(f, dim, n - 2, n - 1)) / h
    else:
        first = (-1.5 * _along(f, dim, 0, 1) + 2 * _along(f, dim, 1, 2) - 0.5 * _along(f, dim, 2, 3)) / h
        last = (0.5 * _along(f, dim, n - 3, n - 2) - 2 * _along(f, dim, n - 2, n - 1)
                + 1.5 * _along(f, dim, n - 1, n)) / h
    return openreg.cat([first, interior, last], dim)


def _coordinates(f: Tensor, dim: int, x: Tensor, edge_order: int) -> Tensor:
    import openreg
    n, nd = f.shape[dim], f.dim()
    dx = x[1:] - x[:-1]
    hl, hr = _shape_for(dx[:-1], dim, nd), _shape_for(dx[1:], dim, nd)
    left, mid, right = _along(f, dim, 0, n - 2), _along(f, dim, 1, n - 1), _along(f, dim, 2, None)
    interior = (hl * hl * right - hr * hr * left + (hr * hr - hl * hl) * mid) / (hl * hr * (hl + hr))
    if edge_order == 1:
        first = (_along(f, dim, 1, 2) - _along(f, dim, 0, 1)) / dx[0]
        last = (_along(f, dim, n - 1, n) - _along(f, dim, n - 2, n - 1)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * _along(f, dim, 0, 1) + (d1 + d2) / (d1 * d2) * _along(f, dim, 1, 2)
                 - d1 / (d2 * (d1 + d2)) * _along(f, dim, 2, 3))
        d1, d2 = dx[-2], dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * _along(f, dim, n - 3, n - 2) - (d2 + d1) / (d1 * d2) * _along(f, dim, n - 2, n - 1)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * _along(f, dim, n - 1, n))
    return openreg.cat([first, interior, last], dim)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """The derivative estimates of ``input`` along ``dim`` (every dimension by default), one tensor per dimension.

    ``spacing`` is one number for all dimensions, one number per dimension, or one 1-D tensor of sample
    coordinates per dimension; ``edge_order`` (1 or 2) is the order of the one-sided differences at the edges.

    >>> import openreg
    >>> x = openreg.tensor([0.0, 1.0, 1.5, 3.5, 4.0])
    >>> [round(v, 4) for v in openreg.gradient(x * x, spacing=(x,), edge_order=2)[0].tolist()]
    [0.0, 2.0, 3.0, 7.0, 8.0]
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [d % nd if nd else d for d in dims]
    if isinstance(spacing, (numbers.Number, Tensor)) and not (isinstance(spacing, Tensor) and spacing.dim() == 1):
        spacings = [spacing] * len(dims)
    else:
        spacings = list(spacing)
        if len(spacings) != len(dims):
            where = ("since dim argument was not given" if dim is None else
                     f"since dim argument was given as {dim}")
            length = f"'self.dim() = {nd}'" if dim is None else f"'len(dim) = {len(dims)}'"
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to {length}, {where}, but got a list of length {len(spacings)}")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor) and h.dim() == 1:
            if h.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and to have "
                                   f"{input.shape[d]} coordinates for dimension {d}, but got {h.shape[0]}")
            out.append(_coordinates(input, d, h.to(input.device), edge_order))
        else:
            out.append(_uniform(input, d, h.item() if isinstance(h, Tensor) else h, edge_order))
    return tuple(out)


def publish(namespace) -> None:
    """``openreg.gradient``."""
    if not hasattr(namespace, "gradient"):
        namespace.gradient = gradient
