"""Splitting inputs over devices and joining outputs back (``DataParallel``'s scatter and gather), differentiable:
a chunk is ``tensor.chunk(n, dim)[i].to(device_i)`` and the gathered output is a ``cat`` of outputs moved to the
target device, so gradients flow back to each device and to the scattered input.

>>> import openreg
>>> from openreg.nn.parallel import scatter, gather
>>> parts = scatter(openreg.arange(5.0), ["cpu", "cpu"])
>>> [p.tolist() for p in parts], gather(parts, "cpu").tolist()
([[0.0, 1.0, 2.0], [3.0, 4.0]], [0.0, 1.0, 2.0, 3.0, 4.0])
"""
from __future__ import annotations

import warnings
from typing import Any

from ...devices import device as Device
from ...devices import privateuse1_name
from ...tensor import Tensor


def as_device(d: Any) -> Device:
    """A device from an index of the accelerator (``-1`` is the CPU, as in PyTorch's ``output_device``), a string
    or a device."""
    if isinstance(d, Device):
        return d
    if isinstance(d, int):
        return Device("cpu") if d == -1 else Device(privateuse1_name(), d)
    return Device(d)


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def scatter(inputs: Any, target_gpus: list, dim: int = 0) -> list:
    """One piece of ``inputs`` per device: tensors split into ``tensor.chunk(len(target_gpus), dim)`` (fewer pieces
    when the tensor has fewer slices), tuples, lists, dicts and named tuples split element-wise, anything else
    repeated."""
    devices = [as_device(d) for d in target_gpus]

    def scatter_map(obj: Any) -> list:
        if isinstance(obj, Tensor):
            return [c.to(dev) for c, dev in zip(obj.chunk(len(devices), dim), devices)]
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]
    return scatter_map(inputs)


def scatter_kwargs(inputs: tuple, kwargs: dict | None, target_gpus: list, dim: int = 0) -> tuple:
    """``scatter`` of the positional and keyword arguments, padded to the same number of pieces."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(scattered_inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs: Any, target_device: Any, dim: int = 0) -> Any:
    """The outputs of the replicas joined on ``target_device``: tensors concatenated along ``dim`` (0-d tensors
    become a vector, with PyTorch's warning), dicts key by key, sequences element by element; None stays None."""
    device = as_device(target_device)

    def gather_map(outs: list) -> Any:
        out = outs[0]
        if isinstance(out, Tensor):
            if all(o.dim() == 0 for o in outs):
                warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; will "
                              "instead unsqueeze and return a vector.", stacklevel=3)
                outs = [o.view(1) for o in outs]
                return _cat(outs, device, 0)
            return _cat(outs, device, dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outs)))
        return type(out)(map(gather_map, zip(*outs)))
    return gather_map(outputs)


def _cat(tensors: list, device: Device, dim: int) -> Tensor:
    from ... import cat
    return cat([t.to(device) for t in tensors], dim)
