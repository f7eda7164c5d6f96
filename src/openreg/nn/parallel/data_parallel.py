"""``DataParallel``: PyTorch's single-process data parallelism. Each call splits the batch over ``device_ids``
(``scatter``), runs the module on the first device and a replica of it on each other device (``replicate``:
parameters copied differentiably, so the gradients of every replica add up in the module's own parameters),
and concatenates the outputs on ``output_device`` (``gather``). As in PyTorch, the module must be on
``device_ids[0]`` and only that device's copy keeps changes made to buffers (BatchNorm's running statistics
there come from the first chunk). Without an available device it only wraps the module; with one device it moves
the module there and runs it on inputs moved to that device.

>>> import openreg
>>> dp = openreg.nn.DataParallel(openreg.nn.Linear(2, 1), device_ids=[0])
>>> list(dp.state_dict())
['module.weight', 'module.bias']
>>> dp(openreg.ones(3, 2)).shape
openreg.Size([3, 1])
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...devices import device as Device
from ...devices import privateuse1_name
from ..module import Module
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import as_device, gather, scatter_kwargs


def _available_device_module() -> Any:
    import openreg
    mod = getattr(openreg, privateuse1_name(), None)
    try:
        return mod if mod is not None and mod.is_available() else None
    except (RuntimeError, OSError, ImportError):
        return None


def _device_index(d: Any) -> int:
    if isinstance(d, int):
        return d
    return as_device(d).index or 0


class DataParallel(Module):
    """Splits each batch over ``device_ids`` along ``dim`` and runs ``module`` on every piece (see the module
    docstring)."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        device_mod = _available_device_module()
        if device_mod is None:
            self.device_ids: list[int] = []
            return
        if device_ids is None:
            device_ids = list(range(device_mod.device_count()))
        ids = [_device_index(d) for d in device_ids]
        if not ids:
            raise RuntimeError("no available devices were found")
        if output_device is None:
            output_device = ids[0]
        self.dim = dim
        self.device_ids = ids
        self.output_device = _device_index(output_device)
        self.src_device_obj = Device(privateuse1_name(), ids[0])
        if len(ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        return _run_on_devices(self.module, inputs, kwargs, self.device_ids, self.src_device_obj,
                               self.scatter, self.replicate, self.parallel_apply,
                               lambda outputs: self.gather(outputs, self.output_device))

    def replicate(self, module: Module, device_ids: list) -> list:
        """The module itself for the first device and ``replicate`` copies for the others."""
        return [module] + replicate(module, device_ids[1:])

    def scatter(self, inputs: tuple, kwargs: dict, device_ids: list) -> tuple:
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas: list, inputs: tuple, kwargs: tuple) -> list:
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs: list, output_device: Any) -> Any:
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module: Module, inputs: Any, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                  module_kwargs: dict | None = None) -> Any:
    """``DataParallel(module, device_ids, output_device, dim)(*inputs, **module_kwargs)`` without keeping the
    wrapper (the module must already be on ``device_ids[0]``).

    >>> import openreg
    >>> from openreg.nn.parallel import data_parallel
    >>> data_parallel(openreg.nn.Identity(), (openreg.ones(2),), device_ids=[]).tolist()
    [1.0, 1.0]
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if device_ids is None:
        device_mod = _available_device_module()
        device_ids = list(range(device_mod.device_count())) if device_mod is not None else []
    if not device_ids:
        return module(*inputs, **(module_kwargs or {}))
    ids = [_device_index(d) for d in device_ids]
    out_device = ids[0] if output_device is None else _device_index(output_device)
    return _run_on_devices(
        module, inputs, module_kwargs, ids, Device(privateuse1_name(), ids[0]),
        lambda inputs_, kwargs_, ids_: scatter_kwargs(inputs_, kwargs_, ids_, dim),
        lambda module_, ids_: [module_] + replicate(module_, ids_[1:]),
        lambda replicas, inputs_, kwargs_: parallel_apply(replicas, inputs_, kwargs_, ids[:len(replicas)]),
        lambda outputs: gather(outputs, out_device, dim))


def _run_on_devices(module: Module, inputs: tuple, kwargs: dict | None, device_ids: list, src_device: Device,
                    scatter: Callable, replicate_fn: Callable, apply_fn: Callable, gather_fn: Callable) -> Any:
    """The steps of one data-parallel call, shared by ``DataParallel.forward`` (which passes its overridable
    methods, as PyTorch subclasses override them) and ``data_parallel``: split the inputs over ``device_ids``,
    run the module once with no arguments when there are none, run it directly on a single device, otherwise on
    one replica per input chunk, and gather the outputs."""
    _check_on_device(module, src_device)
    inputs, module_kwargs = scatter(inputs, kwargs, device_ids)
    if not inputs and not module_kwargs:    # no arguments: the module still runs, once
        inputs, module_kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **module_kwargs[0])
    replicas = replicate_fn(module, device_ids[:len(inputs)])
    return gather_fn(apply_fn(replicas, inputs, module_kwargs))


def _check_on_device(module: Module, device: Device) -> None:
    for t in (*module.parameters(), *module.buffers()):
        if t.device != device:
            raise RuntimeError(f"module must have its parameters and buffers on device {device} "
                               f"(device_ids[0]) but found one of them on device: {t.device}")
