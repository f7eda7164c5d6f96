"""Splitting at positions or into near-equal parts: ``tensor_split``, ``hsplit``, ``vsplit`` and ``dsplit``
(views of the input, written with ``slice``; CompositeImplicitAutograd, so gradients come from the slices).

>>> import openreg
>>> [p.tolist() for p in openreg.tensor_split(openreg.arange(7), 3)]
[[0, 1, 2], [3, 4], [5, 6]]
>>> [p.tolist() for p in openreg.arange(6).tensor_split([1, 4])]
[[0], [1, 2, 3], [4, 5]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import wrap_dim
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._record import Op, register

CIA = "CompositeImplicitAutograd"
# Each piece is a Python tensor: a count beyond this cannot be allocated (PyTorch fails allocating the vector).
_MAX_PIECES = 2 ** 24


def _check_dims(self: Tensor) -> None:
    if self.dim() == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{self.dim()} dims")


def _split_sections(self: Tensor, sections: int, dim: int = 0) -> list:
    _check_dims(self)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    if sections > _MAX_PIECES:
        raise RuntimeError(f"tensor_split: cannot allocate {sections} sections (at most {_MAX_PIECES})")
    d = wrap_dim(dim, self.dim())
    size = self.shape[d]
    small, extra = divmod(size, sections)
    out, start = [], 0
    for i in range(sections):
        n = small + (1 if i < extra else 0)
        out.append(A.slice__Tensor(self, d, start, start + n, 1))
        start += n
    return out


def _split_indices(self: Tensor, indices, dim: int = 0) -> list:
    _check_dims(self)
    d = wrap_dim(dim, self.dim())
    if len(indices) >= _MAX_PIECES:
        raise RuntimeError(f"tensor_split: cannot allocate {len(indices) + 1} sections (at most {_MAX_PIECES})")
    out, start = [], 0
    for end in list(indices) + [None]:
        out.append(A.slice__Tensor(self, d, start, end, 1))
        start = end
    return out


def _split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> list:
    t = tensor_indices_or_sections
    if t.device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t.device}")
    if t._dtype is not _dt.int64:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{t._dtype.scalar_name}")
    if t.dim() > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
    if t.dim() == 0:
        return _split_sections(self, int(t.item()), dim)
    return _split_indices(self, [int(v) for v in t.tolist()], dim)


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Split into ``sections`` near-equal parts (the first ``size % sections`` one longer), or at ``indices``.

    >>> import openreg
    >>> [p.shape[1] for p in openreg.tensor_split(openreg.ones(2, 5), 2, dim=1)]
    [3, 2]
    """
    if isinstance(indices_or_sections, Tensor):
        return tuple(A.tensor_split__tensor_indices_or_sections(input, indices_or_sections, dim))
    if isinstance(indices_or_sections, (list, tuple)):
        return tuple(A.tensor_split__indices(input, list(indices_or_sections), dim))
    return tuple(A.tensor_split__sections(input, indices_or_sections, dim))


def _directional(name: str, dim_of, min_dims: int):
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along a fixed dimension (``dim_of(ndim)``), the
    sections dividing that dimension exactly."""
    def check(self: Tensor) -> int:
        if self.dim() < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {self.dim()} dimensions!")
        return dim_of(self.dim())

    def sections(self: Tensor, sections: int) -> list:
        d = check(self)
        size = self.shape[d]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
        return _split_sections(self, sections, d)

    def indices(self: Tensor, indices) -> list:
        return _split_indices(self, indices, check(self))

    def function(input: Tensor, indices_or_sections) -> tuple:
        if isinstance(indices_or_sections, (list, tuple)):
            return tuple(getattr(A, f"{name}__array")(input, list(indices_or_sections)))
        return tuple(getattr(A, f"{name}__int")(input, indices_or_sections))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""``tensor_split`` along dim {dim_of(3)} (3-d input); integer sections must divide it.

    >>> import openreg
    >>> [p.shape for p in openreg.{name}(openreg.ones(4, 4, 4), 2)]
    [openreg.Size({[2 if i == dim_of(3) else 4 for i in range(3)]}), openreg.Size({[2 if i == dim_of(3) else 4 for i in range(3)]})]
    """
    return Op(name, f"""
        {name}.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
        {name}.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
        """, kernels={f"{name}.int": {CIA: sections}, f"{name}.array": {CIA: indices}},
        function=function, method=function, doc=function.__doc__)


tensor_split_op = Op("tensor_split", """
    tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]
    tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]
    tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]
    """, kernels={"tensor_split.sections": {CIA: _split_sections}, "tensor_split.indices": {CIA: _split_indices},
                  "tensor_split.tensor_indices_or_sections": {CIA: _split_tensor}},
    function=tensor_split, method=tensor_split, doc=tensor_split.__doc__)

hsplit = _directional("hsplit", lambda n: 0 if n == 1 else 1, 1)
vsplit = _directional("vsplit", lambda n: 0, 2)
dsplit = _directional("dsplit", lambda n: 2, 3)

register(tensor_split_op, hsplit, vsplit, dsplit)
