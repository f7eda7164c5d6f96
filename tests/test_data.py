"""utils.data: datasets, random_split, samplers, default_collate and DataLoader (single process and worker processes,
pin_memory, bad input), as torch.utils.data (messages compared with PyTorch when installed)."""
from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import openreg
from openreg.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    get_worker_info,
    random_split,
)

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

Point = collections.namedtuple("Point", ["x", "y"])


def _gen(seed=0):
    return openreg.Generator().manual_seed(seed)


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 7 and getattr(self, "fail_at_7", False):
            raise ValueError("bad sample 7")
        info = get_worker_info()
        return {"i": i, "x": openreg.full((2,), float(i * i)), "worker": -1 if info is None else info.id}


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))

    def __len__(self):
        return self.n


class Opaque:
    pass


class OpaqueDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Opaque()


def test_tensor_dataset_subset_concat():
    x, y = openreg.arange(12.0).view(6, 2), openreg.arange(6)
    ds = TensorDataset(x, y)
    assert len(ds) == 6 and ds[2][0].tolist() == [4.0, 5.0] and ds[2][1].item() == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, openreg.arange(5))
    sub = Subset(ds, [5, 0, 3])
    assert len(sub) == 3 and sub[0][1].item() == 5 and [s[1].item() for s in sub.__getitems__([1, 2])] == [0, 3]
    cat = ds + TensorDataset(openreg.zeros(3, 2), openreg.zeros(3, dtype=openreg.int64))
    assert isinstance(cat, ConcatDataset) and len(cat) == 9 and cat[-1][1].item() == 0 and cat[5][1].item() == 5
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        cat[-10]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream(3)])
    assert list(Stream(2) + Stream(3)) == [0, 1, 0, 1, 2]
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]


def test_random_split_lengths_fractions_and_generator():
    ds = range(10)
    a, b = random_split(ds, [3, 7], generator=_gen(1))
    assert sorted(a.indices + b.indices) == list(range(10)) and len(a) == 3
    a2, _ = random_split(ds, [3, 7], generator=_gen(1))
    assert a.indices == a2.indices
    parts = random_split(range(11), [0.5, 0.3, 0.2], generator=_gen(2))
    assert [len(p) for p in parts] == [6, 3, 2]  # floor(5.5, 3.3, 2.2) = 5, 3, 2 + the remainder dealt round-robin
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(ds, [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(ds, [1.5, -0.5])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        random_split(range(2), [0.9, 0.1])
    assert any("Length of split at index 1 is 0" in str(w.message) for w in rec)


def test_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    perm = list(RandomSampler(range(20), generator=_gen(3)))
    assert sorted(perm) == list(range(20)) and perm != list(range(20))
    assert perm == list(RandomSampler(range(20), generator=_gen(3)))
    draws = list(RandomSampler(range(5), replacement=True, num_samples=70, generator=_gen(4)))
    assert len(draws) == 70 and set(draws) <= set(range(5))
    more = list(RandomSampler(range(4), num_samples=10, generator=_gen(5)))
    assert len(more) == 10 and sorted(more[:4]) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    assert sorted(SubsetRandomSampler([10, 20, 30], generator=_gen())) == [10, 20, 30]
    w = list(WeightedRandomSampler([0.0, 0.0, 5.0, 1.0], 200, generator=_gen(6)))
    assert set(w) == {2, 3} and w.count(2) > w.count(3)
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
        WeightedRandomSampler([[1.0, 2.0]], 2)
    bs = BatchSampler(range(7), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]] and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)


def test_default_collate_kinds():
    t = default_collate([openreg.ones(2, 3), openreg.zeros(2, 3)])
    assert t.shape == (2, 2, 3)
    assert default_collate([1, 2]).dtype == openreg.int64 and default_collate([1.5, 2.0]).dtype == openreg.float64
    assert default_collate([True, False]).dtype == openreg.bool
    arrays = default_collate([np.ones((2,), np.float32), np.zeros((2,), np.float32)])
    assert arrays.dtype == openreg.float32 and arrays.shape == (2, 2)
    assert default_collate([np.float32(1), np.float32(2)]).dtype == openreg.float32
    assert default_collate(["a", "b"]) == ["a", "b"]
    p = default_collate([Point(1, openreg.ones(1)), Point(2, openreg.zeros(1))])
    assert isinstance(p, Point) and p.x.tolist() == [1, 2] and p.y.shape == (2, 1)
    d = default_collate([{"a": 1, "b": [1.0, "s"]}, {"a": 2, "b": [2.0, "t"]}])
    assert d["a"].tolist() == [1, 2] and d["b"][0].tolist() == [1.0, 2.0] and d["b"][1] == ("s", "t")
    assert isinstance(default_collate([(1, 2), (3, 4)]), list)
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([openreg.ones(2), openreg.ones(3)])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                        "lists; found <class 'test_data.Opaque'>"):
        default_collate([Opaque()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_dataloader_batches_shuffle_and_len():
    ds = TensorDataset(openreg.arange(20.0).view(10, 2), openreg.arange(10))
    batches = list(DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2) and len(DataLoader(ds, batch_size=4)) == 3
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    first = [b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=_gen(7))]
    again = [b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=_gen(7))]
    flat = [i for b in first for i in b]
    assert first == again and sorted(flat) == list(range(10)) and flat != list(range(10))
    loader = DataLoader(ds, batch_size=3, shuffle=True, generator=_gen(7))
    assert [b[1].tolist() for b in loader] != [b[1].tolist() for b in loader]  # a new order every epoch
    by_sampler = DataLoader(ds, batch_size=2, sampler=[9, 8, 7])
    assert [b[1].tolist() for b in by_sampler] == [[9, 8], [7]]
    by_batches = DataLoader(ds, batch_sampler=[[0, 5], [3]])
    assert [b[1].tolist() for b in by_batches] == [[0, 5], [3]] and len(by_batches) == 2
    no_batch = DataLoader([np.float32(1.5), np.float32(2.5)], batch_size=None)
    assert [b.item() for b in no_batch] == [1.5, 2.5]
    custom = DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(custom) == [1, 5, 4]
    it = iter(DataLoader(range(5), batch_size=2))
    assert len(it) == 3
    stream = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in stream] == [[0, 1, 2], [3, 4, 5], [6]] and len(stream) == 3
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]


