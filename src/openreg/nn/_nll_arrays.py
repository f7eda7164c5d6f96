"""``F.nll_loss`` (and so ``F.cross_entropy``) of 2-d host log-probabilities with class-index targets and no
class weights: ``aten::nll_loss_forward``'s kernel called on the tensors (``operators/loss.py``: the same
computation, so the same bits) with its ``NllLossBackward0`` node recorded directly (``_direct_record``), instead
of a dispatcher call, when that call would do nothing else.

>>> import openreg
>>> from openreg.nn._nll_arrays import nll_loss_host
>>> logp = openreg.tensor([[-1.0, -2.0], [-0.5, -3.0]], requires_grad=True)
>>> loss = nll_loss_host(logp, openreg.tensor([1, 0]), 1, -100)
>>> loss.item(), loss.grad_fn.name()
(1.25, 'NllLossBackward0')
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..autograd import grad_mode as _grad_mode
from ..operators.loss import nll_loss_forward
from ._direct_record import _plain, autograd_info, edge, host_call, record, tmeta

_gm = _grad_mode.state


def nll_loss_host(input, target, reduction: int, ignore_index: int):
    """``aten::nll_loss_forward(input, target, None, reduction, ignore_index)[0]`` when the arrays path applies,
    else None (nothing was computed or recorded)."""
    if len(input._size) != 2 or target._dtype is not _dt.int64 or target.__class__ not in _plain() or \
            target._storage.device is not input._storage.device or not host_call(A.nll_loss_forward, input):
        return None
    out, total = nll_loss_forward(input, target, None, reduction, ignore_index)
    if _gm.enabled:
        e = edge(input)
        if e is not None:
            record(autograd_info(A.nll_loss_forward), [out, total], [e, None, None],
                   {"self": tmeta(input), "target": tmeta(target), "weight": None},
                   {"self": ("input", input), "target": ("input", target), "weight": None,
                    "result1": ("output", 1), "reduction": reduction, "ignore_index": ignore_index})
    return out
