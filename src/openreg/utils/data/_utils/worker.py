"""DataLoader worker processes: ``get_worker_info()`` (None in the main process) and the loop each worker runs.

>>> from openreg.utils.data import get_worker_info
>>> get_worker_info() is None
True
"""
from __future__ import annotations

import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

__all__ = ["WorkerInfo", "get_worker_info"]

_worker_info: WorkerInfo | None = None


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker knows about itself: ``id``, ``num_workers``, ``seed`` and its copy of ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


def get_worker_info() -> WorkerInfo | None:
    """The current worker's ``WorkerInfo`` inside a DataLoader worker process, None in the main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback and raised there again."""

    def __init__(self, exc_info: tuple, where: str) -> None:
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        try:
            exc = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - an exception type that cannot take one message
            raise RuntimeError(msg) from None
        raise exc


@dataclass(frozen=True)
class IterableExhausted:
    """A worker's iterable dataset has no more samples."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Sent to persistent workers at the start of a new epoch; each answers with ``(RESUMED, worker_id)``."""


RESUMED = -1  # the task id of a worker's answer to ResumeIteration


def _seed_worker(seed: int) -> None:
    # Only the CPU generator: a forked worker must not touch the device (CUDA cannot be used after fork).
    from ....random import default_cpu_generator
    random.seed(seed)
    default_cpu_generator.manual_seed(seed)
    try:
        import numpy as np
        np.random.seed(seed % 2**32)
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass


def worker_loop(dataset_kind: str, dataset: Any, index_queue: Any, result_queue: Any, auto_collation: bool,
                collate_fn: Any, drop_last: bool, seed: int, init_fn: Any, worker_id: int, num_workers: int) -> None:
    """Fetch the batches whose indices arrive on ``index_queue`` and put ``(task, batch)`` on ``result_queue``; ends
    on ``None``."""
    global _worker_info
    from .fetch import make_fetcher
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    init_error = None
    try:
        _seed_worker(seed)
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
    except Exception:  # noqa: BLE001 - reported to the main process with the first batch
        init_error = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
    exhausted = False
    while True:
        try:
            task = index_queue.get(timeout=5.0)
        except queue.Empty:
            continue
        if task is None:
            break
        if isinstance(task, ResumeIteration):  # a new epoch of persistent workers: start the dataset over
            try:
                fetcher = make_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
            except Exception:  # noqa: BLE001 - reported with the next batch
                init_error = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
            exhausted = False
            result_queue.put((RESUMED, worker_id))
            continue
        task_id, indices = task
        if init_error is not None:
            result_queue.put((task_id, init_error))
            init_error = None
            continue
        if exhausted:
            result_queue.put((task_id, IterableExhausted(worker_id)))
            continue
        try:
            data = fetcher.fetch(indices)
        except StopIteration:
            exhausted = True
            data = IterableExhausted(worker_id)
        except Exception:  # noqa: BLE001 - raised again in the main process
            data = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
        result_queue.put((task_id, data))
        del data
