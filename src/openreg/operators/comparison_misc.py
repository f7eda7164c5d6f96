"""Small composites: ``isclose``/``allclose``, ``nan_to_num``, ``one_hot``, ``baddbmm`` and ``einsum``
(contraction by permute/reshape/``bmm``, one pair of operands at a time).

>>> import openreg
>>> a = openreg.tensor([1.0, float("nan")])
>>> openreg.isclose(a, a, equal_nan=True).tolist(), openreg.nan_to_num(a).tolist()
([True, True], [1.0, 0.0])
>>> openreg.einsum("ij,jk->ik", openreg.ones(2, 3), openreg.ones(3, 1)).tolist()
[[3.0], [3.0]]
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.float8_support import is_float8, refuse_float8
from ._record import Op, register


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype} did not match {other._dtype}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    equal = self == other
    if equal_nan and self._dtype.is_floating_point:
        equal = equal | (self.ne(self) & other.ne(other))   # both NaN
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        if self._dtype is _dt.bool:
            return equal
        self, other = self.to(_dt.get_default_dtype()), other.to(_dt.get_default_dtype())
    diff = (self - other).abs()
    finite = diff != math.inf
    close = (diff <= atol + rtol * other.abs()) & finite
    return equal | close


isclose = Op(
    "isclose",
    """
    isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
    """,
    kernels={"isclose": {"CompositeImplicitAutograd": _isclose}},
    doc="""Elementwise ``|self - other| <= atol + rtol * |other|`` (equal infinities are close; NaNs only with
    ``equal_nan``).

    >>> import openreg
    >>> openreg.isclose(openreg.tensor([1.0, 2.0]), openreg.tensor([1.0 + 1e-9, 2.1])).tolist()
    [True, False]
    """,
)


def _allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if self._vmap_levels or other._vmap_levels:       # a bool of batched values
        from .._vmap_batched import refuse
        for t in (self, other):
            refuse(t, "vmap over torch.allclose isn't supported yet. Please file an issue at "
                      "https://github.com/pytorch/pytorch/issues if you need this feature.")
    return bool((A.isclose(self, other, rtol, atol, equal_nan) == 0).sum().item() == 0)


allclose = Op(
    "allclose",
    """
    allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool
    """,
    kernels={"allclose": {"CompositeImplicitAutograd": _allclose}},
    doc="""Whether every element pair is ``isclose``.

    >>> import openreg
    >>> openreg.allclose(openreg.ones(2), openreg.ones(2) + 1e-9)
    True
    """,
)


def _finite_limits(dtype):
    import ml_dtypes
    info = ml_dtypes.finfo(dtype.numpy)
    return float(info.max), float(info.min)


def _nan_to_num_out(result, out):
    from .linalg import _copy_into
    return _copy_into("nan_to_num", result, out)


def _nan_to_num(self, nan=None, posinf=None, neginf=None):
    if is_float8(self._dtype):
        refuse_float8("nan_to_num", self._dtype)
    if not self._dtype.is_floating_point:
        return self.clone()
    hi, lo = _finite_limits(self._dtype)
    out = A.masked_fill__Scalar(self, self.ne(self), 0.0 if nan is None else nan)   # NaN
    out = A.masked_fill__Scalar(out, self == math.inf, hi if posinf is None else posinf)
    return A.masked_fill__Scalar(out, self == -math.inf, lo if neginf is None else neginf)


nan_to_num = Op(
    "nan_to_num",
    """
    nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor
    nan_to_num.out(Tensor self, float? nan=None, float? posinf=None, float? neginf=None, *, Tensor(a!) out) -> Tensor(a!)
    nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor(a!)
    """,
    kernels={"nan_to_num": {"CompositeImplicitAutograd": _nan_to_num},
             "nan_to_num.out": {"CompositeImplicitAutograd": lambda self, nan=None, posinf=None, neginf=None, *, out:
                                _nan_to_num_out(_nan_to_num(self, nan, posinf, neginf), out)},
             "nan_to_num_": {"CompositeImplicitAutograd": lambda self, nan=None, posinf=None, neginf=None:
                             A.copy_(self, _nan_to_num(self, nan, posinf, neginf))}},
    doc="""NaN, +inf and -inf replaced by ``nan`` (0), ``posinf`` and ``neginf`` (the dtype's largest/lowest
    finite values by default).

    >>> import openreg
    >>> openreg.tensor([1e999]).nan_to_num(posinf=7.0).tolist()
    [7.0]
    """,
)


def _one_hot(self, num_classes=-1):
    if self._dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if self.numel() and (self < 0).sum().item():
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if self.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(A.amax(self, []).item()) + 1
    elif self.numel() and (self >= num_classes).sum().item():
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = A.arange(num_classes, device=self.device)
    return (self.unsqueeze(-1) == classes).to(_dt.int64)


one_hot = Op(
    "one_hot",
    """
    one_hot(Tensor self, int num_classes=-1) -> Tensor
    """,
    kernels={"one_hot": {"CompositeImplicitAutograd": _one_hot}},
    function=False, method=False,
    doc="""``int64`` one-hot encoding of class indices (``num_classes`` inferred as max + 1 when -1).

    >>> import openreg
    >>> openreg.ops.aten.one_hot(openreg.tensor([1]), 3).tolist()
    [[0, 1, 0]]
    """,
)


def _baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    prod = A.bmm(batch1, batch2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:          # self is ignored, NaNs included, as PyTorch
        return prod
    return prod + (self if beta == 1 else self * beta)


baddbmm = Op(
    "baddbmm",
    """
    baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    """,
    kernels={"baddbmm": {"CompositeImplicitAutograd": _baddbmm}},
    doc="""``beta * self + alpha * (batch1 @ batch2)`` over the batch (``beta=0`` ignores ``self``, NaNs included).

    >>> import openreg
    >>> openreg.baddbmm(openreg.ones(1, 2, 2), openreg.ones(1, 2, 3), openreg.ones(1, 3, 2), beta=0.5).tolist()
    [[[3.5, 3.5], [3.5, 3.5]]]
    """,
)


# -- einsum ---------------------------------------------------------------------------------------------------

def _parse_einsum(equation: str, operands) -> tuple[list[str], str]:
    """Per-operand subscripts and the output subscripts, ``...`` spelled out as upper-case letters."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(terms) else
                           "einsum(): fewer operands were provided than specified in the equation")
    ell_rank = 0
    for term, t in zip(terms, operands):
        if "..." in term:
            ell_rank = max(ell_rank, t.dim() - (len(term) - 3))
    ell = "".join(chr(ord("A") + i) for i in range(ell_rank))
    subs = []
    for term, t in zip(terms, operands):
        if "..." in term:
            k = t.dim() - (len(term) - 3)
            term = term.replace("...", ell[ell_rank - k:])
        if len(term) != t.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) does not match the "
                               f"number of dimensions ({t.dim()}) for operand {len(subs)}"
                               f"{'' if '...' in eq else ' and no ellipsis was given'}")
        subs.append(term)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for term in subs:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c.islower()))
    return subs, out


