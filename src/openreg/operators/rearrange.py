"""Copies that rearrange elements: ``repeat``, ``tile``, ``repeat_interleave``, ``roll``, ``flip`` (compositions of
views, ``index_select`` and ``cat``; gradients come from those ops).

>>> import openreg
>>> x = openreg.tensor([1, 2, 3])
>>> x.repeat(2).tolist(), x.repeat_interleave(2).tolist(), x.roll(1).tolist(), x.flip(0).tolist()
([1, 2, 3, 1, 2, 3], [1, 1, 2, 2, 3, 3], [3, 1, 2], [3, 2, 1])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.float8_support import is_float8, refuse_float8
from ..aten.meta_rules import wrap_dim
from ..memory_format import contiguous_format
from ._method_args import sizes_or_keyword
from ._record import Op, register


def _repeat(self, repeats):
    repeats = [int(r) for r in repeats]
    if len(repeats) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(repeats)}: {repeats}")
    lead = len(repeats) - self.dim()
    x = self.reshape([1] * lead + list(self.shape))
    # (r0, s0, r1, s1, ...) by expanding a size-1 axis before each dim, then merging each pair
    expanded = []
    for r, s in zip(repeats, x.shape):
        expanded += [r, s]
    inter = x.reshape([v for s in x.shape for v in (1, s)]).expand(expanded)
    # a new tensor, as PyTorch's: reshaping the expanded view alone can return a view of self (repeats of 1, or
    # repeats along size-1 dims), whose elements alias each other and self
    return inter.clone(memory_format=contiguous_format).view([r * s for r, s in zip(repeats, x.shape)])


def _repeat_method(self, *sizes, **kwargs):
    return A.repeat(self, list(sizes_or_keyword("repeat", sizes, kwargs, "repeats")))


repeat = Op(
    "repeat",
    """
    repeat(Tensor self, SymInt[] repeats) -> Tensor
    """,
    kernels={"repeat": {"CompositeImplicitAutograd": _repeat}},
    function=False, method=_repeat_method,
    doc="""The tensor tiled ``repeats[i]`` times along each dim (leading new dims for longer ``repeats``).

    >>> import openreg
    >>> openreg.tensor([1, 2]).repeat(2, 2).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """,
)


def _tile(self, dims):
    dims = [int(d) for d in dims]
    return _repeat(self, [1] * (self.dim() - len(dims)) + dims)


def _tile_method(self, *dims, **kwargs):
    return A.tile(self, list(sizes_or_keyword("tile", dims, kwargs, "dims")))


tile = Op(
    "tile",
    """
    tile(Tensor self, SymInt[] dims) -> Tensor
    """,
    kernels={"tile": {"CompositeImplicitAutograd": _tile}},
    method=_tile_method,
    doc="""``repeat`` with ``dims`` padded by leading ones when shorter than the tensor's dimensions.

    >>> import openreg
    >>> openreg.tile(openreg.tensor([[1, 2]]), (2,)).tolist()
    [[1, 2, 1, 2]]
    """,
)


def _interleave_index(repeats, n, device):
    """``[0]*r0 + [1]*r1 + ...`` for a tensor of per-element counts."""
    counts = repeats.to(_dt.int64)
    if counts.dim() == 0:
        counts = counts.expand([n])
    if counts.dim() != 1 or (counts.numel() != n):
        raise RuntimeError("repeats must have the same size as input along dim")
    if bool((counts < 0).sum().item()):
        raise RuntimeError("repeats can not be negative")
    total = int(counts.sum().item())
    ends = counts.cumsum(0)
    pos = A.arange(total, device=device)
    # position p belongs to the first element whose running end exceeds p
    return (pos.unsqueeze(1) >= ends.unsqueeze(0)).to(_dt.int64).sum(1)


def _repeat_interleave_tensor(self, repeats, dim=None, *, output_size=None):
    if dim is None:
        self, dim = self.reshape(-1), 0
    d = wrap_dim(dim, max(self.dim(), 1))
    x = self if self.dim() else self.reshape(1)
    if repeats.device != self.device:
        repeats = repeats.to(self.device)
    idx = _interleave_index(repeats, x.shape[d], self.device)
    return A.index_select(x, d, idx)


def _repeat_interleave_int(self, repeats, dim=None, *, output_size=None):
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    if dim is None:
        self, dim = self.reshape(-1), 0
    d = wrap_dim(dim, max(self.dim(), 1))
    x = self if self.dim() else self.reshape(1)
    n = x.shape[d]
    idx = A.arange(n, device=self.device).unsqueeze(1).expand([n, repeats]).reshape(-1)
    return A.index_select(x, d, idx)


def _repeat_interleave_only(repeats, *, output_size=None):
    return _interleave_index(repeats, repeats.numel(), repeats.device)


def _repeat_interleave_fn(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:
        return A.repeat_interleave__Tensor(input, output_size=output_size)
    if hasattr(repeats, "_ks"):
        return A.repeat_interleave__self_Tensor(input, repeats, dim, output_size=output_size)
    return A.repeat_interleave__self_int(input, repeats, dim, output_size=output_size)


repeat_interleave = Op(
    "repeat_interleave",
    """
    repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
    repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
    repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
    """,
    kernels={"repeat_interleave.Tensor": {"CompositeExplicitAutograd": _repeat_interleave_only},
             "repeat_interleave.self_Tensor": {"CompositeImplicitAutograd": _repeat_interleave_tensor},
             "repeat_interleave.self_int": {"CompositeImplicitAutograd": _repeat_interleave_int}},
    function=_repeat_interleave_fn, method=_repeat_interleave_fn,
    doc="""Each element repeated ``repeats`` times (an int or one count per element) along ``dim``.

    >>> import openreg
    >>> openreg.repeat_interleave(openreg.tensor([[1, 2]]), openreg.tensor([1, 2]), dim=1).tolist()
    [[1, 2, 2]]
    """,
)


def _flip(self, dims):
    if is_float8(self._dtype):
        refuse_float8("flip", self._dtype)
    out = self
    for d in dims:
        d = wrap_dim(d, max(self.dim(), 1))
        if self.dim() == 0:
            break
        n = self._size[d]
        idx = A.arange__start_step(n - 1, -1, -1, device=self.device)
        out = A.index_select(out, d, idx)
    return out if out is not self else self.clone()


def _flip_method(self, *dims, **kwargs):
    if kwargs:  # Tensor.flip(dims=...), as PyTorch's binding takes
        if dims or set(kwargs) != {"dims"}:
            raise TypeError(f"flip() received an invalid combination of arguments - got {tuple(kwargs)}")
        dims = (kwargs["dims"],)
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    return A.flip(self, list(dims))


def _flip_fn(input, dims):
    return A.flip(input, [dims] if isinstance(dims, int) else list(dims))


flip = Op(
    "flip",
    """
    flip(Tensor self, int[] dims) -> Tensor
    """,
    kernels={"flip": {"CompositeImplicitAutograd": _flip}},
    function=_flip_fn, method=_flip_method,
    doc="""The elements in reversed order along each of ``dims`` (a copy).

    >>> import openreg
    >>> openreg.flip(openreg.tensor([[1, 2], [3, 4]]), [0, 1]).tolist()
    [[4, 3], [2, 1]]
    """,
)


def _roll(self, shifts, dims=()):
    shifts, dims = list(shifts), list(dims)
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"`shifts` required to be of size 1 when `dims` is empty, got {len(shifts)}")
        return _roll(self.reshape(-1), shifts, [0]).reshape(list(self.shape))
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = self
    for s, d in zip(shifts, dims):
        d = wrap_dim(d, max(self.dim(), 1))
        n = self._size[d]
        if n == 0:
            continue
        s %= n
        idx = (A.arange(n, device=self.device) - s) % n
        out = A.index_select(out, d, idx)
    return out if out is not self else self.clone()


def _roll_fn(input, shifts, dims=None):
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [] if dims is None else [dims] if isinstance(dims, int) else list(dims)
    return A.roll(input, shifts, dims)


roll = Op(
    "roll",
    """
    roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor
    """,
    kernels={"roll": {"CompositeImplicitAutograd": _roll}},
    function=_roll_fn, method=_roll_fn,
    doc="""The elements shifted cyclically by ``shifts`` along ``dims`` (the flattened tensor when no dims).

    >>> import openreg
    >>> openreg.tensor([[1, 2], [3, 4]]).roll(1, 0).tolist()
    [[3, 4], [1, 2]]
    """,
)

register(repeat, tile, repeat_interleave, flip, roll)
