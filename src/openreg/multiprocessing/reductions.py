"""CPU tensors in shared memory and their pickling between processes.

``Tensor.share_memory_()`` moves a CPU storage's bytes into a named POSIX shared-memory block (the storage object,
and so every tensor viewing it, stays the same). When a tensor whose storage is shared is pickled by
``multiprocessing`` (``Process`` arguments under the spawn start method, ``Queue.put``), only the block's name
travels: the receiving process maps the same memory, so writes on either side are seen by the other (Hogwild
training). Other tensors are pickled by value. A fork child inherits the mappings as they are.

>>> import openreg
>>> t = openreg.zeros(3).share_memory_()
>>> t.is_shared(), openreg.ones(2).is_shared()
(True, False)
"""
from __future__ import annotations

import os
import pickle
import weakref
from multiprocessing import shared_memory

import numpy as np

from .. import dtypes as _dt
from ..devices import CPU
from ..storage import UntypedStorage, _bytes
from ..tensor import Size, Tensor

_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # storage -> its SharedMemory block
_ATTACHED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # block name -> storage in this process
_SENT: set = set()          # blocks this process pickled for another: a receiver may attach after we let go
_CREATED: dict = {}         # name -> (pid, block) of the blocks share_storage created
_EXIT_HOOK: list = []       # the pid that registered _unlink_sent_at_exit (a fork child registers its own)


def _untracked(**kwargs) -> shared_memory.SharedMemory:
    """A SharedMemory block that Python's resource tracker leaves alone: its owner unlinks it (the tracker would
    unlink a block when the process that attached it exits, and warn about 'leaked' blocks)."""
    try:
        return shared_memory.SharedMemory(track=False, **kwargs)   # Python >= 3.13
    except TypeError:
        shm = shared_memory.SharedMemory(**kwargs)
        from multiprocessing import resource_tracker
        resource_tracker.unregister(shm._name, "shared_memory")  # type: ignore[attr-defined]
        return shm


def _unlink(shm: shared_memory.SharedMemory) -> None:
    try:
        import _posixshmem  # not shm.unlink(): it would also unregister the block from the resource tracker
        _posixshmem.shm_unlink(shm._name)  # type: ignore[attr-defined]
    except ImportError:
        shm.unlink()
    except FileNotFoundError:
        pass


def _unlink_sent_at_exit() -> None:
    """Blocks this process created and sent elsewhere are unlinked when it exits, not when their storage dies
    (a receiver may still be about to attach). Runs in multiprocessing's exit hook, in children as well."""
    pid = os.getpid()
    for name, (owner, shm) in list(_CREATED.items()):
        if owner == pid and name in _SENT:
            _unlink(shm)
            del _CREATED[name]


def _release(shm: shared_memory.SharedMemory, unlink: bool) -> None:
    try:
        shm.close()
    except BufferError:     # an array outside openreg still views the block: the mapping goes with the process
        pass
    if unlink and shm.name not in _SENT:
        _unlink(shm)
        _CREATED.pop(shm.name, None)


def is_shared(storage: UntypedStorage) -> bool:
    root = storage._base if storage._base is not None else storage
    return root in _SHARED


def share_storage(storage: UntypedStorage) -> UntypedStorage:
    """Move a CPU storage's bytes into shared memory, in place (a no-op when already shared)."""
    root = storage._base if storage._base is not None else storage
    if root in _SHARED:
        return storage
    if root.device._type != "cpu":
        raise NotImplementedError(f"share_memory_: openreg shares CPU tensors between processes only; this tensor "
                                  f"is on '{root.device}' (move it to the CPU, or create it in the process that "
                                  f"uses it)")
    if storage._base is not None:
        raise RuntimeError("share_memory_: cannot move a slice of a storage to shared memory; share the whole "
                           "storage")
    nbytes = root._nbytes
    shm = _untracked(create=True, size=max(nbytes, 1))
    arr = np.ndarray((nbytes,), np.uint8, buffer=shm.buf)
    if nbytes:
        arr[:] = _bytes(root._data)[:nbytes]
    root._data = arr               # tensors re-derive their cached arrays from the new buffer
    root._resizable = False
    _SHARED[root] = shm
    _CREATED[shm.name] = (os.getpid(), shm)
    weakref.finalize(root, _release, shm, True)
    return storage


def _attach(name: str, nbytes: int) -> UntypedStorage:
    storage = _ATTACHED.get(name)
    if storage is None:
        shm = _untracked(name=name)
        arr = np.ndarray((nbytes,), np.uint8, buffer=shm.buf)
        storage = UntypedStorage._wrap(arr, nbytes, CPU, resizable=False)
        _SHARED[storage] = shm
        _ATTACHED[name] = storage
        weakref.finalize(storage, _release, shm, False)
    return storage


def rebuild_shared_tensor(is_param: bool, name: str, nbytes: int, dtype: str, size, stride, offset: int,
                          requires_grad: bool) -> Tensor:
    t = Tensor._make(_attach(name, nbytes), Size(size), tuple(stride), offset, getattr(_dt, dtype))
    if is_param:
        from ..nn.parameter import Parameter
        return Parameter(t, requires_grad)
    return t.requires_grad_(requires_grad) if requires_grad else t


def reduce_tensor(t: Tensor):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
                           "not support crossing process boundaries.  If you just want to transfer the data, call "
                           "detach() on the tensor before serializing (e.g., putting it on the queue).")
    storage = t._storage
    root = storage._base if storage._base is not None else storage if storage is not None else None
    if root is None or root not in _SHARED:
        return Tensor.__reduce_ex__(t, pickle.HIGHEST_PROTOCOL) if type(t) is Tensor else t.__reduce_ex__(
            pickle.HIGHEST_PROTOCOL)
    from ..nn.parameter import Parameter
    offset = t._offset + (storage._base_offset // t._dtype.itemsize if storage._base is not None else 0)
    _SENT.add(_SHARED[root].name)
    if _EXIT_HOOK != [os.getpid()]:
        from multiprocessing import util
        util.Finalize(None, _unlink_sent_at_exit, exitpriority=10)
        _EXIT_HOOK[:] = [os.getpid()]
    return (rebuild_shared_tensor, (isinstance(t, Parameter), _SHARED[root].name, root._nbytes, t._dtype.name,
                                    tuple(t._size), tuple(t._stride), offset, t.requires_grad))


def register() -> None:
    """Teach multiprocessing's pickler (queues, spawn arguments) to pass shared tensors by name."""
    from multiprocessing.reduction import ForkingPickler

    from ..nn.parameter import Parameter
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)


__all__ = ["is_shared", "rebuild_shared_tensor", "reduce_tensor", "register", "share_storage"]
