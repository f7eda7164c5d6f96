"""``openreg.nn.parallel``: ``DataParallel`` (a batch split over the devices, the module replicated on each) with
its pieces ``scatter``/``gather``/``replicate``/``parallel_apply`` and ``data_parallel``, and
``DistributedDataParallel`` (raises: openreg has no distributed training yet).

>>> import openreg
>>> openreg.nn.DataParallel is openreg.nn.parallel.DataParallel
True
"""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "gather", "parallel_apply", "replicate",
           "scatter"]
