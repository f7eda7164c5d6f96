"""The functional forms behind the layers and losses: ``linear``, ``relu``, ``softmax``, ``log_softmax``,
``mse_loss``, ``nll_loss``, ``cross_entropy`` (all differentiable through the derivatives table).

>>> import openreg
>>> import openreg.nn.functional as F
>>> logits = openreg.tensor([[2.0, 0.0, 0.0]])
>>> round(F.cross_entropy(logits, openreg.tensor([0])).item(), 4)
0.2395
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..amp.composite import autocast_composite
from ..tensor import Tensor
from .loss_functional import (
    broadcast_pair,
    fused_loss_applies,
    legacy_reduction,
    reduce_loss,
    reduction_enum,
    weighted_reduce,
)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (one ``addmm`` for 2-d inputs).

    >>> import openreg
    >>> openreg.nn.functional.linear(openreg.ones(1, 2), openreg.ones(3, 2), openreg.ones(3)).tolist()
    [[3.0, 3.0, 3.0]]
    """
    ndim = input.dim()
    if ndim == 2 and bias is not None:
        return A.addmm(bias, input, weight.t())
    if bias is not None and ndim > 2 and input.is_contiguous() and (ndim == 3 or bias.dim() == 1):
        # as PyTorch: a contiguous n-d input is one addmm over its rows, viewed back (no separate bias add)
        size = input.shape
        rows = 1
        for s in size[:-1]:
            rows *= s
        out = A.addmm(bias, input.reshape(rows, size[-1]), weight.t())
        return out.view(*size[:-1], out.shape[1])
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)``.

    >>> import openreg
    >>> openreg.nn.functional.relu(openreg.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return input.relu_() if inplace else input.relu()


def _dim(dim, ndim: int, name: str = "softmax", stacklevel: int = 3) -> int:
    """``dim``, or PyTorch's implicit choice (0 for 0-, 1- and 3-d inputs, else 1) with its deprecation warning."""
    if dim is not None:
        return dim
    import warnings
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """Softmax along ``dim``.

    >>> import openreg
    >>> openreg.nn.functional.softmax(openreg.zeros(2), dim=0).tolist()
    [0.5, 0.5]
    """
    return A.softmax__int(input, _dim(dim, input.dim(), "softmax", _stacklevel), dtype)   # autocast's entry


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """Log-softmax along ``dim``.

    >>> import openreg
    >>> round(openreg.nn.functional.log_softmax(openreg.zeros(2), dim=0)[0].item(), 4)
    -0.6931
    """
    return A.log_softmax__int(input, _dim(dim, input.dim(), "log_softmax", _stacklevel), dtype)


@autocast_composite("mse_loss")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error (optionally weighted elementwise: the mean is then over the summed weights).

    >>> import openreg
    >>> openreg.nn.functional.mse_loss(openreg.tensor([1.0, 2.0]), openreg.tensor([1.0, 0.0]), reduction="sum").item()
    4.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      f"This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      f"same size.", stacklevel=2)
    input, target = broadcast_pair(input, target)
    if weight is not None:
        diff = input - target
        return weighted_reduce(diff * diff, input, weight, reduction)
    if fused_loss_applies(input, target):
        return A.mse_loss(input, target, reduction_enum(reduction))
    diff = input - target
    return reduce_loss(diff * diff, reduction)


@autocast_composite("nll_loss")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices given log-probabilities ``input`` (``(N, C, ...)`` or ``(C,)``).

    >>> import openreg
    >>> openreg.nn.functional.nll_loss(openreg.tensor([[-1.0, -2.0]]), openreg.tensor([1])).item()
    2.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    enum = reduction_enum(reduction)
    if input.dim() == 2 and target.dim() == 1 and not target.dtype.is_floating_point and \
            input.shape[0] == target.shape[0] and (weight is None or not weight.requires_grad):
        # PyTorch's fused op: one node instead of a gather/mul/sum decomposition
        return A.nll_loss_forward(input, target, weight, enum, ignore_index)[0]
    unbatched = input.dim() == 1
    if unbatched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    if target.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    if input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    valid = target != ignore_index
    safe_target = target * valid.to(target.dtype)
    w = valid.to(input.dtype)
    if weight is not None:
        w = w * A.index_select(weight, 0, safe_target.reshape(-1)).reshape(tuple(safe_target.shape))
    picked = A.gather(input, 1, safe_target.unsqueeze(1)).squeeze(1)
    loss = -(picked * w)
    if unbatched and reduction == "none":
        loss = loss.squeeze(0)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return reduce_loss(loss, reduction)


@autocast_composite("cross_entropy_loss")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits ``input`` against class indices or class probabilities ``target``.

    >>> import openreg
    >>> round(openreg.nn.functional.cross_entropy(openreg.zeros(1, 4), openreg.tensor([2])).item(), 4)
    1.3863
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = 0 if input.dim() == 1 else 1
    logp = log_softmax(input, cdim)
    if target.dtype.is_floating_point:
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        t = target
        if label_smoothing > 0:
            t = t * (1 - label_smoothing) + label_smoothing / input.shape[cdim]
        prod = logp * t
        if weight is not None:
            shape = [1] * input.dim()
            shape[cdim] = input.shape[cdim]
            prod = prod * weight.view(shape)
        loss = -prod.sum(cdim)
        if reduction == "mean":
            n = loss.numel()
            return loss.sum() / max(n, 1)
        return reduce_loss(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    n_cls = input.shape[cdim]
    smooth = -logp.sum(cdim) / n_cls if weight is None else -(logp * weight.view(
        [1] * cdim + [n_cls] + [1] * (input.dim() - cdim - 1))).sum(cdim) / n_cls
    valid = (target != ignore_index).to(input.dtype)
    smooth = smooth * valid
    if reduction == "mean":
        # normalized as nll_loss is: by the summed weights of the (not ignored) targets
        denom = valid.sum()
        if weight is not None:
            safe = target * (target != ignore_index).to(target.dtype)
            denom = (A.index_select(weight, 0, safe.reshape(-1)) * valid.reshape(-1)).sum()
        smooth = smooth.sum() / denom
    else:
        smooth = reduce_loss(smooth, reduction)
    return nll * (1 - label_smoothing) + smooth * label_smoothing


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = input1 @ weight[o] @ input2 + bias[o]`` for ``weight`` ``(out, in1, in2)``.

    >>> import openreg
    >>> openreg.nn.functional.bilinear(openreg.ones(1, 2), openreg.ones(1, 3), openreg.ones(4, 2, 3)).tolist()
    [[6.0, 6.0, 6.0, 6.0]]
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    if list(input1.shape[:-1]) != list(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape)} and "
                           f"{list(input2.shape)}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.dim()}")
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {in2}")
    lead = list(input1.shape[:-1])
    x1, x2 = input1.reshape(-1, in1), input2.reshape(-1, in2)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(-1, out, in2)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(lead + [out])
