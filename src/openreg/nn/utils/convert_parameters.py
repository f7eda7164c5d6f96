"""``parameters_to_vector`` / ``vector_to_parameters``: all parameters as one flat vector and back.

>>> import openreg
>>> lin = openreg.nn.Linear(2, 1)
>>> v = openreg.nn.utils.parameters_to_vector(lin.parameters())
>>> v.shape
openreg.Size([3])
>>> openreg.nn.utils.vector_to_parameters(openreg.arange(3.0), lin.parameters())
>>> lin.weight.tolist(), lin.bias.tolist()
([[0.0, 1.0]], [2.0])
"""
from __future__ import annotations

from collections.abc import Iterable

from ...devices import device as Device
from ...tensor import Tensor
from ..module import _typename


def _check_param_device(param: Tensor, old_device: Device | None) -> Device:
    if old_device is not None and param.device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Concatenate the flattened parameters (differentiable: the result's gradient flows to them)."""
    from ... import cat
    device = None
    flat = []
    for param in parameters:
        device = _check_param_device(param, device)
        flat.append(param.view(-1))
    return cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter's ``.data`` the matching slice of ``vec`` (a view: the parameters share its memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