def test_dataloader_bad_options():
    ds = TensorDataset(openreg.zeros(4))
    cases = [
        ({"num_workers": -1}, "num_workers option should be non-negative"),
        ({"sampler": [0], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive with batch_size"),
        ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching"),
        ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in multiprocessing"),
        ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            DataLoader(ds, **kwargs)
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Stream(3), shuffle=True)
    loader = DataLoader(ds)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3


def test_uncollatable_items_raise_pytorch_type_error():
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                        "lists; found <class 'test_data.Opaque'>"):
        next(iter(DataLoader(OpaqueDataset(), batch_size=2)))


def test_pin_memory_and_moving_batches_to_the_device(devices):
    loader = DataLoader(Squares(), batch_size=4, pin_memory=True)
    batch = next(iter(loader))
    assert batch["x"].is_pinned() and batch["i"].is_pinned() and batch["x"].device.type == "cpu"
    moved = batch["x"].to(devices, non_blocking=True)
    assert moved.device.type == openreg.device(devices).type and moved[:, 0].tolist() == [0.0, 1.0, 4.0, 9.0]


def test_worker_processes_match_single_process_and_run_init_fn():
    single = [(b["i"].tolist(), b["x"].tolist()) for b in DataLoader(Squares(), batch_size=3)]
    loader = DataLoader(Squares(), batch_size=3, num_workers=2, worker_init_fn=_record_worker_init, timeout=60)
    batches = list(loader)
    assert [(b["i"].tolist(), b["x"].tolist()) for b in batches] == single
    assert sorted({w for b in batches for w in b["worker"].tolist()}) == [0, 1]  # both workers fetched batches
    assert len(loader) == 4 and get_worker_info() is None
    shuffled = DataLoader(Squares(), batch_size=4, shuffle=True, num_workers=2, generator=_gen(11))
    in_main = DataLoader(Squares(), batch_size=4, shuffle=True, generator=_gen(11))
    assert [b["i"].tolist() for b in shuffled] == [b["i"].tolist() for b in in_main]


def _record_worker_init(worker_id):
    info = get_worker_info()
    assert info is not None and info.id == worker_id and info.num_workers == 2
    info.dataset.init_ran = True


def test_worker_processes_iterable_dataset_sharded_by_worker_info():
    values = sorted(v for b in DataLoader(Stream(11), batch_size=2, num_workers=3, timeout=60) for v in b.tolist())
    assert values == list(range(11))


def test_worker_exception_is_raised_in_the_main_process():
    ds = Squares()
    ds.fail_at_7 = True
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process") as err:
        list(DataLoader(ds, batch_size=2, num_workers=2, timeout=60))
    assert "bad sample 7" in str(err.value)
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        list(DataLoader(OpaqueDataset(), batch_size=2, num_workers=1, timeout=60))


@needs_torch
def test_collate_error_message_matches_pytorch():
    with pytest.raises(TypeError) as mine:
        default_collate([Opaque()])
    with pytest.raises(TypeError) as theirs:
        torch.utils.data.default_collate([Opaque()])
    assert str(mine.value) == str(theirs.value)
    for fracs in ([0.5, 0.3, 0.2], [0.34, 0.33, 0.33]):
        mine_lengths = [len(s) for s in random_split(range(11), fracs)]
        assert mine_lengths == [len(s) for s in torch.utils.data.random_split(range(11), fracs)]


def test_distributed_sampler_shards_with_explicit_replicas():
    from openreg.utils.data.distributed import DistributedSampler
    shards = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    s = DistributedSampler(range(10), num_replicas=3, rank=0, drop_last=True)
    assert len(s) == 3 and len(list(s)) == 3
    a = list(s)
    s.set_epoch(1)
    assert a != list(s) or len(a) < 2
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(4))
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(4), num_replicas=3, rank=3)


class Pids(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        import os
        return openreg.tensor([i, os.getpid()])


def test_persistent_workers_keep_their_processes_across_epochs():
    loader = DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True, timeout=60)
    epochs = [[b.tolist() for b in loader] for _ in range(3)]
    assert [[row[0] for b in e for row in b] for e in epochs] == [list(range(6))] * 3
    pids = [{row[1] for b in e for row in b} for e in epochs]
    assert len(pids[0]) == 2 and pids[0] == pids[1] == pids[2]
    it = iter(loader)
    next(it)  # leave an epoch half read: the next epoch starts cleanly
    assert [row[0] for b in loader for row in b.tolist()] == list(range(6))
    stream = DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True, timeout=60)
    for _ in range(2):
        assert sorted(v for b in stream for v in b.tolist()) == list(range(5))
    with pytest.raises(ValueError, match="persistent_workers attribute should not be set"):
        loader.persistent_workers = False
