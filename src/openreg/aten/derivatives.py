"""The derivatives table: backward (VJP) and forward (JVP) formulas of every differentiable operator.

One entry per operator overload, keyed by PyTorch's name (``"aten::mul.Tensor"``), JAX/PyTorch style: a
formula per differentiable input, written with tensor ops so that it is itself differentiable (double
backward). Backward formulas get the output gradient ``g`` (a list for multi-output ops) and ``a``, the op's
arguments (``a.self``, ``a.other``, ``a.result``, ``a.dim``; ``a.size_of("self")`` for metadata of tensors that are
not saved). Gradients may have the broadcast shape or another float dtype: the engine reduces and casts them.
Forward formulas get one input's tangent ``t`` and ``a``; absent tangents are symbolic zeros (skipped).
``pointwise=True`` reuses the backward formula as the JVP (true for elementwise ops), ``linear=True`` applies
the op itself to the tangent (views, reductions, copies).

>>> from openreg.aten.derivatives import DERIVATIVES
>>> DERIVATIVES["aten::mul.Tensor"].name, sorted(DERIVATIVES["aten::mul.Tensor"].bwd)
('MulBackward0', ['other', 'self'])
"""
from __future__ import annotations

from collections.abc import Callable

from .._dispatch.ops import ops
from ..tensor import Tensor


class Derivative:
    """One table entry."""

    __slots__ = ("bwd", "error", "jvp", "jvp_uses_self", "name", "nondiff", "op", "save")

    def __init__(self, op: str, name: str, save: tuple, bwd: dict, jvp: dict | None, nondiff: bool = False,
                 jvp_uses_self: bool = True, error: str | None = None) -> None:
        self.op, self.name, self.save, self.bwd, self.jvp, self.nondiff = op, name, save, bwd, jvp, nondiff
        self.jvp_uses_self = jvp_uses_self
        self.error = error   # raised at forward time when an input requires grad (e.g. resize_)

    def __repr__(self) -> str:
        return f"Derivative({self.op}, {self.name})"


DERIVATIVES: dict[str, Derivative] = {}


def node_name(op: str, index: int) -> str:
    """PyTorch's graph node name: ``node_name("aten::hypot_", 0)`` is ``"HypotBackward0"``."""
    base = op.split("::")[-1].split(".")[0].strip("_")
    return "".join(p[:1].upper() + p[1:] for p in base.split("_") if p) + f"Backward{index}"



_overloads: dict = {}


def _overload(op: str):
    fn = _overloads.get(op)
    if fn is None:
        name = op.split("::")[-1]
        packet, _, ov = name.partition(".")
        fn = _overloads[op] = getattr(getattr(ops.aten, packet), ov or "default")
    return fn


def defderiv(op: str, *, save: str = "", index: int = 0, name: str | None = None, pointwise: bool = False,
             linear: bool = False, jvp: dict | None = None, **bwd: Callable) -> None:
    """Add a table entry for ``op`` (``"aten::name.overload"``); ``bwd`` maps input names to VJP formulas."""
    if pointwise:
        jvp = dict(bwd)
    elif linear:
        jvp = {n: _linear_jvp(op, n) for n in bwd}
    uses_self = "self" in save.split()
    DERIVATIVES[op] = Derivative(op, name or node_name(op, index), tuple(save.split()), bwd, jvp,
                                 jvp_uses_self=uses_self)


def nondiff(*names: str) -> None:
    """Ops whose outputs never require grad (random/like factories, sign-like steps)."""
    for op in names:
        DERIVATIVES[op] = Derivative(op, node_name(op, 0), (), {}, {}, nondiff=True)


def forbid(message: str, *names: str) -> None:
    """Ops that refuse to run on inputs requiring grad (PyTorch raises in their autograd kernel)."""
    for op in names:
        DERIVATIVES[op] = Derivative(op, node_name(op, 0), (), {}, None, error=message)


def _linear_jvp(op: str, arg: str):
    def jvp(t, a):
        overload = _overload(op)
        schema = overload._schema
        kwargs = {}
        for x in schema.arguments:
            kwargs[x.name] = t if x.name == arg else getattr(a, x.name)
        return overload(**kwargs)
    return jvp


# -- helpers (all through tensor ops, so formulas are differentiable) ---------------------------------

def _A(name: str):
    return _overload("aten::" + name)


def _zeros(size, like: Tensor) -> Tensor:
    from ..tensor import contiguous_strides
    out = _A("empty_strided")(tuple(size), contiguous_strides(tuple(size)), dtype=like.dtype, device=like.device)
    return _A("zero_")(out)


def _mask(cond: Tensor, like: Tensor) -> Tensor:
    return cond.to(like.dtype)


def _sign(x: Tensor) -> Tensor:
    return _mask(x > 0, x) - _mask(x < 0, x)


def _dims(dim, ndim: int) -> list:
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(d % ndim if ndim else 0 for d in dims)


def _unreduce(g: Tensor, size, dim, keepdim: bool) -> Tensor:
    """Expand a reduction's gradient back to the input size."""
    size = tuple(size)
    if not keepdim and len(size):
        for d in _dims(dim, len(size)):
            g = g.unsqueeze(d)
    return g.expand(size)


