"""Fetchers: turn one index (or batch of indices) from the sampler into a (collated) batch, for map-style and
iterable datasets alike; shared by the single-process and the worker-process iterators.

>>> from openreg.utils.data._utils.fetch import make_fetcher
>>> make_fetcher("map", [10, 20, 30], True, list, False).fetch([2, 0])
[30, 10]
"""
from __future__ import annotations

from typing import Any

__all__ = ["make_fetcher"]


class _MapFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, indices: Any) -> Any:
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(indices) if callable(getitems) else [self.dataset[i] for i in indices]
        else:
            data = self.dataset[indices]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> None:
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, indices: Any) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in indices:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(indices)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def make_fetcher(kind: str, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> Any:
    """A fetcher for a ``"map"`` or ``"iterable"`` dataset."""
    cls = _MapFetcher if kind == "map" else _IterableFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
