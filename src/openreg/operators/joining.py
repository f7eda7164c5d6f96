"""Joining along a fixed axis: ``atleast_1d``/``atleast_2d``/``atleast_3d``, ``hstack``, ``vstack``
(``row_stack``), ``dstack`` and ``column_stack``: NumPy-style joins, each a ``cat`` of reshaped views
(CompositeImplicitAutograd, so gradients come from ``cat`` and the views).

>>> import openreg
>>> a, b = openreg.tensor([1, 2]), openreg.tensor([3, 4])
>>> openreg.hstack([a, b]).tolist(), openreg.vstack([a, b]).tolist(), openreg.column_stack([a, b]).tolist()
([1, 2, 3, 4], [[1, 2], [3, 4]], [[1, 3], [2, 4]])
>>> openreg.dstack([a, b]).shape
openreg.Size([1, 2, 2])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


def _atleast_1d(self):
    return self.reshape(1) if self.dim() == 0 else self


def _atleast_2d(self):
    return self.reshape(1, 1) if self.dim() == 0 else self.unsqueeze(0) if self.dim() == 1 else self


def _atleast_3d(self):
    n = self.dim()
    if n == 0:
        return self.reshape(1, 1, 1)
    if n == 1:
        return self.unsqueeze(0).unsqueeze(-1)
    return self.unsqueeze(-1) if n == 2 else self


def _nonempty(name: str, tensors) -> list:
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def _hstack_parts(tensors) -> tuple[list, int]:
    parts = [_atleast_1d(t) for t in _nonempty("hstack", tensors)]
    return parts, 0 if parts[0].dim() == 1 else 1


def _vstack_parts(tensors, name: str = "vstack") -> tuple[list, int]:
    return [_atleast_2d(t) for t in _nonempty(name, tensors)], 0


def _dstack_parts(tensors) -> tuple[list, int]:
    return [_atleast_3d(t) for t in _nonempty("dstack", tensors)], 2


def _column_stack_parts(tensors) -> tuple[list, int]:
    return [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in _nonempty("column_stack", tensors)], 1


def _join(name: str, parts_of, doc: str) -> Op:
    """The record of a join: ``cat`` of ``parts_of(tensors)`` (functional and ``out=``)."""
    def functional(tensors):
        parts, dim = parts_of(tensors)
        return A.cat(parts, dim)

    def out_variant(tensors, *, out):
        parts, dim = parts_of(tensors)
        return A.cat__out(parts, dim, out=out)

    def function(tensors, *, out=None):
        _nonempty(name, tensors)   # before dispatching: an empty list has no tensor to pick a backend
        if out is None:
            return getattr(A, name)(list(tensors))
        return getattr(A, f"{name}__out")(list(tensors), out=out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return Op(name, f"""
        {name}(Tensor[] tensors) -> Tensor
        {name}.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)
        """, kernels={name: {CIA: functional}, f"{name}.out": {CIA: out_variant}}, function=function, method=False,
        doc=doc)


def _atleast(name: str, single, doc: str) -> Op:
    def function(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(getattr(A, f"{name}__Sequence")(list(tensors[0])))
        if len(tensors) == 1:
            return getattr(A, name)(tensors[0])
        return tuple(getattr(A, f"{name}__Sequence")(list(tensors)))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return Op(name, f"""
        {name}(Tensor self) -> Tensor
        {name}.Sequence(Tensor[] tensors) -> Tensor[]
        """, kernels={name: {CIA: single}, f"{name}.Sequence": {CIA: lambda tensors: [single(t) for t in tensors]}},
        function=function, method=False, doc=doc)


atleast_1d = _atleast("atleast_1d", _atleast_1d, """The input with at least one dimension (a tuple for several).

    >>> import openreg
    >>> openreg.atleast_1d(openreg.tensor(1.0)).shape
    openreg.Size([1])
    """)
atleast_2d = _atleast("atleast_2d", _atleast_2d, """The input with at least two dimensions (a tuple for several).

    >>> import openreg
    >>> openreg.atleast_2d(openreg.tensor([1.0, 2.0])).shape
    openreg.Size([1, 2])
    """)
atleast_3d = _atleast("atleast_3d", _atleast_3d, """The input with at least three dimensions (a tuple for several).

    >>> import openreg
    >>> openreg.atleast_3d(openreg.ones(2, 3)).shape
    openreg.Size([2, 3, 1])
    """)

hstack = _join("hstack", _hstack_parts, """Concatenate horizontally: along dim 0 for 1-d inputs, else dim 1.

    >>> import openreg
    >>> openreg.hstack([openreg.ones(2, 1), openreg.zeros(2, 2)]).tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """)
vstack = _join("vstack", _vstack_parts, """Concatenate vertically (dim 0) after making every input at least 2-d.

    >>> import openreg
    >>> openreg.vstack([openreg.tensor([1, 2]), openreg.tensor([[3, 4]])]).tolist()
    [[1, 2], [3, 4]]
    """)
row_stack = _join("row_stack", lambda tensors: _vstack_parts(tensors, "row_stack"),
                  """Alias of ``vstack``.

    >>> import openreg
    >>> openreg.row_stack([openreg.tensor([1]), openreg.tensor([2])]).tolist()
    [[1], [2]]
    """)
dstack = _join("dstack", _dstack_parts, """Concatenate depthwise (dim 2) after making every input at least 3-d.

    >>> import openreg
    >>> openreg.dstack([openreg.ones(2, 2), openreg.zeros(2, 2)]).shape
    openreg.Size([2, 2, 2])
    """)
column_stack = _join("column_stack", _column_stack_parts, """Stack 0-d/1-d inputs as columns; join 2-d ones on dim 1.

    >>> import openreg
    >>> openreg.column_stack([openreg.tensor([1, 2]), openreg.tensor([[3], [4]])]).tolist()
    [[1, 3], [2, 4]]
    """)

register(atleast_1d, atleast_2d, atleast_3d, hstack, vstack, row_stack, dstack, column_stack)