def _numel(size, dims=None) -> int:
    n = 1
    for i, s in enumerate(size):
        if dims is None or i in dims:
            n *= s
    return n


def _scalar(x):
    return x.item() if isinstance(x, Tensor) else x


# -- pointwise unary ------------------------------------------------------------------------------------

def _unary(name: str, save: str, f, index: int = 0) -> None:
    for op in (f"aten::{name}", f"aten::{name}_"):
        defderiv(op, save=save, pointwise=True, index=index, name=node_name(f"aten::{name}", index), self=f)


_unary("abs", "self", lambda g, a: g * _sign(a.self))
_unary("neg", "", lambda g, a: -g)
_unary("exp", "result", lambda g, a: g * a.result)
_unary("log", "self", lambda g, a: g / a.self)
_unary("sqrt", "result", lambda g, a: g / (a.result * 2))
_unary("rsqrt", "result", lambda g, a: g * a.result * a.result * a.result * -0.5)
_unary("sin", "self", lambda g, a: g * a.self.cos())
_unary("cos", "self", lambda g, a: -(g * a.self.sin()))
_unary("tanh", "result", lambda g, a: g * (1 - a.result * a.result))
_unary("sigmoid", "result", lambda g, a: g * a.result * (1 - a.result))
# threshold_backward(g, result, 0): zero where result <= 0, so a NaN result passes its gradient (as PyTorch)
_unary("relu", "result", lambda g, a: _A("where.ScalarSelf")(a.result <= 0, 0, g))
_unary("reciprocal", "result", lambda g, a: -(g * a.result * a.result))


def _clamp_grad(g, a):
    x = a.self
    keep = None
    lo, hi = getattr(a, "min", None), getattr(a, "max", None)
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        k2 = x <= hi
        keep = k2 if keep is None else _mask(keep, x) * _mask(k2, x) > 0
    return g if keep is None else g * _mask(keep, g)


for _op in ("aten::clamp", "aten::clamp_"):
    defderiv(_op, save="self", pointwise=True, name="ClampBackward1", self=_clamp_grad)
for _op in ("aten::clamp.Tensor", "aten::clamp_.Tensor"):
    defderiv(_op, save="self min max", name="ClampBackward0", pointwise=True, self=_clamp_grad,
             min=lambda g, a: g * _mask(a.self < a.min, g),
             max=lambda g, a: g * _mask(a.self > a.max, g))


def _pow_scalar_grad(g, a):
    e = _scalar(a.exponent)
    if e == 0:
        return g * 0
    return g * e * a.self.pow(e - 1)


for _op in ("aten::pow.Tensor_Scalar", "aten::pow_.Scalar"):
    defderiv(_op, save="self", pointwise=True, name="PowBackward0", self=_pow_scalar_grad)


def _pow_tt_exp(g, a):
    base, res = a.self, a.result
    logb = _A("where.self")(base > 0, base, _zeros((), base) + 1).log() if _has("where.self") else base.log()
    return g * res * logb


for _op in ("aten::pow.Tensor_Tensor", "aten::pow_.Tensor"):
    defderiv(_op, save="self exponent result", pointwise=True, name="PowBackward1",
             self=lambda g, a: g * a.exponent * a.self.pow(a.exponent - 1), exponent=_pow_tt_exp)
defderiv("aten::pow.Scalar", save="result", pointwise=True, name="PowBackward2",
         exponent=lambda g, a: g * a.result * _log_scalar(a.self))


def _log_scalar(x) -> float:
    import math
    return math.log(_scalar(x))


def _has(name: str) -> bool:
    from .._dispatch import dispatcher
    return dispatcher.find("aten::" + name) is not None


# -- pointwise binary -----------------------------------------------------------------------------------

for _op in ("aten::add.Tensor", "aten::add_.Tensor"):
    defderiv(_op, pointwise=True, name="AddBackward0", self=lambda g, a: g, other=lambda g, a: g * a.alpha
             if _scalar(a.alpha) != 1 else g)
for _op in ("aten::add.Scalar", "aten::add_.Scalar"):
    defderiv(_op, pointwise=True, name="AddBackward0", self=lambda g, a: g)
for _op in ("aten::sub.Tensor", "aten::sub_.Tensor"):
    defderiv(_op, pointwise=True, name="SubBackward0", self=lambda g, a: g,
             other=lambda g, a: -(g * a.alpha) if _scalar(a.alpha) != 1 else -g)
for _op in ("aten::sub.Scalar", "aten::sub_.Scalar"):
    defderiv(_op, pointwise=True, name="SubBackward0", self=lambda g, a: g)
defderiv("aten::rsub.Tensor", pointwise=True, name="RsubBackward0", self=lambda g, a: -(g * a.alpha),
         other=lambda g, a: g)
defderiv("aten::rsub.Scalar", pointwise=True, name="RsubBackward1", self=lambda g, a: -(g * a.alpha))
for _op in ("aten::mul.Tensor", "aten::mul_.Tensor"):
    defderiv(_op, save="self other", pointwise=True, name="MulBackward0", self=lambda g, a: g * a.other,
             other=lambda g, a: g * a.self)
