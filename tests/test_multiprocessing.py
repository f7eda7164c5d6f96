"""openreg.multiprocessing: shared-memory CPU tensors seen by spawned and forked processes (pytorch/examples'
mnist_hogwild: model.share_memory() then mp.Process per worker), queues, spawn's error reporting."""
from __future__ import annotations

import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
from device_params import needs_device

import openreg
import openreg.multiprocessing as mp


def _add_rank(rank, t):
    t[rank] += rank + 1


def _fill_from_queue(q, done):
    t = q.get()
    t.fill_(7.0)
    done.put(t.is_shared())


def _train_step(model):
    with openreg.no_grad():
        for p in model.parameters():
            p.add_(1.0)


def _fail(rank):
    raise ValueError(f"boom in {rank}")


def _exit(rank):
    raise SystemExit(3)


def test_share_memory_in_place():
    t = openreg.arange(6.0).reshape(2, 3)
    view = t[1]
    storage = t.untyped_storage()
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared() and view.is_shared()
    assert t.untyped_storage() is storage and storage.is_shared()
    t[0, 0] = 10.0                          # every view keeps viewing the (moved) memory
    assert view.tolist() == [3.0, 4.0, 5.0] and t[0].tolist() == [10.0, 1.0, 2.0]
    t.share_memory_()                       # sharing again changes nothing
    assert t.tolist() == [[10.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    m = openreg.nn.Linear(2, 2)
    w = m.weight
    assert m.share_memory() is m and m.weight is w and w.is_shared() and m.bias.is_shared()


def test_spawned_processes_write_shared_memory():
    t = openreg.zeros(3).share_memory_()
    mp.spawn(_add_rank, args=(t,), nprocs=3)
    assert t.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_hogwild_module_and_queue(method):
    ctx = mp.get_context(method)
    model = openreg.nn.Linear(3, 2)
    model.share_memory()
    before = [p.detach().clone() for p in model.parameters()]
    p = ctx.Process(target=_train_step, args=(model,))
    p.start()
    p.join()
    assert p.exitcode == 0
    for b, a in zip(before, model.parameters()):
        np.testing.assert_allclose(np.asarray(a.detach()), np.asarray(b) + 1.0)
    q, done = ctx.Queue(), ctx.Queue()
    t = openreg.zeros(4).share_memory_()
    p = ctx.Process(target=_fill_from_queue, args=(q, done))
    p.start()
    q.put(t)
    assert done.get(timeout=120) is True
    p.join()
    assert t.tolist() == [7.0] * 4


def test_unshared_tensors_travel_by_value_and_non_leaves_refuse():
    t = openreg.arange(3.0)
    back = pickle.loads(ForkingPickler.dumps(t))
    assert back.tolist() == [0.0, 1.0, 2.0] and not back.is_shared()
    p = openreg.nn.Parameter(openreg.ones(2)).share_memory_()
    back = pickle.loads(ForkingPickler.dumps(p))
    assert isinstance(back, openreg.nn.Parameter) and back.requires_grad and back.is_shared()
    back.data.fill_(5.0)
    assert p.tolist() == [5.0, 5.0]          # the same memory
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ForkingPickler.dumps(p * 2)


def test_spawn_reports_child_failures():
    with pytest.raises(mp.ProcessRaisedException, match="boom in [01]") as info:
        mp.spawn(_fail, nprocs=2)
    assert "terminated with the following error" in str(info.value)
    with pytest.raises(mp.ProcessExitedException, match="terminated with exit code 3"):
        mp.spawn(_exit, nprocs=1)
    ctx = mp.spawn(_add_rank, args=(openreg.zeros(1).share_memory_(),), nprocs=1, join=False)
    while not ctx.join():
        pass
    assert len(ctx.pids()) == 1


def test_sharing_strategies():
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    old = mp.get_sharing_strategy()
    try:
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
        with pytest.raises(AssertionError):
            mp.set_sharing_strategy("nope")
    finally:
        mp.set_sharing_strategy(old)
    assert mp.Process is __import__("multiprocessing").Process and callable(mp.set_start_method)


@needs_device
def test_device_tensors_are_not_shared():
    dev = openreg.utils.get_privateuse1_backend_name()
    with pytest.raises(NotImplementedError, match="shares CPU tensors between processes only"):
        openreg.ones(2, device=dev).share_memory_()
