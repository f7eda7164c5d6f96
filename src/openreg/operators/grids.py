"""Grids, arrangements and small queries made of other operators (CompositeImplicitAutograd):
``cartesian_prod``, ``combinations``, ``rot90``, ``fliplr``, ``flipud``, ``ravel``, ``numel``, ``is_nonzero``
and the ``logspace`` factory.

>>> import openreg
>>> openreg.cartesian_prod(openreg.tensor([1, 2]), openreg.tensor([3])).tolist()
[[1, 3], [2, 3]]
"""
from __future__ import annotations

import itertools

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import wrap_dim
from ._record import Op, register

CIA = "CompositeImplicitAutograd"


# -- cartesian_prod, combinations ----------------------------------------------------------------

def _meshgrid_ij(tensors):
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    first = tensors[0]
    for t in tensors[1:]:
        if t._dtype is not first._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != first.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    sizes = [t.numel() for t in tensors]
    out = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = sizes[i]
        out.append(t.reshape(shape).expand(sizes))
    return out


def _check_vector(t) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def _cartesian_prod(tensors):
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid_ij(list(tensors))
    return A.stack([g.reshape(-1) for g in grids], 1)


def cartesian_prod(*tensors):
    """All tuples of one element of each 1-D tensor, as rows (``itertools.product`` order).

    >>> import openreg
    >>> openreg.cartesian_prod(openreg.tensor([1, 2]), openreg.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    return A.cartesian_prod(list(tensors))


cartesian_prod_op = Op("cartesian_prod", """
    cartesian_prod(Tensor[] tensors) -> Tensor
    """, kernels={"cartesian_prod": {CIA: _cartesian_prod}}, function=cartesian_prod, method=False,
    doc="""The Cartesian product of 1-D tensors.

    >>> import openreg
    >>> openreg.ops.aten.cartesian_prod([openreg.tensor([1]), openreg.tensor([2, 3])]).tolist()
    [[1, 2], [1, 3]]
    """)


def _combinations(self, r=2, with_replacement=False):
    _check_vector(self)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return A.empty__memory_format([0], dtype=self._dtype, device=self.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(self.shape[0]), r))
    if not rows:
        return A.empty__memory_format([0, r], dtype=self._dtype, device=self.device)
    from .._array_bridge import wrap_array
    from ._compute import xp_of
    xp = xp_of(self)
    idx = wrap_array(xp.asarray(rows, dtype=xp.int64).reshape(-1), _dt.int64, self.device)
    return A.index_select(self, 0, idx).reshape(len(rows), r)


combinations = Op("combinations", """
    combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor
    """, kernels={"combinations": {CIA: _combinations}},
    doc="""The length-``r`` combinations of a 1-D tensor's elements, as rows (``itertools.combinations``).

    >>> import openreg
    >>> openreg.combinations(openreg.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """)


# -- rot90, fliplr, flipud, ravel ----------------------------------------------------------------------------

def _rot90(self, k=1, dims=(0, 1)):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.dim()}")
    d0, d1 = wrap_dim(dims[0], self.dim()), wrap_dim(dims[1], self.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return A.flip(self, [d1]).transpose(d0, d1)
    if k == 2:
        return A.flip(self, [d0, d1])
    if k == 3:
        return A.flip(self, [d0]).transpose(d0, d1)
    return A.clone(self)


rot90 = Op("rot90", """
    rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor
    """, kernels={"rot90": {CIA: _rot90}},
    doc="""Rotation by ``k`` quarter turns in the plane of ``dims`` (from the first dim towards the second).

    >>> import openreg
    >>> openreg.rot90(openreg.tensor([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """)


def _fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return A.flip(self, [1])


def _flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return A.flip(self, [0])


fliplr = Op("fliplr", """
    fliplr(Tensor self) -> Tensor
    """, kernels={"fliplr": {CIA: _fliplr}},
    doc="""Reverses the columns (dim 1).

    >>> import openreg
    >>> openreg.fliplr(openreg.tensor([[1, 2]])).tolist()
    [[2, 1]]
    """)

flipud = Op("flipud", """
    flipud(Tensor self) -> Tensor
    """, kernels={"flipud": {CIA: _flipud}},
    doc="""Reverses the rows (dim 0).

    >>> import openreg
    >>> openreg.flipud(openreg.tensor([[1], [2]])).tolist()
    [[2], [1]]
    """)

ravel = Op("ravel", """
    ravel(Tensor(a) self) -> Tensor(a)
    """, kernels={"ravel": {CIA: lambda self: self.reshape(-1)}},
    doc="""The elements as a 1-D tensor (a view when the layout allows).

    >>> import openreg
    >>> openreg.ravel(openreg.tensor([[1, 2], [3, 4]])).tolist()
    [1, 2, 3, 4]
    """)


# -- numel, is_nonzero -----------------------------------------------------------------------------------

numel = Op("numel", """
    numel(Tensor self) -> int
    """, kernels={"numel": {CIA: lambda self: self.numel()}}, method=False,
    doc="""The number of elements (``openreg.numel(t)`` is ``t.numel()``).

    >>> import openreg
    >>> openreg.numel(openreg.ones(2, 3))
    6
    """)


def _is_nonzero(self):
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


is_nonzero = Op("is_nonzero", """
    is_nonzero(Tensor self) -> bool
    """, kernels={"is_nonzero": {CIA: _is_nonzero}},
    doc="""Whether a one-element tensor is not zero (more or fewer elements raise, as ``bool(t)``).

    >>> import openreg
    >>> openreg.is_nonzero(openreg.tensor([0.5]))
    True
    """)


# -- logspace ---------------------------------------------------------------------------------------------------

def _logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    exps = A.linspace(start, end, steps, dtype=_dt.float64, device=device)
    result = A.pow__Scalar(float(base), exps)
    target = dtype or _dt.get_default_dtype()
    if not (target.is_floating_point or target.is_complex):
        result = A.round(result)                     # 10.0 ** 2 may be 99.999...: integers round, not truncate
    return result.to(target)


def logspace(start, end, steps: int, base: float = 10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``.

    >>> import openreg
    >>> openreg.logspace(0, 2, 3).tolist(), openreg.logspace(0, 3, 4, base=2, dtype=openreg.int64).tolist()
    ([1.0, 10.0, 100.0], [1, 2, 4, 8])
    """
    from ._formulas import scalar
    start, end = scalar(start), scalar(end)
    if out is not None:
        return A.logspace__out(start, end, steps, base, out=out)
    result = A.logspace(start, end, steps, base, dtype=dtype, layout=layout, device=device)
    return result.requires_grad_() if requires_grad else result


def _logspace_out(start, end, steps, base=10.0, *, out):
    from .linalg import _copy_into
    return _copy_into("logspace", _logspace(start, end, steps, base, dtype=out._dtype, device=out.device), out)


logspace_op = Op("logspace", """
    logspace(Scalar start, Scalar end, int steps, float base=10., *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
    logspace.out(Scalar start, Scalar end, int steps, float base=10., *, Tensor(a!) out) -> Tensor(a!)
    """, kernels={"logspace": {CIA: _logspace}, "logspace.out": {CIA: _logspace_out}},
    function=logspace, method=False,
    doc="""Log-spaced values (``openreg.logspace``).

    >>> import openreg
    >>> openreg.ops.aten.logspace(0, 1, 2).tolist()
    [1.0, 10.0]
    """)

register(cartesian_prod_op, combinations, rot90, fliplr, flipud, ravel, numel, is_nonzero, logspace_op)