for _op in ("aten::mul.Scalar", "aten::mul_.Scalar"):
    defderiv(_op, pointwise=True, name="MulBackward0", self=lambda g, a: g * a.other)
for _op in ("aten::div.Tensor", "aten::div_.Tensor"):
    defderiv(_op, save="self other", pointwise=True, name="DivBackward0", self=lambda g, a: g / a.other,
             other=lambda g, a: -(g * a.self) / (a.other * a.other))
for _op in ("aten::div.Scalar", "aten::div_.Scalar"):
    defderiv(_op, pointwise=True, name="DivBackward0", self=lambda g, a: g / a.other)


def _div_mode_check(g, a):
    if a.rounding_mode is None:
        return g / a.other
    return g * 0


for _op in ("aten::div.Tensor_mode", "aten::div_.Tensor_mode"):
    defderiv(_op, save="self other", pointwise=True, name="DivBackward2", self=_div_mode_check,
             other=lambda g, a: -(g * a.self) / (a.other * a.other) if a.rounding_mode is None else g * 0)


def _max_min(greater: bool):
    def self_grad(g, a):
        x, y = a.self, a.other
        win = (x > y) if greater else (x < y)
        return g * (_mask(win, g) + _mask(x == y, g) * 0.5)

    def other_grad(g, a):
        x, y = a.self, a.other
        win = (y > x) if greater else (y < x)
        return g * (_mask(win, g) + _mask(x == y, g) * 0.5)
    return self_grad, other_grad


_mx, _my = _max_min(True)
defderiv("aten::maximum", save="self other", pointwise=True, self=_mx, other=_my)
_nx, _ny = _max_min(False)
defderiv("aten::minimum", save="self other", pointwise=True, self=_nx, other=_ny)
defderiv("aten::where.self", save="condition", pointwise=True,
         self=lambda g, a: g * _mask(a.condition, g), other=lambda g, a: g * (1 - _mask(a.condition, g)))
nondiff("aten::sign", "aten::sign_", "aten::floor", "aten::ceil", "aten::round", "aten::trunc",
        "aten::zeros_like", "aten::ones_like", "aten::empty_like", "aten::full_like", "aten::rand_like",
        "aten::randn_like", "aten::detach", "aten::floor_divide", "aten::bernoulli", "aten::bernoulli_.float",
        "aten::uniform_", "aten::normal_", "aten::random_", "aten::rand", "aten::randn")
# boolean results (output_differentiability False in PyTorch): a direct autograd kernel instead of the boxed fallback
nondiff(*(f"aten::{c}.{k}" for c in ("eq", "ne", "lt", "le", "gt", "ge") for k in ("Scalar", "Tensor")))
def _remainder_other(g, a):
    return -(g * _A("div.Tensor_mode")(a.self, a.other, rounding_mode="floor"))


defderiv("aten::remainder.Tensor", save="self other", name="RemainderBackward1", pointwise=True,
         self=lambda g, a: g, other=_remainder_other)
defderiv("aten::remainder.Scalar", name="RemainderBackward0", pointwise=True, self=lambda g, a: g)

# -- reductions -------------------------------------------------------------------------------------------

defderiv("aten::sum", linear=True, self=lambda g, a: g.expand(a.size_of("self")))
defderiv("aten::sum.dim_IntList", linear=True, index=1,
         self=lambda g, a: _unreduce(g, a.size_of("self"), a.dim, a.keepdim))
defderiv("aten::mean", linear=True,
         self=lambda g, a: g.expand(a.size_of("self")) / max(_numel(a.size_of("self")), 1))
defderiv("aten::mean.dim", linear=True, index=1,
         self=lambda g, a: _unreduce(g, a.size_of("self"), a.dim, a.keepdim)
         / max(_numel(a.size_of("self"), _dims(a.dim, len(a.size_of("self")))), 1))


def _prod_others(x, dim=None):
    """d prod / dx_i = product of the other elements, also when ``x`` holds zeros (no division by zero)."""
    z = _mask(x == 0, x)
    x_nz = x + z
    if dim is None:
        count, p = z.sum(), x_nz.prod()
    else:
        count, p = z.sum(dim, True), x_nz.prod(dim, True)
    return _mask(count == 0, x) * p / x_nz + _mask(count == 1, x) * z * p


def _prod_grad(g, a):
    size = a.size_of("self")
    if a.self.numel() == 0:
        return g.expand(size)
    return g.expand(size) * _prod_others(a.self)


def _prod_dim_grad(g, a):
    size = a.size_of("self")
    if len(size) == 0:
        return g
    return _unreduce(g, size, a.dim, a.keepdim) * _prod_others(a.self, a.dim)


defderiv("aten::prod", save="self result", self=_prod_grad,
         jvp={"self": lambda t, a: (t * _prod_grad(_ones_like_result(a), a)).sum()})
defderiv("aten::prod.dim_int", save="self result", index=1, self=_prod_dim_grad,
         jvp={"self": lambda t, a: (t * _prod_dim_grad(_ones_like_result(a), a)).sum(a.dim, a.keepdim)})


def _ones_like_result(a):
    r = a.result
    return r * 0 + 1


