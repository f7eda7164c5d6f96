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

import sys
from collections.abc import Callable

from .._dispatch.ops import lookup
from ..operators._formulas import mask, zeros


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
    _autograd_kernel(op)


def _autograd_kernel(op: str) -> None:
    """Register ``op``'s Autograd kernel now when autograd is already plugged in (otherwise plugging it in
    registers every entry of the table), so the order in which entries are added does not matter."""
    registration = sys.modules.get("openreg.autograd._registration")
    if registration is not None:
        registration.register_op(op)


def nondiff(*names: str) -> None:
    """Ops whose outputs never require grad (random/like factories, sign-like steps)."""
    for op in names:
        DERIVATIVES[op] = Derivative(op, node_name(op, 0), (), {}, {}, nondiff=True)
        _autograd_kernel(op)


def forbid(message: str, *names: str) -> None:
    """Ops that refuse to run on inputs requiring grad (PyTorch raises in their autograd kernel)."""
    for op in names:
        DERIVATIVES[op] = Derivative(op, node_name(op, 0), (), {}, None, error=message)
        _autograd_kernel(op)


def _linear_jvp(op: str, arg: str):
    def jvp(t, a):
        overload = lookup(op)
        schema = overload._schema
        kwargs = {}
        for x in schema.arguments:
            kwargs[x.name] = t if x.name == arg else getattr(a, x.name)
        return overload(**kwargs)
    return jvp


# -- helpers (all through tensor ops, so formulas are differentiable) ---------------------------------

# -- ops without formulas (the pointwise ones are in their operator records) -------------------------

nondiff("aten::sign", "aten::sign_", "aten::floor", "aten::ceil", "aten::round", "aten::trunc",
        "aten::zeros_like", "aten::ones_like", "aten::empty_like", "aten::full_like", "aten::rand_like",
        "aten::randn_like", "aten::detach", "aten::bernoulli", "aten::bernoulli_.float",
        "aten::uniform_", "aten::normal_", "aten::random_", "aten::rand", "aten::randn")


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
        z = zeros(a.size_of("self"), g)
        view_fn(z, a).copy_(g)
        return z
    return bwd


defderiv("aten::narrow", linear=True, self=_scatter_into_zeros(lambda z, a: z.narrow(a.dim, a.start, a.length)))
defderiv("aten::select.int", linear=True,
         self=_scatter_into_zeros(lambda z, a: lookup("aten::select.int")(z, a.dim, a.index)))
defderiv("aten::slice.Tensor", linear=True,
         self=_scatter_into_zeros(lambda z, a: lookup("aten::slice.Tensor")(z, a.dim, a.start, a.end, a.step)))
defderiv("aten::diagonal", linear=True,
         self=_scatter_into_zeros(lambda z, a: lookup("aten::diagonal")(z, a.offset, a.dim1, a.dim2)))


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
        lookup("aten::as_strided")(buf, out_size, out_stride, out_off - in_off).copy_(g)
        return buf
    base = min(in_off, out_off)

    def extent(size, stride, off):
        return off - base + sum((sz - 1) * st for sz, st in zip(size, stride) if sz > 0) + 1
    n = max(extent(in_size, in_stride, in_off), extent(out_size, out_stride, out_off))
    flat = zeros((n,), g)
    out_idx = _storage_index(out_size, out_stride, out_off - base, g.device)
    flat = lookup("aten::index_put")(flat, [out_idx.reshape(-1)], g.reshape(-1), True)
    in_idx = _storage_index(in_size, in_stride, in_off - base, g.device)
    res = lookup("aten::index.Tensor")(flat, [in_idx.reshape(-1)]).reshape(in_size)
    if _overlaps(in_size, in_stride):
        ones = zeros((in_idx.numel(),), g) + 1
        count = lookup("aten::index_put")(zeros((n,), g), [in_idx.reshape(-1)], ones, True)
        res = res / lookup("aten::index.Tensor")(count, [in_idx.reshape(-1)]).reshape(in_size)
    return res


defderiv("aten::as_strided", linear=True, self=_as_strided_grad)


def _fill_missing(g: list, a) -> list:
    return [x if x is not None else zeros(m[0], _proto(g)).to(m[1]) for x, m in zip(g, a.out_meta)]


def _proto(g: list):
    return next(x for x in g if x is not None)


defderiv("aten::unbind.int", linear=True, self=lambda g, a: lookup("aten::stack")(_fill_missing(g, a), a.dim))
for _op in ("aten::split.Tensor", "aten::split_with_sizes", "aten::chunk"):
    defderiv(_op, linear=True, self=lambda g, a: lookup("aten::cat")(_fill_missing(g, a), a.dim))


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
    return [t if t is not None else zeros(m[0], _proto(ts)).to(m[1]) for t, m in zip(ts, a.meta_of(name))]


DERIVATIVES["aten::cat"] = Derivative("aten::cat", "CatBackward0", (), {"tensors": _cat_grad},
                                      {"tensors": lambda t, a: lookup("aten::cat")(_list_tangents(t, a, "tensors"), a.dim)})
