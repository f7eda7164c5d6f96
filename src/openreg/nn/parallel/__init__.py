"""``openreg.nn.parallel``: ``DataParallel`` (one device, as PyTorch runs it on one device; several devices raise)
and ``DistributedDataParallel`` (raises: openreg has no distributed training yet).

>>> import openreg
>>> openreg.nn.DataParallel is openreg.nn.parallel.DataParallel
True
"""
from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