def _amax_grad(g, a):
    size = a.size_of("self")
    dims = _dims(a.dim, len(size))
    res = _unreduce(a.result, size, dims, a.keepdim)
    mask = _mask(a.self == res, a.self)
    count = mask.sum(dims, True) if len(size) else mask
    return _unreduce(g, size, dims, a.keepdim) * mask / count


def _amax_jvp(t, a):
    size = a.size_of("self")
    dims = _dims(a.dim, len(size))
    res = _unreduce(a.result, size, dims, a.keepdim)
    mask = _mask(a.self == res, a.self)
    if not len(size):
        return t
    return (t * mask).sum(dims, a.keepdim) / mask.sum(dims, a.keepdim)


defderiv("aten::amax", save="self result", self=_amax_grad, jvp={"self": _amax_jvp})
defderiv("aten::amin", save="self result", self=_amax_grad, jvp={"self": _amax_jvp})


def _softmax_grad(g, a):
    y = a.result
    gy = g * y
    return gy - y * gy.sum(a.dim, True)


def _log_softmax_grad(g, a):
    y = a.result
    return _A("_log_softmax_backward_data")(g, y, a.dim, y.dtype)


defderiv("aten::_softmax", save="result", name="SoftmaxBackward0", self=_softmax_grad,
         jvp={"self": lambda t, a: a.result * (t - (t * a.result).sum(a.dim, True))})
defderiv("aten::_log_softmax", save="result", name="LogSoftmaxBackward0", self=_log_softmax_grad,
         jvp={"self": lambda t, a: t - (t * a.result.exp()).sum(a.dim, True)})
defderiv("aten::softmax.int", save="result", name="SoftmaxBackward0", self=_softmax_grad,
         jvp={"self": lambda t, a: a.result * (t - (t * a.result).sum(a.dim, True))})
defderiv("aten::log_softmax.int", save="result", name="LogSoftmaxBackward0", self=_log_softmax_grad,
         jvp={"self": lambda t, a: t - (t * a.result.exp()).sum(a.dim, True)})

# -- linear algebra ------------------------------------------------------------------------------------------

def _mat2_grad(mat1, g, mat2_stride):
    """``mat1.T @ g`` computed in the layout of ``mat2`` (PyTorch's mm_mat2_backward): for a transposed
    ``mat2`` (e.g. ``weight.t()``) the result is a transposed view, whose ``.t()`` is the dense gradient."""
    if len(mat2_stride) == 2 and mat2_stride[0] == 1 and mat2_stride[1] != 1:
        return g.t().mm(mat1).t()
    return mat1.t().mm(g)


defderiv("aten::mm", save="self mat2", self=lambda g, a: g.mm(a.mat2.t()),
         mat2=lambda g, a: _mat2_grad(a.self, g, a.stride_of("mat2")),
         jvp={"self": lambda t, a: t.mm(a.mat2), "mat2": lambda t, a: a.self.mm(t)})
defderiv("aten::bmm", save="self mat2", self=lambda g, a: g.bmm(a.mat2.transpose(1, 2)),
         mat2=lambda g, a: a.self.transpose(1, 2).bmm(g),
         jvp={"self": lambda t, a: t.bmm(a.mat2), "mat2": lambda t, a: a.self.bmm(t)})


def _scaled(x, s):
    s = _scalar(s)
    return x if s == 1 else x * s


for _op in ("aten::addmm", "aten::addmm_"):
    defderiv(_op, save="mat1 mat2", name="AddmmBackward0", self=lambda g, a: _scaled(g, a.beta),
             mat1=lambda g, a: _scaled(g.mm(a.mat2.t()), a.alpha),
             mat2=lambda g, a: _scaled(_mat2_grad(a.mat1, g, a.stride_of("mat2")), a.alpha),
             jvp={"self": lambda t, a: _scaled(t, a.beta), "mat1": lambda t, a: _scaled(t.mm(a.mat2), a.alpha),
                  "mat2": lambda t, a: _scaled(a.mat1.mm(t), a.alpha)})
defderiv("aten::dot", save="self tensor", self=lambda g, a: g * a.tensor, tensor=lambda g, a: g * a.self,
         jvp={"self": lambda t, a: (t * a.tensor).sum(), "tensor": lambda t, a: (a.self * t).sum()})
defderiv("aten::outer", save="self vec2", self=lambda g, a: (g * a.vec2).sum(1),
         vec2=lambda g, a: (g * a.self.unsqueeze(1)).sum(0),
         jvp={"self": lambda t, a: t.unsqueeze(1) * a.vec2, "vec2": lambda t, a: a.self.unsqueeze(1) * t})


def _matmul_self(g, a):
    x, y = a.self, a.other
    if x.dim() == 1 and y.dim() == 1:
        return g * y
    if y.dim() == 1:
        return g.unsqueeze(-1) * y
    if x.dim() == 1:
        return (g.unsqueeze(-2).matmul(y.transpose(-1, -2))).squeeze(-2)
    return g.matmul(y.transpose(-1, -2))


