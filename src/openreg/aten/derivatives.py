"""The derivatives table: backward (VJP) and forward (JVP) formulas of every differentiable operator.

The entries come from the operator records (``Op(derivatives=...)``, added by the loader); this module holds
the table and the functions that add to it. One entry per operator overload, keyed by PyTorch's name (``"aten::mul.Tensor"``), JAX/PyTorch style: a
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


def registered_ops() -> list[str]:
    """Names of the table's ops that are currently defined in the dispatcher."""
    from .._dispatch import dispatcher
    return [op for op in DERIVATIVES if dispatcher.find(op) is not None]
