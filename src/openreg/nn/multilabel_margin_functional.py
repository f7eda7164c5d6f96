"""``multilabel_margin_loss``: the multi-class multi-label hinge loss. Each row of ``target`` lists the classes of
its sample, ending at the first -1; the loss of a sample is the sum over its classes ``j`` and the other classes
``i`` of ``max(0, 1 - (x[j] - x[i]))``, divided by the number of classes. Written with tensor operators (a
pairwise hinge masked by the classes), so it runs on every device and is differentiable with respect to ``input``.

>>> import openreg
>>> from openreg.nn import functional as F
>>> x = openreg.tensor([[0.1, 0.2, 0.4, 0.8]])
>>> round(F.multilabel_margin_loss(x, openreg.tensor([[3, 0, -1, 1]])).item(), 4)
0.85
"""
from __future__ import annotations

from ..amp.composite import autocast_composite
from ..tensor import Tensor

__all__ = ["multilabel_margin_loss"]


@autocast_composite("multilabel_margin_loss")
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Per sample ``sum over its classes j and the others i of max(0, 1 - (x[j] - x[i])) / C``, reduced by
    ``reduction``."""
    from .loss_functional import legacy_reduction
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    from .. import dtypes
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.scalar_name}")
    if input.dim() > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() <= 1 else input
    n, c = x.shape
    if tuple(target.shape) != tuple(input.shape) or (input.dim() <= 1 and target.numel() != c):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    y = target.reshape(n, c)
    if bool(((y < -1) | (y >= c)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    import openreg
    listed = (y != -1).to(dtypes.int64).cumprod(1)                # 1 up to the first -1
    onehot = openreg.nn.functional.one_hot(y.clamp(min=0), c) * listed.unsqueeze(-1)
    listed_times = onehot.sum(1).to(x.dtype)                       # (n, c): a class listed twice counts twice
    is_target = (listed_times > 0).to(x.dtype)
    hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).relu()         # [b, j, i] = max(0, 1 - (x_j - x_i))
    pairs = listed_times.unsqueeze(2) * (1 - is_target).unsqueeze(1)
    loss = (hinge * pairs).sum((1, 2)) / c
    if input.dim() <= 1:
        loss = loss.reshape(())
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