def _matmul_other(g, a):
    x, y = a.self, a.other
    if x.dim() == 1 and y.dim() == 1:
        return g * x
    if x.dim() == 1:
        return x.unsqueeze(-1) * g.unsqueeze(-2)
    if y.dim() == 1:
        r = x.transpose(-1, -2).matmul(g.unsqueeze(-1)).squeeze(-1)
        return r.reshape(-1, y.shape[0]).sum(0) if r.dim() > 1 else r
    return x.transpose(-1, -2).matmul(g)


defderiv("aten::matmul", save="self other", self=_matmul_self, other=_matmul_other,
         jvp={"self": lambda t, a: t.matmul(a.other), "other": lambda t, a: a.self.matmul(t)})

# -- views and shape ops -------------------------------------------------------------------------------------

defderiv("aten::view", linear=True, self=lambda g, a: g.reshape(a.size_of("self")))
defderiv("aten::_unsafe_view", linear=True, self=lambda g, a: g.reshape(a.size_of("self")))
defderiv("aten::reshape", linear=True, name="ViewBackward0", self=lambda g, a: g.reshape(a.size_of("self")))
defderiv("aten::view_as", linear=True, name="ViewBackward0", self=lambda g, a: g.reshape(a.size_of("self")))
defderiv("aten::alias", linear=True, self=lambda g, a: g)
defderiv("aten::flatten.using_ints", linear=True, name="ViewBackward0",
         self=lambda g, a: g.reshape(a.size_of("self")))
defderiv("aten::unflatten.int", linear=True, name="ViewBackward0", self=lambda g, a: g.reshape(a.size_of("self")))
defderiv("aten::t", linear=True, self=lambda g, a: g.t())
defderiv("aten::transpose.int", linear=True, self=lambda g, a: g.transpose(a.dim0, a.dim1))
defderiv("aten::movedim.int", linear=True, self=lambda g, a: g.movedim(a.destination, a.source))


def _inverse_perm(dims, ndim: int) -> list:
    dims = [d % ndim for d in dims]
    inv = [0] * ndim
    for i, d in enumerate(dims):
        inv[d] = i
    return inv


defderiv("aten::permute", linear=True, self=lambda g, a: g.permute(_inverse_perm(a.dims, len(a.size_of("self")))))


def _sum_to(g, size):
    from ..autograd._ops import sum_to
    return sum_to(g, size)


defderiv("aten::expand", linear=True, self=lambda g, a: _sum_to(g, a.size_of("self")))
defderiv("aten::expand_as", linear=True, name="ExpandBackward0", self=lambda g, a: _sum_to(g, a.size_of("self")))
for _op, _i in (("aten::squeeze", 0), ("aten::squeeze.dim", 1), ("aten::squeeze.dims", 2),
                ("aten::unsqueeze", 0)):
    defderiv(_op, linear=True, index=_i, self=lambda g, a: g.reshape(a.size_of("self")))


def _scatter_into_zeros(view_fn):
    """Backward of a view that selects part of its input: zeros with the slice set to the gradient."""
    def bwd(g, a):
        z = _zeros(a.size_of("self"), g)
        view_fn(z, a).copy_(g)
        return z
    return bwd


defderiv("aten::narrow", linear=True, self=_scatter_into_zeros(lambda z, a: z.narrow(a.dim, a.start, a.length)))
defderiv("aten::select.int", linear=True,
         self=_scatter_into_zeros(lambda z, a: _A("select.int")(z, a.dim, a.index)))
defderiv("aten::slice.Tensor", linear=True,
         self=_scatter_into_zeros(lambda z, a: _A("slice.Tensor")(z, a.dim, a.start, a.end, a.step)))
defderiv("aten::diagonal", linear=True,
         self=_scatter_into_zeros(lambda z, a: _A("diagonal")(z, a.offset, a.dim1, a.dim2)))


def _overlaps(size, stride) -> bool:
    dims = sorted((st, sz) for sz, st in zip(size, stride) if sz != 1)
    extent = 0
    for st, sz in dims:
        if sz == 0:
            return False
        if st <= extent:
            return True
        extent += st * (sz - 1)
    return False


