"""``DistributedSampler``: the share of a dataset one of ``num_replicas`` processes reads, as PyTorch's. openreg has
no distributed package, so ``num_replicas`` and ``rank`` must be given (they cannot be asked of a process group).

>>> from openreg.utils.data.distributed import DistributedSampler
>>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
[1, 3, 0]
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sized

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Every ``num_replicas``-th index from ``rank`` (shuffled per epoch with ``seed + epoch``; padded by repeating
    indices so all ranks get ``ceil(len / num_replicas)`` unless ``drop_last``)."""

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        from ...generator import Generator
        from ...operators.random import randperm
        if self.shuffle:
            indices = randperm(len(self.dataset), generator=Generator().manual_seed(self.seed + self.epoch)).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding] if padding > len(indices) else \
                indices[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use another shuffle for the next epoch (call it before each epoch, as with PyTorch)."""
        self.epoch = epoch
