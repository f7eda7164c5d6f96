"""``parallel_apply``: each module applied to its inputs, each under its own device as the current device.

openreg calls the replicas one after the other in the calling thread (PyTorch uses a thread per replica): a
replica's kernels are queued on its device without waiting for the others, so on GPUs the devices still overlap,
and grad mode, autocast and every other thread-local setting are the caller's by construction.

>>> import openreg
>>> from openreg.nn.parallel import parallel_apply
>>> mods = [openreg.nn.Identity(), openreg.nn.ReLU()]
>>> [o.tolist() for o in parallel_apply(mods, [(openreg.tensor([-1.0]),), (openreg.tensor([-1.0]),)])]
[[-1.0], [0.0]]
"""
from __future__ import annotations

import contextlib
from typing import Any

from ...tensor import Tensor


def parallel_apply(modules: list, inputs: list, kwargs_tup: list | None = None, devices: list | None = None) -> list:
    """``[modules[i](*inputs[i], **kwargs_tup[i]) for i]``, with ``devices[i]`` (else the device of the first
    tensor found in ``inputs[i]``) as the current device during each call."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    if kwargs_tup is None:
        kwargs_tup = [{}] * len(modules)
    elif len(modules) != len(kwargs_tup):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of kwargs "
                             f"{len(kwargs_tup)}")
    if devices is None:
        devices = [_first_device(i) for i in inputs]
    elif len(modules) != len(devices):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of devices "
                             f"{len(devices)}")
    outputs = []
    for module, args, kwargs, device in zip(modules, inputs, kwargs_tup, devices):
        if not isinstance(args, (list, tuple)):
            args = (args,)
        with _current_device(device):
            outputs.append(module(*args, **kwargs))
    return outputs


def _first_device(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return obj.device
    if isinstance(obj, (list, tuple)):
        for x in obj:
            found = _first_device(x)
            if found is not None:
                return found
    if isinstance(obj, dict):
        return _first_device(list(obj.values()))
    return None


def _current_device(device: Any):
    from .scatter_gather import as_device
    if device is None:
        return contextlib.nullcontext()
    device = as_device(device)
    if device.type == "cpu":
        return contextlib.nullcontext()
    import openreg
    return getattr(openreg, device.type).device(device.index or 0)
