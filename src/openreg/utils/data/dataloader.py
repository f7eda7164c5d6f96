"""``DataLoader``: batches of a dataset, as ``torch.utils.data.DataLoader`` — automatic batching through a sampler
and a batch sampler (or a user's), ``shuffle`` with a ``generator``, ``collate_fn`` (``default_collate`` by default),
``pin_memory``, and ``num_workers > 0`` worker processes (each fetches whole batches; results come back in order;
``worker_init_fn`` runs in each worker; an exception in a worker is raised again in the main process; with
``persistent_workers`` the same processes serve every epoch).

>>> import openreg
>>> from openreg.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(openreg.arange(10.0).view(5, 2), openreg.arange(5))
>>> [y.tolist() for _, y in DataLoader(ds, batch_size=2)]
[[0, 1], [2, 3], [4]]
>>> len(DataLoader(ds, batch_size=2, drop_last=True))
2
"""
from __future__ import annotations

import itertools
import multiprocessing
import queue
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...tensor import Tensor
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import make_fetcher
from ._utils.worker import RESUMED, ExceptionWrapper, IterableExhausted, ResumeIteration, worker_loop
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

_STATUS_CHECK_INTERVAL = 5.0  # seconds between checks that the workers are alive while waiting for a batch


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: the dataset decides what comes next."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _pin(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        return type(data)({k: _pin(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(d) for d in data)
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data


class DataLoader:
    """Iterate over ``dataset`` in (collated) batches; see the module docstring."""

    _initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
                             "enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if isinstance(dataset, IterableDataset):
            kind = "iterable"
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                                 f"batch_sampler={batch_sampler}")
        else:
            kind = "map"
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self._dataset_kind = kind
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self._iterator: _MultiProcessIter | None = None  # kept between epochs with persistent_workers
        self._initialized = True

    def __setattr__(self, attr: str, value: Any) -> None:
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                          "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def __iter__(self) -> Iterator:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None or self._iterator._shutdown:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset()
        return self._iterator

    def _base_seed(self) -> int:
        from ... import dtypes
        from ...operators.factories import empty
        return int(empty((), dtype=dtypes.int64).random_(generator=self.generator).item())


class _BaseIter:
    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._sampler_iter = iter(loader._index_sampler)
        self._base_seed = loader._base_seed()
        self._pin = loader.pin_memory
        self._num_yielded = 0

    def __iter__(self) -> _BaseIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _finish(self, data: Any) -> Any:
        self._num_yielded += 1
        return _pin(data) if self._pin else data


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = make_fetcher(loader._dataset_kind, loader.dataset, loader._auto_collation,
                                     loader.collate_fn, loader.drop_last)

    def __next__(self) -> Any:
        indices = next(self._sampler_iter)
        return self._finish(self._fetcher.fetch(indices))


class _MultiProcessIter(_BaseIter):
    """Workers each take whole batches from their own index queue; results are put back in order of request."""

    _shutdown = True  # until workers exist (so a failed __init__ leaves nothing to shut down)

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._timeout = loader.timeout
        self._result_queue = ctx.Queue()
        self._index_queues, self._workers = [], []
        self._shutdown = False
        n = loader.num_workers
        for worker_id in range(n):
            index_queue = ctx.Queue()
            w = ctx.Process(target=worker_loop, daemon=True,
                            args=(loader._dataset_kind, loader.dataset, index_queue, self._result_queue,
                                  loader._auto_collation, loader.collate_fn, loader.drop_last,
                                  self._base_seed + worker_id, loader.worker_init_fn, worker_id, n))
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._persistent = loader.persistent_workers
        self._start_epoch()

    def _start_epoch(self) -> None:
        n = len(self._workers)
        self._active = [True] * n
        self._worker_cycle = itertools.cycle(range(n))
        self._send_idx = 0  # next task to send
        self._rcvd_idx = 0  # next task to yield
        self._task_worker: dict[int, int] = {}
        self._results: dict[int, Any] = {}
        for _ in range(self._loader.prefetch_factor * n):
            self._send_next()

    def _reset(self) -> None:
        """A new epoch on the same (persistent) workers: drop what is left of the last one, restart the datasets."""
        self._sampler_iter = iter(self._loader._index_sampler)
        self._num_yielded = 0
        for q in self._index_queues:
            q.put(ResumeIteration())
        resumed = 0
        while resumed < len(self._workers):
            task_id, _ = self._get_result()
            resumed += task_id == RESUMED
        self._start_epoch()

    def _send_next(self) -> None:
        if not any(self._active):
            return
        try:
            indices = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(len(self._workers)):
            worker_id = next(self._worker_cycle)
            if self._active[worker_id]:
                break
        self._index_queues[worker_id].put((self._send_idx, indices))
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1

    def _get_result(self) -> tuple[int, Any]:
        waited = 0.0
        while True:
            wait = _STATUS_CHECK_INTERVAL if self._timeout <= 0 else min(_STATUS_CHECK_INTERVAL,
                                                                           self._timeout - waited)
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                waited += wait
                dead = [w.pid for w in self._workers if not w.is_alive()]
                if dead:
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) exited "
                                       f"unexpectedly") from None
                if self._timeout > 0 and waited >= self._timeout:
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None

    def __next__(self) -> Any:
        while True:
            if self._rcvd_idx >= self._send_idx:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if self._rcvd_idx in self._results:
                data = self._results.pop(self._rcvd_idx)
            elif self._task_worker.get(self._rcvd_idx) is not None and not self._active[
                    self._task_worker[self._rcvd_idx]]:
                data = IterableExhausted(self._task_worker[self._rcvd_idx])  # its worker already ran dry
            else:
                task_id, result = self._get_result()
                if task_id != self._rcvd_idx:
                    self._results[task_id] = result
                    if isinstance(result, IterableExhausted):
                        self._active[result.worker_id] = False
                    continue
                data = result
            self._task_worker.pop(self._rcvd_idx, None)
            self._rcvd_idx += 1
            if isinstance(data, IterableExhausted):
                self._active[data.worker_id] = False
                self._send_next()
                continue
            self._send_next()
            if isinstance(data, ExceptionWrapper):
                self._shutdown_workers()
                data.reraise()
            return self._finish(data)

    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self._workers:
            w.join(timeout=_STATUS_CHECK_INTERVAL)
            if w.is_alive():
                w.terminate()
                w.join(timeout=1.0)
        for q in (*self._index_queues, self._result_queue):
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception as exc:  # noqa: BLE001 - interpreter shutdown may have torn down the queues
            warnings.warn(f"DataLoader workers could not be shut down cleanly: {exc}", RuntimeWarning, stacklevel=1)
