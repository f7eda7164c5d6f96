"""The ``*_copy`` variants of view operators (``permute_copy``, ``view_copy``, ``split_copy`` ...): the values the
view would show, in new contiguous memory (what functionalization turns views into). Each is the view followed by a
contiguous clone, so gradients flow as through the view.

>>> import openreg
>>> x = openreg.arange(6.0).reshape(2, 3)
>>> y = openreg.permute_copy(x, (1, 0))
>>> y.is_contiguous(), y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr(), y.tolist()
(True, True, [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..memory_format import contiguous_format
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _copied(out):
    if isinstance(out, (list, tuple)):
        return [A.clone(o, memory_format=contiguous_format) for o in out]
    return A.clone(out, memory_format=contiguous_format)


def _copy_op(name: str, schema: str, view, function=True) -> Op:
    overload = schema.split("(", 1)[0].strip()

    def kernel(*args, **kwargs):
        return _copied(view(*args, **kwargs))
    kernel.__name__ = name
    return Op(name, schema, kernels={overload: {CIA: kernel}}, method=False, function=function,
              doc=f"""The values of the view ``{name[:-5]}`` in new contiguous memory.

    >>> import openreg
    >>> openreg.ops.aten.{name}.overloads() != []
    True
    """)


def _squeeze_copy(input, dim=None):
    """``squeeze_copy(input)``, ``squeeze_copy(input, dim)`` (an int or a list of ints)."""
    if dim is None:
        return A.squeeze_copy(input)
    if isinstance(dim, int):
        return A.squeeze_copy__dim(input, dim)
    return A.squeeze_copy__dims(input, list(dim))


def _view_copy(input, *shape):
    """``view_copy(input, size)`` or ``view_copy(input, dtype)``."""
    from ..dtypes import dtype as Dtype
    if len(shape) == 1 and isinstance(shape[0], Dtype):
        return A.view_copy__dtype(input, shape[0])
    size = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    return A.view_copy(input, list(size))


def _squeeze_view(self, dim=None):
    if dim is None:
        return A.squeeze(self)
    return self.squeeze(dim if isinstance(dim, int) else tuple(dim))


_OPS = [
    _copy_op("alias_copy", "alias_copy(Tensor self) -> Tensor", lambda self: A.alias(self)),
    _copy_op("as_strided_copy", "as_strided_copy(Tensor self, SymInt[] size, SymInt[] stride, "
             "SymInt? storage_offset=None) -> Tensor",
             lambda self, size, stride, storage_offset=None: A.as_strided(self, size, stride, storage_offset)),
    _copy_op("diagonal_copy", "diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
             lambda self, offset=0, dim1=0, dim2=1: A.diagonal(self, offset, dim1, dim2)),
    _copy_op("expand_copy", "expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor",
             lambda self, size, implicit=False: self.expand(tuple(size))),
    _copy_op("permute_copy", "permute_copy(Tensor self, int[] dims) -> Tensor",
             lambda self, dims: self.permute(tuple(dims))),
    _copy_op("select_copy", "select_copy.int(Tensor self, int dim, SymInt index) -> Tensor",
             lambda self, dim, index: A.select__int(self, dim, index)),
    _copy_op("slice_copy", "slice_copy.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, "
             "SymInt step=1) -> Tensor",
             lambda self, dim=0, start=None, end=None, step=1: A.slice__Tensor(self, dim, start, end, step)),
    _copy_op("split_copy", "split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]",
             lambda self, split_size, dim=0: self.split(split_size, dim)),
    _copy_op("split_with_sizes_copy", "split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
             lambda self, split_sizes, dim=0: self.split(list(split_sizes), dim)),
    _copy_op("t_copy", "t_copy(Tensor self) -> Tensor", lambda self: self.t()),
    _copy_op("transpose_copy", "transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor",
             lambda self, dim0, dim1: self.transpose(dim0, dim1)),
    _copy_op("unbind_copy", "unbind_copy.int(Tensor self, int dim=0) -> Tensor[]",
             lambda self, dim=0: self.unbind(dim)),
    _copy_op("unfold_copy", "unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor",
             lambda self, dimension, size, step: self.unfold(dimension, size, step)),
    _copy_op("unsqueeze_copy", "unsqueeze_copy(Tensor self, int dim) -> Tensor", lambda self, dim: self.unsqueeze(dim)),
    _copy_op("view_as_real_copy", "view_as_real_copy(Tensor self) -> Tensor", lambda self: A.view_as_real(self)),
    _copy_op("view_as_complex_copy", "view_as_complex_copy(Tensor self) -> Tensor",
             lambda self: A.view_as_complex(self)),
]

detach_copy = Op("detach_copy", "detach_copy(Tensor self) -> Tensor",
                 kernels={"detach_copy": {CIA: lambda self: _copied(self.detach())}}, method=False,
                 doc="""A copy of ``self`` detached from the graph, in new contiguous memory.

    >>> import openreg
    >>> openreg.detach_copy(openreg.ones(2, requires_grad=True)).requires_grad
    False
    """)

squeeze_copy = Op("squeeze_copy", """
    squeeze_copy(Tensor self) -> Tensor
    squeeze_copy.dim(Tensor self, int dim) -> Tensor
    squeeze_copy.dims(Tensor self, int[] dim) -> Tensor
    """, kernels={"squeeze_copy": {CIA: lambda self: _copied(A.squeeze(self))},
                  "squeeze_copy.dim": {CIA: lambda self, dim: _copied(self.squeeze(dim))},
                  "squeeze_copy.dims": {CIA: lambda self, dim: _copied(self.squeeze(tuple(dim)))}},
    method=False, function=_squeeze_copy,
    doc="""The values of ``squeeze`` in new contiguous memory.

    >>> import openreg
    >>> openreg.squeeze_copy(openreg.ones(1, 2, 1), 0).shape
    openreg.Size([2, 1])
    """)

view_copy = Op("view_copy", """
    view_copy(Tensor self, SymInt[] size) -> Tensor
    view_copy.dtype(Tensor self, ScalarType dtype) -> Tensor
    """, kernels={"view_copy": {CIA: lambda self, size: _copied(self.view(tuple(size)))},
                  "view_copy.dtype": {CIA: lambda self, dtype: _copied(self.view(dtype))}},
    method=False, function=_view_copy,
    doc="""The values of ``view`` (a shape or a dtype) in new contiguous memory.

    >>> import openreg
    >>> openreg.view_copy(openreg.arange(6.0), (2, 3)).shape
    openreg.Size([2, 3])
    """)

register(*_OPS, detach_copy, squeeze_copy, view_copy)
