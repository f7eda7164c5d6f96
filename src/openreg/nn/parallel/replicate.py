"""``replicate``: copies of a module for other devices whose parameters are differentiable copies of the
original's (``param.to(device)``: gradients of every replica flow back to the original parameters and add up
there) and whose buffers are copies (``detach=True``: parameters are detached copies too). As in PyTorch, a
replica's parameters are no leaves and are plain attributes (``replica.parameters()`` is empty), and changes a
replica makes to its buffers are lost with it.

>>> import openreg
>>> from openreg.nn.parallel import replicate
>>> lin = openreg.nn.Linear(2, 1)
>>> copy = replicate(lin, ["cpu"])[0]
>>> copy is lin, copy.weight.grad_fn is not None, list(copy.parameters())
(False, True, [])
"""
from __future__ import annotations

from typing import Any

from ..module import Module
from .scatter_gather import as_device


def replicate(network: Module, devices: list, detach: bool = False) -> list:
    """One copy of ``network`` per device (modules used in several places stay shared within each copy)."""
    targets = [as_device(d) for d in devices]
    return [_replica(network, device, detach, {}) for device in targets]


def _replica(module: Module, device: Any, detach: bool, memo: dict) -> Module:
    done = memo.get(id(module))
    if done is not None:
        return done
    replica = module._replicate_for_data_parallel()
    memo[id(module)] = replica
    for name, param in module._parameters.items():
        if param is None:
            object.__setattr__(replica, name, None)
            continue
        copy = param.detach().to(device) if detach else param.to(device)
        if copy is param:           # already there: still a distinct, non-leaf tensor as the other copies
            copy = param.view_as(param) if not detach else param.detach()
        object.__setattr__(replica, name, copy)
    for name, buf in module._buffers.items():
        if buf is None:
            replica._buffers[name] = None
        elif buf.requires_grad and not detach:
            replica._buffers[name] = buf.to(device)
        else:
            replica._buffers[name] = buf.detach().to(device)
    for name, child in module._modules.items():
        replica._modules[name] = None if child is None else _replica(child, device, detach, memo)
    return replica
