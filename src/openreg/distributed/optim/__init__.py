"""``openreg.distributed.optim``: PyTorch's distributed optimizers by name. They shard optimizer state over the
ranks of a process group, which openreg cannot create yet (``openreg.distributed.init_process_group`` raises),
so constructing one raises PyTorch's ``ValueError`` for a program that never initialised a process group;
programs that import them and take the single-process branch run.

>>> import openreg
>>> from openreg.distributed.optim import ZeroRedundancyOptimizer
>>> ZeroRedundancyOptimizer([openreg.nn.Parameter(openreg.ones(2))], optimizer_class=openreg.optim.AdamW, lr=0.1)
Traceback (most recent call last):
    ...
ValueError: Default process group has not been initialized, please make sure to call init_process_group.
"""
from __future__ import annotations

from typing import Any

from ... import distributed as _dist
from ...optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]


class ZeroRedundancyOptimizer(Optimizer):
    """ZeRO stage 1: each rank of ``process_group`` keeps the state of its shard of the parameters, then the
    updated parameters are broadcast. Needs an initialised process group, which openreg does not have."""

    def __init__(self, params: Any, optimizer_class: type[Optimizer], process_group: Any = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False, **defaults: Any):
        super().__init__(params, defaults)
        self.optimizer_class = optimizer_class
        self.process_group = process_group
        self.world_size = _dist.get_world_size(process_group)   # raises without a process group, as PyTorch