def _storage_index(size, stride, offset: int, device):
    """Int64 tensor of ``size`` holding each element's storage index."""
    import numpy as np
    idx = np.full(tuple(size), offset, dtype=np.int64)
    for d, (sz, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = sz
        idx = idx + (np.arange(sz, dtype=np.int64) * st).reshape(shape)
    from ..factories import tensor
    return tensor(idx.reshape(-1).tolist(), dtype=None, device=device).view(tuple(size)) if idx.size else \
        tensor([], device=device)


def _as_strided_grad(g, a):
    """Gradient of ``as_strided``: scatter-add the output gradient into the storage positions it came from,
    then read them back in the input's geometry (divided by the aliasing count when the input overlaps)."""
    from ..autograd._ops import zeros_with_geometry
    in_size, in_stride, in_off = a.size_of("self"), a.stride_of("self"), a.meta_of("self")[4]
    out_off = a.storage_offset if a.storage_offset is not None else in_off
    out_size, out_stride = tuple(a.size), tuple(a.stride)
    if not _overlaps(out_size, out_stride) and not _overlaps(in_size, in_stride) and out_off >= in_off:
        buf = zeros_with_geometry(g, in_size, in_stride)
        _A("as_strided")(buf, out_size, out_stride, out_off - in_off).copy_(g)
        return buf
    base = min(in_off, out_off)

    def extent(size, stride, off):
        return off - base + sum((sz - 1) * st for sz, st in zip(size, stride) if sz > 0) + 1
    n = max(extent(in_size, in_stride, in_off), extent(out_size, out_stride, out_off))
    flat = _zeros((n,), g)
    out_idx = _storage_index(out_size, out_stride, out_off - base, g.device)
    flat = _A("index_put")(flat, [out_idx.reshape(-1)], g.reshape(-1), True)
    in_idx = _storage_index(in_size, in_stride, in_off - base, g.device)
    res = _A("index.Tensor")(flat, [in_idx.reshape(-1)]).reshape(in_size)
    if _overlaps(in_size, in_stride):
        ones = _zeros((in_idx.numel(),), g) + 1
        count = _A("index_put")(_zeros((n,), g), [in_idx.reshape(-1)], ones, True)
        res = res / _A("index.Tensor")(count, [in_idx.reshape(-1)]).reshape(in_size)
    return res


defderiv("aten::as_strided", linear=True, self=_as_strided_grad)


def _fill_missing(g: list, a) -> list:
    return [x if x is not None else _zeros(m[0], _proto(g)).to(m[1]) for x, m in zip(g, a.out_meta)]


def _proto(g: list):
    return next(x for x in g if x is not None)


defderiv("aten::unbind.int", linear=True, self=lambda g, a: _A("stack")(_fill_missing(g, a), a.dim))
for _op in ("aten::split.Tensor", "aten::split_with_sizes", "aten::chunk"):
    defderiv(_op, linear=True, self=lambda g, a: _A("cat")(_fill_missing(g, a), a.dim))


def _cat_grad(g, a):
    out, off = [], 0
    dim = a.dim
    for m in a.meta_of("tensors"):
        size = m[0]
        if len(size) == 1 and size[0] == 0 and g.dim() != 1:
            out.append(None)
            continue
        d = dim % g.dim()
        out.append(g.narrow(d, off, size[d]))
        off += size[d]
    return out


def _list_tangents(ts: list, a, name: str) -> list:
    return [t if t is not None else _zeros(m[0], _proto(ts)).to(m[1]) for t, m in zip(ts, a.meta_of(name))]


DERIVATIVES["aten::cat"] = Derivative("aten::cat", "CatBackward0", (), {"tensors": _cat_grad},
                                      {"tensors": lambda t, a: _A("cat")(_list_tangents(t, a, "tensors"), a.dim)})
DERIVATIVES["aten::stack"] = Derivative(
    "aten::stack", "StackBackward0", (), {"tensors": lambda g, a: list(g.unbind(a.dim))},
    {"tensors": lambda t, a: _A("stack")(_list_tangents(t, a, "tensors"), a.dim)})

# -- copies -------------------------------------------------------------------------------------------------

defderiv("aten::clone", linear=True, self=lambda g, a: g)
defderiv("aten::contiguous", linear=True, name="CloneBackward0", self=lambda g, a: g)
defderiv("aten::_to_copy", linear=True, self=lambda g, a: g.to(device=a.device_of("self"), dtype=a.dtype_of("self")))
defderiv("aten::copy_", name="CopyBackwards", self=lambda g, a: None,
         src=lambda g, a: g.to(device=a.device_of("src"), dtype=a.dtype_of("src")),
         jvp={"src": lambda t, a: t.to(device=a.device_of("self"), dtype=a.dtype_of("self"))})
defderiv("aten::fill_.Scalar", name="FillBackward0", self=lambda g, a: None, jvp={})
defderiv("aten::fill_.Tensor", name="FillBackward1", self=lambda g, a: None, value=lambda g, a: g.sum(),
         jvp={"value": lambda t, a: t.expand(a.size_of("self"))})
defderiv("aten::fill.Scalar", name="FillBackward0", self=lambda g, a: None, jvp={})
defderiv("aten::zero_", name="ZeroBackward0", self=lambda g, a: None, jvp={})

# -- indexing (defined by other modules; registered when present) ----------------------------------------

defderiv("aten::masked_fill.Scalar", save="mask", pointwise=True,
         self=lambda g, a: g * (1 - _mask(a.mask, g)))
defderiv("aten::masked_fill_.Scalar", save="mask", pointwise=True, name="MaskedFillBackward0",
         self=lambda g, a: g * (1 - _mask(a.mask, g)))


def _index_grad(g, a):
    z = _zeros(a.size_of("self"), g)
    return _A("index_put")(z, a.indices, g, True)


defderiv("aten::index.Tensor", save="indices", self=_index_grad,
         jvp={"self": lambda t, a: _A("index.Tensor")(t, a.indices)})


def _gather_grad(g, a):
    z = _zeros(a.size_of("self"), g)
    return _A("scatter_add")(z, a.dim, a.index, g)


defderiv("aten::gather", save="index", self=_gather_grad,
         jvp={"self": lambda t, a: _A("gather")(t, a.dim, a.index)})


# -- losses (aten/loss_ops.py) ------------------------------------------------------------------------------

def _nll_loss_grad(g, a):
    if g[0] is None:
        return None
    return _A("nll_loss_backward")(g[0], a.self, a.target, a.weight, a.reduction, a.ignore_index, a.result[1])


def _nll_loss_jvp(t, a):
    return [_A("nll_loss_forward")(t, a.target, a.weight, a.reduction, a.ignore_index)[0], None]


defderiv("aten::nll_loss_forward", save="self target weight result", name="NllLossBackward0", self=_nll_loss_grad,
         jvp={"self": _nll_loss_jvp})
defderiv("aten::nll_loss_backward", save="target weight", name="NllLossBackwardBackward0",
         grad_output=lambda g, a: _A("nll_loss_forward")(g, a.target, a.weight, a.reduction, a.ignore_index)[0],
         jvp={"grad_output": lambda t, a: _A("nll_loss_backward")(t, a.self, a.target, a.weight, a.reduction,
                                                                  a.ignore_index, a.total_weight)})


def _lsbd_output_grad(g, a):
    """``y = go - exp(out) * go.sum(dim)``: ``dL/dout = -g * exp(out) * go.sum(dim)``."""
    return -(g * a.output.exp() * a.grad_output.sum(a.dim, True))


defderiv("aten::_log_softmax_backward_data", save="grad_output output", name="LogSoftmaxBackwardDataBackward0",
         grad_output=lambda g, a: g - (g * a.output.exp()).sum(a.dim, True), output=_lsbd_output_grad,
         jvp={"grad_output": lambda t, a: _A("_log_softmax_backward_data")(t, a.output, a.dim, a.input_dtype),
              "output": _lsbd_output_grad})


# -- more pointwise overloads ---------------------------------------------------------------------------

for _op in ("aten::clamp_min", "aten::clamp_min_"):
    defderiv(_op, save="self", pointwise=True, name="ClampMinBackward0",
             self=lambda g, a: g * _mask(a.self >= a.min, g))
for _op in ("aten::clamp_max", "aten::clamp_max_"):
    defderiv(_op, save="self", pointwise=True, name="ClampMaxBackward0",
             self=lambda g, a: g * _mask(a.self <= a.max, g))
for _op in ("aten::clamp_min.Tensor", "aten::clamp_min_.Tensor"):
    defderiv(_op, save="self min", pointwise=True, name="ClampMinBackward1",
             self=lambda g, a: g * _mask(a.self >= a.min, g), min=lambda g, a: g * _mask(a.self < a.min, g))
for _op in ("aten::clamp_max.Tensor", "aten::clamp_max_.Tensor"):
    defderiv(_op, save="self max", pointwise=True, name="ClampMaxBackward1",
             self=lambda g, a: g * _mask(a.self <= a.max, g), max=lambda g, a: g * _mask(a.self > a.max, g))
for _op in ("aten::div.Scalar_mode", "aten::div_.Scalar_mode"):
    defderiv(_op, pointwise=True, name="DivBackward3",
             self=lambda g, a: g / a.other if a.rounding_mode is None else g * 0)
defderiv("aten::where.ScalarOther", save="condition", pointwise=True, name="WhereBackward0",
         self=lambda g, a: g * _mask(a.condition, g))
defderiv("aten::where.ScalarSelf", save="condition", pointwise=True, name="WhereBackward0",
         other=lambda g, a: g * (1 - _mask(a.condition, g)))
defderiv("aten::remainder_.Tensor", save="self other", pointwise=True, name="RemainderBackward1",
         self=lambda g, a: g, other=_remainder_other)
defderiv("aten::remainder_.Scalar", pointwise=True, name="RemainderBackward0", self=lambda g, a: g)
defderiv("aten::remainder.Scalar_Tensor", save="other", pointwise=True, name="RemainderBackward2",
         other=lambda g, a: -(g * _A("div.Tensor_mode")(a.other * 0 + a.self, a.other, rounding_mode="floor")))
nondiff("aten::floor_divide", "aten::floor_divide.Scalar", "aten::floor_divide_.Scalar",
        "aten::floor_divide_.Tensor", "aten::new_empty", "aten::new_empty_strided", "aten::new_full",
        "aten::new_ones", "aten::new_zeros", "aten::rand_like.generator", "aten::randn_like.generator",
        "aten::bernoulli.Tensor", "aten::empty.memory_format", "aten::empty_strided", "aten::full", "aten::ones",
        "aten::zeros", "aten::eye", "aten::eye.m", "aten::linspace", "aten::arange", "aten::arange.start",
        "aten::arange.start_step", "aten::scalar_tensor", "aten::where.Scalar", "aten::view.dtype")
for _cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
    for _ov in ("Scalar", "Tensor"):
        defderiv(f"aten::{_cmp}_.{_ov}", name=node_name(f"aten::{_cmp}", 0 if _ov == "Scalar" else 1),
                 self=lambda g, a: None, jvp={})


def _native_dropout_grad(g, a):
    out_g = g[0]
    if out_g is None:
        return None
    mask = a.result[1]
    if a.train is False:
        return out_g
    scale = 1.0 / (1.0 - a.p) if a.p < 1 else 0.0
    return out_g * _mask(mask, out_g) * scale


DERIVATIVES["aten::native_dropout"] = Derivative(
    "aten::native_dropout", "NativeDropoutBackward0", ("result",), {"input": _native_dropout_grad},
    {"input": lambda t, a: [_native_dropout_grad([t], a), None]})


def _index_put_self(g, a):
    return _A("index_put")(g, a.indices, _zeros((), g), False) if not a.accumulate else g


def _index_put_values(g, a):
    return _A("index.Tensor")(g, a.indices)


for _op in ("aten::index_put", "aten::index_put_"):
    defderiv(_op, save="indices", name="IndexPutBackward0", self=_index_put_self, values=_index_put_values,
             jvp={"self": lambda t, a: _index_put_self(t, a),
                  "values": lambda t, a: _A("index_put")(_zeros(a.size_of("self"), t), a.indices, t,
                                                         a.accumulate)})

# -- in-place views (metadata of self changes) -----------------------------------------------------------

defderiv("aten::t_", linear=True, name="TBackward0", self=lambda g, a: g.t(), jvp={"self": lambda t, a: t.t()})
defderiv("aten::transpose_", name="TransposeBackward0", self=lambda g, a: g.transpose(a.dim0, a.dim1),
         jvp={"self": lambda t, a: t.transpose(a.dim0, a.dim1)})
for _op, _i in (("aten::squeeze_", 0), ("aten::squeeze_.dim", 1), ("aten::squeeze_.dims", 2),
                ("aten::unsqueeze_", 0)):
    defderiv(_op, index=_i, name=node_name(_op, _i), self=lambda g, a: g.reshape(a.size_of("self")),
             jvp={"self": None})
    DERIVATIVES[_op].jvp = None
defderiv("aten::as_strided_", name="AsStridedBackward0", self=_as_strided_grad, jvp=None)
forbid("cannot resize variables that require grad", "aten::resize_", "aten::resize_as_")
forbid("set_storage is not allowed on a Tensor created from .data or .detach().", "aten::set_",
       "aten::set_.source_Storage", "aten::set_.source_Storage_storage_offset", "aten::set_.source_Tensor")


# -- more indexing and shape overloads --------------------------------------------------------------------

defderiv("aten::fill.Tensor", name="FillBackward1", self=lambda g, a: None, value=lambda g, a: g.sum(),
         jvp={"value": lambda t, a: t.expand(a.size_of("self"))})
for _op in ("aten::masked_fill.Tensor", "aten::masked_fill_.Tensor"):
    defderiv(_op, save="mask", name="MaskedFillBackward1", self=lambda g, a: g * (1 - _mask(a.mask, g)),
             value=lambda g, a: (g * _mask(a.mask, g)).sum(),
             jvp={"self": lambda t, a: t * (1 - _mask(a.mask, t)), "value": lambda t, a: _mask(a.mask, t) * t})


def _index_along(index, dim: int, like):
    """``index`` (1-d) shaped to broadcast along ``dim`` of ``like`` and expanded to ``like``'s shape."""
    shape = [1] * like.dim()
    d = dim % max(like.dim(), 1)
    if like.dim():
        shape[d] = index.numel()
        return index.reshape(shape).expand(tuple(like.shape))
    return index.reshape(())


def _index_select_grad(g, a):
    size = a.size_of("self")
    if len(size) == 0:
        return g
    return _A("scatter_add")(_zeros(size, g), a.dim, _index_along(a.index, a.dim, g), g)


defderiv("aten::index_select", save="index", self=_index_select_grad,
         jvp={"self": lambda t, a: _A("index_select")(t, a.dim, a.index)})
for _op in ("aten::scatter_add", "aten::scatter_add_"):
    defderiv(_op, save="index", name="ScatterAddBackward0", self=lambda g, a: g,
             src=lambda g, a: _A("gather")(g, a.dim, a.index),
             jvp={"self": lambda t, a: t,
                  "src": lambda t, a: _A("scatter_add")(_zeros(a.size_of("self"), t), a.dim, a.index, t)})
defderiv("aten::movedim.intlist", linear=True, name="PermuteBackward0",
         self=lambda g, a: g.movedim(list(a.destination), list(a.source)))
defderiv("aten::narrow.Tensor", linear=True, name="NarrowBackward0",
         self=_scatter_into_zeros(lambda z, a: z.narrow(a.dim, int(a.start), a.length)))
for _op in ("aten::split", "aten::split.sizes"):
    defderiv(_op, linear=True, name="SplitWithSizesBackward0" if _op == "aten::split" else "SplitBackward0",
             self=lambda g, a: _A("cat")(_fill_missing(g, a), a.dim))
nondiff("aten::linspace.Scalar_Tensor", "aten::linspace.Tensor_Scalar", "aten::linspace.Tensor_Tensor")
forbid("set_storage is not allowed on a Tensor created from .data or .detach().",
       "aten::set_.source_Tensor_storage_offset")


def registered_ops() -> list[str]:
    """Names of the table's ops that are currently defined in the dispatcher."""
    from .._dispatch import dispatcher
    return [op for op in DERIVATIVES if dispatcher.find(op) is not None]