DERIVATIVES["aten::stack"] = Derivative(
    "aten::stack", "StackBackward0", (), {"tensors": lambda g, a: list(g.unbind(a.dim))},
    {"tensors": lambda t, a: lookup("aten::stack")(_list_tangents(t, a, "tensors"), a.dim)})

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
         self=lambda g, a: g * (1 - mask(a.mask, g)))
defderiv("aten::masked_fill_.Scalar", save="mask", pointwise=True, name="MaskedFillBackward0",
         self=lambda g, a: g * (1 - mask(a.mask, g)))


def _index_grad(g, a):
    z = zeros(a.size_of("self"), g)
    return lookup("aten::index_put")(z, a.indices, g, True)


defderiv("aten::index.Tensor", save="indices", self=_index_grad,
         jvp={"self": lambda t, a: lookup("aten::index.Tensor")(t, a.indices)})


def _gather_grad(g, a):
    z = zeros(a.size_of("self"), g)
    return lookup("aten::scatter_add")(z, a.dim, a.index, g)


defderiv("aten::gather", save="index", self=_gather_grad,
         jvp={"self": lambda t, a: lookup("aten::gather")(t, a.dim, a.index)})


# -- factories and other ops without formulas ---------------------------------------------------------

nondiff("aten::new_empty", "aten::new_empty_strided", "aten::new_full",
        "aten::new_ones", "aten::new_zeros", "aten::rand_like.generator", "aten::randn_like.generator",
        "aten::bernoulli.Tensor", "aten::empty.memory_format", "aten::empty_strided", "aten::full", "aten::ones",
        "aten::zeros", "aten::eye", "aten::eye.m", "aten::linspace", "aten::arange", "aten::arange.start",
        "aten::arange.start_step", "aten::scalar_tensor", "aten::view.dtype")


def _native_dropout_grad(g, a):
    out_g = g[0]
    if out_g is None:
        return None
    keep = a.result[1]
    if a.train is False:
        return out_g
    scale = 1.0 / (1.0 - a.p) if a.p < 1 else 0.0
    return out_g * mask(keep, out_g) * scale


DERIVATIVES["aten::native_dropout"] = Derivative(
    "aten::native_dropout", "NativeDropoutBackward0", ("result",), {"input": _native_dropout_grad},
    {"input": lambda t, a: [_native_dropout_grad([t], a), None]})


def _index_put_self(g, a):
    return lookup("aten::index_put")(g, a.indices, zeros((), g), False) if not a.accumulate else g


def _index_put_values(g, a):
    return lookup("aten::index.Tensor")(g, a.indices)


for _op in ("aten::index_put", "aten::index_put_"):
    defderiv(_op, save="indices", name="IndexPutBackward0", self=_index_put_self, values=_index_put_values,
             jvp={"self": lambda t, a: _index_put_self(t, a),
                  "values": lambda t, a: lookup("aten::index_put")(zeros(a.size_of("self"), t), a.indices, t,
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
    defderiv(_op, save="mask", name="MaskedFillBackward1", self=lambda g, a: g * (1 - mask(a.mask, g)),
             value=lambda g, a: (g * mask(a.mask, g)).sum(),
             jvp={"self": lambda t, a: t * (1 - mask(a.mask, t)), "value": lambda t, a: mask(a.mask, t) * t})


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
    return lookup("aten::scatter_add")(zeros(size, g), a.dim, _index_along(a.index, a.dim, g), g)


defderiv("aten::index_select", save="index", self=_index_select_grad,
         jvp={"self": lambda t, a: lookup("aten::index_select")(t, a.dim, a.index)})
for _op in ("aten::scatter_add", "aten::scatter_add_"):
    defderiv(_op, save="index", name="ScatterAddBackward0", self=lambda g, a: g,
             src=lambda g, a: lookup("aten::gather")(g, a.dim, a.index),
             jvp={"self": lambda t, a: t,
                  "src": lambda t, a: lookup("aten::scatter_add")(zeros(a.size_of("self"), t), a.dim, a.index, t)})
defderiv("aten::movedim.intlist", linear=True, name="PermuteBackward0",
         self=lambda g, a: g.movedim(list(a.destination), list(a.source)))
defderiv("aten::narrow.Tensor", linear=True, name="NarrowBackward0",
         self=_scatter_into_zeros(lambda z, a: z.narrow(a.dim, int(a.start), a.length)))
for _op in ("aten::split", "aten::split.sizes"):
    defderiv(_op, linear=True, name="SplitWithSizesBackward0" if _op == "aten::split" else "SplitBackward0",
             self=lambda g, a: lookup("aten::cat")(_fill_missing(g, a), a.dim))
nondiff("aten::linspace.Scalar_Tensor", "aten::linspace.Tensor_Scalar", "aten::linspace.Tensor_Tensor")
forbid("set_storage is not allowed on a Tensor created from .data or .detach().",
       "aten::set_.source_Tensor_storage_offset")


def registered_ops() -> list[str]:
    """Names of the table's ops that are currently defined in the dispatcher."""
    from .._dispatch import dispatcher
    return [op for op in DERIVATIVES if dispatcher.find(op) is not None]
