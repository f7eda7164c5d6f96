"""``openreg.utils.data``: datasets, samplers and the ``DataLoader``, as ``torch.utils.data``.

>>> import openreg
>>> from openreg.utils.data import DataLoader, TensorDataset
>>> loader = DataLoader(TensorDataset(openreg.arange(6.0)), batch_size=4, shuffle=True,
...                     generator=openreg.Generator().manual_seed(0))
>>> sorted(v for (batch,) in loader for v in batch.tolist())
[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
"""
from . import distributed
from ._utils.collate import default_collate, default_convert
from ._utils.worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler", "IterableDataset", "RandomSampler",
    "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
    "WorkerInfo", "default_collate", "default_convert", "distributed", "get_worker_info", "random_split",
]
