"""``DistributedDataParallel``: importable under PyTorch's path; constructing one raises ``RuntimeError`` because
openreg has no distributed training yet.

>>> import openreg
>>> openreg.nn.parallel.DistributedDataParallel(openreg.nn.Linear(1, 1))
Traceback (most recent call last):
    ...
RuntimeError: openreg.distributed.nn.parallel.DistributedDataParallel: distributed training is not available yet ...
"""
from __future__ import annotations

from typing import Any

from ... import distributed
from ..module import Module


class DistributedDataParallel(Module):
    """Raises ``RuntimeError`` when constructed: openreg has no process groups to synchronise gradients over."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 *args: Any, **kwargs: Any) -> None:
        distributed._unavailable("nn.parallel.DistributedDataParallel")