def _take_diagonals(t, sub: str):
    """Repeated letters in one operand select its diagonal (``ii->i``)."""
    while len(set(sub)) != len(sub):
        c = next(c for c in sub if sub.count(c) > 1)
        i = sub.index(c)
        j = sub.index(c, i + 1)
        t = t.diagonal(0, i, j)                         # the diagonal becomes the last dim
        sub = sub[:i] + sub[i + 1:j] + sub[j + 1:] + c
        t = t.movedim(-1, i)
        sub = sub[:-1]
        sub = sub[:i] + c + sub[i:]
    return t, sub


def _sum_letters(t, sub: str, keep: set):
    drop = [i for i, c in enumerate(sub) if c not in keep]
    if drop:
        t = t.sum(drop)
        sub = "".join(c for c in sub if c in keep)
    return t, sub


def _contract(a, sa: str, b, sb: str, keep: set):
    batch = [c for c in sa if c in sb and c in keep]
    summed = [c for c in sa if c in sb and c not in keep]
    a_only = [c for c in sa if c not in sb]
    b_only = [c for c in sb if c not in sa]
    size = {}
    for t, s in ((a, sa), (b, sb)):
        for c, n in zip(s, t.shape):
            size[c] = max(size.get(c, 1), n)
    a = a.permute([sa.index(c) for c in batch + a_only + summed])
    b = b.permute([sb.index(c) for c in batch + summed + b_only])
    a = a.expand([size[c] for c in batch] + list(a.shape[len(batch):len(batch) + len(a_only)])
                 + [size[c] for c in summed])
    b = b.expand([size[c] for c in batch + summed] + list(b.shape[len(batch) + len(summed):]))

    def prod(cs):
        p = 1
        for c in cs:
            p *= size[c] if c in batch or c in summed else 1
        return p

    nb = 1
    for c in batch:
        nb *= size[c]
    m = 1
    for n in a.shape[len(batch):len(batch) + len(a_only)]:
        m *= n
    k = prod(summed)
    nn = 1
    for n in b.shape[len(batch) + len(summed):]:
        nn *= n
    out = A.bmm(a.reshape([nb, m, k]), b.reshape([nb, k, nn]))
    shape = [size[c] for c in batch] + list(a.shape[len(batch):len(batch) + len(a_only)]) + \
        list(b.shape[len(batch) + len(summed):])
    return out.reshape(shape), "".join(batch + a_only + b_only)


def _einsum(equation, tensors, *, path=None):
    tensors = list(tensors)
    subs, out = _parse_einsum(equation, tensors)
    ops_ = []
    for i, (t, s) in enumerate(zip(tensors, subs)):
        t, s = _take_diagonals(t, s)
        later = set(out).union(*[set(x) for j, x in enumerate(subs) if j != i])
        t, s = _sum_letters(t, s, later)
        ops_.append((t, s))
    t, s = ops_[0]
    for i in range(1, len(ops_)):
        keep = set(out).union(*[set(x) for _, x in ops_[i + 1:]])
        t, s = _contract(t, s, ops_[i][0], ops_[i][1], keep)
    t, s = _sum_letters(t, s, set(out))
    if sorted(s) != sorted(out):
        missing = [c for c in out if c not in s]
        raise RuntimeError(f"einsum(): output subscript {missing[0]} does not appear in the equation for any input "
                           f"operand")
    return t.permute([s.index(c) for c in out]) if s != out else t


def _einsum_fn(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return A.einsum(equation, list(operands))


einsum = Op(
    "einsum",
    """
    einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
    """,
    kernels={"einsum": {"CompositeImplicitAutograd": _einsum}},
    function=_einsum_fn, method=False,
    doc="""Einstein summation (``...`` broadcasting, diagonals of repeated letters), contracted pairwise through
    ``bmm``.

    >>> import openreg
    >>> openreg.einsum("bij,bjk->bik", openreg.ones(2, 2, 3), openreg.ones(2, 3, 4)).shape
    openreg.Size([2, 2, 4])
    """,
)

register(isclose, allclose, nan_to_num, one_hot, baddbmm, einsum)
