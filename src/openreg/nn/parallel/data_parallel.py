"""``DataParallel``: PyTorch's single-process data parallelism. Without an available device it only wraps the module
(as PyTorch on a machine without GPUs); on exactly one device it moves the module there and runs it on inputs moved
to that device; splitting a batch over several devices (replicas, scatter/gather) is not available yet in openreg
and raises ``RuntimeError`` at construction, naming ``device_ids=[0]`` as the way to run on one device.

>>> import openreg
>>> dp = openreg.nn.DataParallel(openreg.nn.Linear(2, 1), device_ids=[0])
>>> list(dp.state_dict())
['module.weight', 'module.bias']
>>> dp(openreg.ones(3, 2)).shape
openreg.Size([3, 1])
"""
from __future__ import annotations

from typing import Any

from ...devices import device as Device
from ...devices import privateuse1_name
from ...tensor import Tensor
from ..module import Module


def _available_device_module() -> Any:
    import openreg
    mod = getattr(openreg, privateuse1_name(), None)
    try:
        return mod if mod is not None and mod.is_available() else None
    except (RuntimeError, OSError, ImportError):
        return None


def _to_device(obj: Any, device: Device) -> Any:
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(x, device) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(x, device) for x in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


class DataParallel(Module):
    """Runs ``module`` on the available device (see the module docstring for what openreg supports)."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        device_mod = _available_device_module()
        if device_mod is None:
            self.device_ids: list[int] = []
            return
        if device_ids is None:
            device_ids = list(range(device_mod.device_count()))
        ids = [d if isinstance(d, int) else Device(d).index or 0 for d in device_ids]
        if not ids:
            raise RuntimeError("no available devices were found")
        if len(ids) > 1:
            raise RuntimeError(f"openreg.nn.DataParallel over devices {ids}: splitting a batch over several devices "
                               f"is not available yet in openreg; pass device_ids=[{ids[0]}] to run on one device")
        self.dim = dim
        self.device_ids = ids
        self.output_device = ids[0] if output_device is None else output_device
        self.src_device_obj = Device(privateuse1_name(), ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in (*self.module.parameters(), *self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        return self.module(*_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj))
